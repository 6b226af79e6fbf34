"""Configured sources ([sources] in hpckg.toml, [tool.hpckg.sources] in pyproject.toml): `hpckg build`
imports them first, `hpckg import NAME` and `--all` read them, a missing one is one clear line, and every
import ends with a summary table; run for real on Epoch AI's ml_hardware.csv from ../shared/data, in a
copied project, through the real command."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from hpckg import project as hpckg_project

from conftest import ROOT, SHARED, run_hpckg, session_project, text

HARDWARE = SHARED / "data" / "epoch-ai" / "ml_hardware.csv"
HARDWARE_WHERE = "https://epoch.ai/data/machine-learning-hardware"
TOP500_WHERE = "https://top500.org/lists/top500/"


def hardware_rows(path: Path = HARDWARE) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as file:
        return list(csv.DictReader(file))


def configure(project: Path, **sources: list[str]) -> Path:
    lines = ["[sources]"] + [f"{name} = {json.dumps(paths)}" for name, paths in sources.items()]
    config = project / "hpckg.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def graph_file(project: Path) -> Path:
    return project / ".hpckg" / "graphs" / "import" / "epoch-hardware" / "ml-hardware.nq"


def current_generation(store: Path) -> str:
    return os.readlink(store)


def test_build_imports_the_configured_sources_and_goes_on_without_missing_ones(project):
    config = configure(project, **{"epoch-hardware": [str(HARDWARE)], "top500": ["downloads/top500"],
                                   "no-such-source": ["x.csv"]})
    built = run_hpckg("build", "--no-pages", "--quiet", cwd=project)
    out, err = text(built)
    assert built.returncode == 0, out + err
    assert "Traceback" not in err
    assert "violations: 0" in out and "(1 machine-written graphs)" in out
    assert graph_file(project).is_file()
    # One line per unusable source: the path, the file that configures it, where to download it.
    missing = [line for line in err.splitlines() if "downloads/top500" in line]
    assert missing == [f"hpckg build: warning: {project / 'downloads' / 'top500'}: not found (set as [sources] "
                       f"top500 in {config}); the top500 importer reads The TOP500 list (top500.org), one file "
                       f"per edition: download it from {TOP500_WHERE} (TOP500_YYYYMM.xml / .xls / .xlsx)"]
    unknown = [line for line in err.splitlines() if "no-such-source" in line]
    assert len(unknown) == 1 and f"[sources] no-such-source in {config} names no importer" in unknown[0]
    assert "importers: epoch-clusters, epoch-datacenters, epoch-hardware, top500" in unknown[0]

    # The next build finds the graph up to date: nothing is read again.
    written = graph_file(project).stat().st_mtime_ns
    again = run_hpckg("build", "--no-pages", "--no-validate", cwd=project)
    assert again.returncode == 0, text(again)[1]
    assert "configured sources: 1 unchanged since imported" in text(again)[1]
    assert graph_file(project).stat().st_mtime_ns == written


def test_strict_sources_refuses_a_missing_source_and_no_import_skips_the_step(project):
    configure(project, **{"epoch-hardware": [str(HARDWARE)], "top500": ["downloads/top500"]})
    strict = run_hpckg("build", "--no-pages", "--quiet", "--strict-sources", cwd=project)
    out, err = text(strict)
    assert strict.returncode == 2, out + err
    assert f"hpckg build: error: {project / 'downloads' / 'top500'}: not found" in err
    assert "--strict-sources" in err and "Traceback" not in err
    assert not (project / ".hpckg" / "store").exists()

    skipped = run_hpckg("build", "--no-pages", "--quiet", "--no-import", "--no-validate", cwd=project)
    assert skipped.returncode == 0, text(skipped)[1]
    assert "(0 machine-written graphs)" in text(skipped)[0]
    assert not graph_file(project).exists()
    assert "downloads/top500" not in text(skipped)[1]

    # --memory writes nothing, so it imports nothing either.
    in_memory = run_hpckg("build", "--no-pages", "--memory", "--quiet", "--no-validate", cwd=project)
    assert in_memory.returncode == 0 and not graph_file(project).exists()


def test_build_shows_a_progress_bar_when_asked_and_ends_the_import_with_a_summary_table(project):
    configure(project, **{"epoch-hardware": [str(HARDWARE.parent)]})
    built = run_hpckg("build", "--no-pages", "--progress", "--no-validate", cwd=project)
    out, err = text(built)
    assert built.returncode == 0, out + err
    assert "epoch-hardware ml_hardware.csv" in err and "1/1" in err  # the bar: file, files done
    rows = len(hardware_rows())
    table = err[err.index("import summary"):]
    assert "claims by tier" in table and "skipped" in table
    line = next(line for line in table.splitlines() if "ml_hardware.csv" in line)
    cells = [cell.strip() for cell in line.strip("│ ").split("│")]
    assert cells[:4] == ["ml_hardware.csv", "imported", f"{rows:,}", "0"], line
    assert cells[4].endswith(" reported") and cells[5] == "0", line
    assert "import summary" not in out  # stdout stays the build summary


def test_import_reads_configured_sources_by_name_or_all_and_reports_as_json(project):
    configure(project, **{"epoch-hardware": [str(HARDWARE)], "top500": ["downloads/top500"]})
    by_name = run_hpckg("import", "epoch-hardware", cwd=project)
    out, err = text(by_name)
    assert by_name.returncode == 0, err
    assert out.startswith("imported  ml_hardware.csv")
    assert "import summary" in out and "\x1b[" not in err  # not a terminal: no progress bar

    everything = run_hpckg("import", "--all", "--format", "json", cwd=project)
    out, err = text(everything)
    assert everything.returncode == 0, err  # --all goes on without the missing top500 folder
    report = json.loads(out)
    [result] = report["files"]
    rows = hardware_rows()
    assert result["status"] == "unchanged" and result["rows"] == len(rows)  # counts kept in the header
    assert result["systems"] == 0 and set(result["claims_by_tier"]) == {"reported"}
    assert result["skipped_rows"] == 0
    assert len(report["problems"]) == 1 and TOP500_WHERE in report["problems"][0]
    assert "\x1b[" not in err

    # Named, the missing source is an error, after importing what is there; as JSON, still one document.
    named = run_hpckg("import", "top500", cwd=project)
    assert named.returncode == 2
    assert f"{project / 'downloads' / 'top500'}: not found" in text(named)[1] and TOP500_WHERE in text(named)[1]
    named_json = run_hpckg("import", "top500", "--format", "json", cwd=project)
    assert named_json.returncode == 2
    assert json.loads(text(named_json)[0]) == {"exit_code": 2, "files": [], "problems": report["problems"]}
    strict = run_hpckg("import", "--all", "--strict-sources", cwd=project)
    assert strict.returncode == 2 and "Traceback" not in text(strict)[1]


def test_a_malformed_row_is_reported_with_file_row_and_column_and_the_import_goes_on(project, tmp_path):
    lines = HARDWARE.read_text(encoding="utf-8-sig").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    bad_row = ",".join("???" if column == "Hardware name" else "" for column in header) + "\n"
    download = tmp_path / "download" / "ml_hardware.csv"
    download.parent.mkdir()
    download.write_text(lines[0] + bad_row + "".join(lines[1:]), encoding="utf-8")
    completed = run_hpckg("import", "epoch-hardware", str(download), "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    [result] = json.loads(out)["files"]
    assert result["rows"] == len(hardware_rows()) + 1
    assert result["skipped"] == [{"row": 2, "column": "Hardware name",
                                  "reason": "no usable name, so no part model to state anything about"}]
    text_run = run_hpckg("import", "epoch-hardware", str(download), "--format", "text", cwd=project)
    assert "unchanged" in text(text_run)[0]
    graph_file(project).unlink()
    text_run = run_hpckg("import", "epoch-hardware", str(download), cwd=project)
    out, err = text(text_run)
    assert ("skipped: ml_hardware.csv: row 2, column Hardware name: no usable name, so no part model to state "
            "anything about; row skipped") in err
    assert "1: no usable name" in out  # the table's skipped column: how many and why
    # The rows after the malformed one were imported.
    assert "AMD Instinct MI355X" in graph_file(project).read_text(encoding="utf-8")


def test_a_malformed_configured_file_stops_the_build_with_graph_and_store_untouched(project, tmp_path):
    download = tmp_path / "ml_hardware.csv"
    download.write_bytes(HARDWARE.read_bytes())
    configure(project, **{"epoch-hardware": [str(download)]})
    assert run_hpckg("build", "--no-pages", "--quiet", "--no-validate", cwd=project).returncode == 0
    graph_before = graph_file(project).read_bytes()
    store = project / ".hpckg" / "store"
    generation = current_generation(store)

    download.write_text("name,price\nx,1\n", encoding="utf-8")  # a newer "download" that is not the dataset
    refused = run_hpckg("build", "--no-pages", "--quiet", "--no-validate", cwd=project)
    out, err = text(refused)
    assert refused.returncode == 2, out + err
    assert f"{download}: not Epoch's ml_hardware.csv: no column Hardware name" in err
    assert "Traceback" not in err
    assert graph_file(project).read_bytes() == graph_before
    assert current_generation(store) == generation
    assert not [p for p in graph_file(project).parent.iterdir() if p.name.endswith(".tmp")]


def test_the_checkout_configures_the_shared_datasets_as_sources():
    # An editable install's own checkout reads its [tool.hpckg] like any other checkout.
    checkout = hpckg_project.discover(workdir=ROOT)
    assert checkout.config_file == ROOT / "pyproject.toml"
    assert checkout.sources["top500"] == (ROOT / "../shared/data/top500",)
    assert checkout.sources["epoch-hardware"] == (ROOT / "../shared/data/epoch-ai/ml_hardware.csv",)
    listed = run_hpckg("import", "--list")
    assert listed.returncode == 0
    # …and the suite builds without them (conftest): in-process, the checkout has no sources.
    assert session_project().sources == {}
