"""`hpckg import`: the importer registry, the machine-written graphs it writes with their provenance, and
`hpckg build` taking them in; run for real on Epoch AI's ml_hardware.csv from ../shared/data."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from hpckg.importers import IMPORTERS, importer

from conftest import SHARED, run_hpckg, session_project, text

HARDWARE = SHARED / "data" / "epoch-ai" / "ml_hardware.csv"
GRAPH = "https://w3id.org/hpckg/graph/import/epoch-hardware/ml-hardware"


def graph_file(project: Path) -> Path:
    return project / ".hpckg" / "graphs" / "import" / "epoch-hardware" / "ml-hardware.nq"


def query(project: Path, sparql: str) -> list[list[str]]:
    completed = run_hpckg("query", "-e", sparql, "--format", "csv", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    return list(csv.reader(out.splitlines()))[1:]


def test_every_registered_importer_loads_and_says_where_its_files_come_from():
    for name in IMPORTERS:
        module = importer(name)
        assert module.TITLE and module.WHERE and module.PATTERNS
        assert callable(module.read) and callable(module.graph_key)
    listed = run_hpckg("import", "--list")
    assert listed.returncode == 0
    assert all(name in text(listed)[0] for name in IMPORTERS)


def test_import_writes_one_graph_with_provenance_and_build_loads_it(project):
    completed = run_hpckg("import", "epoch-hardware", str(HARDWARE.parent), cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert out.startswith("imported  ml_hardware.csv -> <" + GRAPH + ">")
    header = graph_file(project).read_text(encoding="utf-8").splitlines()[0]
    sha = hashlib.sha256(HARDWARE.read_bytes()).hexdigest()
    assert f"sha256={sha}" in header

    built = run_hpckg("build", "--no-pages", "--quiet", cwd=project)
    out, err = text(built)
    assert built.returncode == 0, out + err
    assert "violations: 0" in out and "(1 machine-written graphs)" in out

    # Says who, when, how sure: the import activity used the file (by its hash) and generated the graph.
    rows = query(project, f"""
        SELECT ?name ?size ?started WHERE {{
          ?import a hpc:Import ; prov:used ?file ; prov:generated <{GRAPH}> ; prov:startedAtTime ?started ;
                  prov:wasAssociatedWith/prov:specializationOf sw:hpckg .
          ?file hpc:sha256 "{sha}" ; dcterms:title ?name ; dcat:byteSize ?size .
        }}""")
    assert rows and rows[0][:2] == ["ml_hardware.csv", str(HARDWARE.stat().st_size)]

    # Every part in the file is a part model with its claims, each citing the Epoch dataset.
    with HARDWARE.open(newline="", encoding="utf-8") as file:
        names = {row["Hardware name"].strip() for row in csv.DictReader(file) if row["Hardware name"].strip()}
    parts = query(project, f"SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE {{ GRAPH <{GRAPH}> {{ ?p a hpc:PartModel }} }}")
    assert int(parts[0][0]) == len(names)
    uncited = query(project, f"""
        SELECT (COUNT(?c) AS ?n) WHERE {{ GRAPH <{GRAPH}> {{ ?c a hpc:Claim }}
          FILTER NOT EXISTS {{ ?c prov:hadPrimarySource src:epoch-ml-hardware ; hpc:tier tier:reported ;
                                  hpc:basis basis:imported }} }}""")
    assert uncited == [["0"]]


def test_figures_are_converted_to_the_ontologys_units(project):
    assert run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project).returncode == 0
    assert run_hpckg("build", "--no-pages", "--quiet", "--no-validate", cwd=project).returncode == 0
    with HARDWARE.open(newline="", encoding="utf-8") as file:
        row = next(r for r in csv.DictReader(file) if r["Hardware name"] == "AMD Instinct MI355X")
    values = dict(query(project, """
        SELECT ?property ?value WHERE { ?c hpc:about part:amd-instinct-mi355x ; hpc:property ?p ; hpc:value ?value .
          BIND (STRAFTER(STR(?p), "#") AS ?property) }"""))
    assert float(values["memoryGB"]) == float(row["Memory size per board (Byte)"]) / 1e9  # 288 GB
    assert float(values["peakTflopsTensor16"]) == pytest.approx(float(row["Tensor-FP16/BF16 performance (FLOP/s)"])
                                                                / 1e12)
    assert float(values["tdpWatts"]) == float(row["TDP (W)"])
    assert values["releaseDate"] == row["Release date"]
    assert values["maker"] == "https://w3id.org/hpckg/id/org/amd"


def test_reimporting_unchanged_is_a_no_op_and_a_changed_file_replaces_only_its_graph(project, tmp_path):
    assert run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project).returncode == 0
    before = graph_file(project).stat().st_mtime_ns
    again = run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project)
    assert again.returncode == 0
    assert text(again)[0].startswith("unchanged ml_hardware.csv")
    assert graph_file(project).stat().st_mtime_ns == before

    changed = tmp_path / "download" / "ml_hardware.csv"
    changed.parent.mkdir()
    lines = HARDWARE.read_text(encoding="utf-8").splitlines(keepends=True)
    changed.write_text("".join(lines[:1] + lines[1:]).replace("AMD Instinct MI355X", "AMD Instinct MI355X Rev B"),
                       encoding="utf-8")
    replaced = run_hpckg("import", "epoch-hardware", str(changed), cwd=project)
    assert replaced.returncode == 0
    assert text(replaced)[0].startswith("replaced  ml_hardware.csv")
    assert "AMD Instinct MI355X Rev B" in graph_file(project).read_text(encoding="utf-8")
    assert len(list(graph_file(project).parent.iterdir())) == 1


def test_a_curated_edit_that_names_nothing_new_imports_nothing_again(project):
    # Issue 36: any edit under data/ttl/ (a new system, a claim about an imported record) re-imported every
    # dataset file, because the importers' header held a digest of the curated files' bytes. It now holds a
    # digest of the names the importers read: only a new name (an alias, an organisation) redoes the graphs.
    assert run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project).returncode == 0
    enrichment = project / "data" / "ttl" / "claims" / "kalos.ttl"
    enrichment.parent.mkdir(parents=True)
    enrichment.write_text((project / "data" / "ttl" / "systems" / "kalos.ttl").read_text(encoding="utf-8")
                          .replace("kalos", "kalos-copy") + "\n# a comment\n", encoding="utf-8")
    again = run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project)
    assert text(again)[0].startswith("unchanged ml_hardware.csv"), text(again)
    organisations = project / "data" / "ttl" / "organisations.ttl"
    organisations.write_text(organisations.read_text(encoding="utf-8") + "\norgn:example-chips a hpc:Organisation ; "
                             'rdfs:label "Example Chips" .\n', encoding="utf-8")
    named = run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project)
    assert text(named)[0].startswith("replaced  ml_hardware.csv"), text(named)  # a new name: redone


def test_an_unusable_file_is_a_clear_error_and_keeps_the_last_good_graph(project, tmp_path):
    assert run_hpckg("import", "epoch-hardware", str(HARDWARE), cwd=project).returncode == 0
    good = graph_file(project).read_bytes()
    bad = tmp_path / "ml_hardware.csv"
    bad.write_text("name,price\nx,1\n", encoding="utf-8")
    completed = run_hpckg("import", "epoch-hardware", str(bad), cwd=project)
    out, err = text(completed)
    assert completed.returncode == 2
    assert "not Epoch's ml_hardware.csv: no column Hardware name" in err and "Traceback" not in err
    assert graph_file(project).read_bytes() == good
    assert not [p for p in graph_file(project).parent.iterdir() if p.name.endswith(".tmp")]


def test_missing_files_and_unknown_importers_say_what_to_do(project, tmp_path):
    missing = run_hpckg("import", "epoch-hardware", str(tmp_path / "nowhere.csv"), cwd=project)
    assert missing.returncode == 2
    assert "nowhere.csv: no such file" in text(missing)[1] and "epoch.ai/data" in text(missing)[1]
    unknown = run_hpckg("import", "top5000", "x.csv", cwd=project)
    assert unknown.returncode == 2
    assert ("no importer named 'top5000'; importers: epoch-clusters, epoch-datacenters, epoch-hardware, top500"
            in text(unknown)[1])
    nothing = run_hpckg("import", "epoch-hardware", cwd=project)
    assert nothing.returncode == 2 and "[tool.hpckg.sources]" in text(nothing)[1]


def test_configured_sources_are_imported_when_no_file_is_given(project):
    (project / "hpckg.toml").write_text(f'[sources]\nepoch-hardware = ["{HARDWARE.parent}"]\n', encoding="utf-8")
    completed = run_hpckg("import", "epoch-hardware", cwd=project)
    assert completed.returncode == 0, text(completed)[1]
    assert graph_file(project).is_file()


def test_the_importer_digest_covers_the_helper_modules_it_imports(project):
    """A fix in a module an importer uses (top500_identity, epoch_csv, claims) must redo its graphs as surely
    as one in the importer's own file: the header's importer digest is over all of them."""
    from hpckg.importers.run import PACKAGE, code_digest, code_files, expected_header

    for name, helpers in {"top500": {"importers/top500_identity.py", "importers/top500_files.py", "claims.py"},
                          "epoch-clusters": {"importers/epoch_csv.py", "importers/epoch_hardware.py", "values.py"},
                          "epoch-datacenters": {"importers/epoch_csv.py", "reference.py"}}.items():
        module = importer(name).__name__
        files = {path.relative_to(PACKAGE).as_posix() for path in code_files(module)}
        assert helpers <= files, (name, sorted(files))
        assert "importers/__init__.py" not in files  # registering another importer redoes nothing
    _, header = expected_header("epoch-hardware", HARDWARE, session_project())
    assert header["importer"] == code_digest(importer("epoch-hardware").__name__)


def test_the_shared_graph_follows_a_part_reimported_by_changed_code(tmp_path):
    # A part's source file unchanged (same sha256) but written by other importer code states other things:
    # the shared graph is rewritten from the parts, not kept because the files' digests did not change.
    import pyoxigraph as ox

    from hpckg.importers.run import shared_graph_iri, shared_part_file, write_shared_graph
    from hpckg.machinegraphs import write_graph

    graphs = tmp_path / "graphs"
    graph = ox.NamedNode(shared_graph_iri("top500"))
    claim = ox.NamedNode("https://w3id.org/hpckg/id/claim/x")
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    part = shared_part_file(graphs, "top500", "2014-06")
    for code, said in (("aaaa", "figures of the neighbouring row"), ("bbbb", "figures of its own row")):
        write_graph(part, [ox.Quad(claim, label, ox.Literal(said), graph)], {"sha256": "same", "importer": code},
                    title="import top500 shared part")
        shared = write_shared_graph("top500", graphs)
        assert shared is not None
        assert said in shared.read_text(encoding="utf-8")
