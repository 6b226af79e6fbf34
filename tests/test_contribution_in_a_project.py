"""`make test` agrees with `hpckg check`: a correct contribution made as CONTRIBUTING.md teaches passes both,
and a half-written draft in data/ttl/ is one clear failure naming the file, not a page of errors from every
test that builds the graph. Each case runs the real `hpckg check` and the real test files on a copy of the
project with the contribution in its data/ttl/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, copy_project, run_hpckg, text

WORKED_EXAMPLE = ROOT / "tests" / "contributions" / "good" / "frontier.ttl"
# The test files that read the whole curated graph: the seed assertions and every data file as a check.
GRAPH_TESTS = ("test_seed_data.py", "test_data_files.py")


def project_with_tests(target: Path) -> Path:
    copy_project(target)
    (target / "tests").mkdir()
    for name in ("conftest.py", "stores.py", *GRAPH_TESTS):  # conftest makes the session's store factory
        shutil.copy(ROOT / "tests" / name, target / "tests" / name)
    return target


def run_tests(project: Path) -> tuple[int, str]:
    # Its own temporary folder, and not the options of the running session: a --basetemp it inherited through
    # PYTEST_ADDOPTS would be emptied under the running tests (or refused, being above the project's folder).
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    inner = project.with_name(project.name + "-inner-pytest")
    completed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                                "--basetemp", str(inner), *(f"tests/{name}" for name in GRAPH_TESTS)],
                               cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False)
    return completed.returncode, completed.stdout + completed.stderr


def test_the_worked_example_passes_check_and_the_tests(tmp_path: Path):
    project = project_with_tests(tmp_path)
    target = project / "data" / "ttl" / "systems" / "frontier.ttl"
    shutil.copy(WORKED_EXAMPLE, target)
    completed = run_hpckg("check", str(target), cwd=project)
    assert completed.returncode == 0, text(completed)
    code, output = run_tests(project)
    assert code == 0, output
    assert " passed" in output and "failed" not in output and "skipped" not in output, output


def test_a_half_written_draft_is_one_clear_failure(tmp_path: Path):
    project = project_with_tests(tmp_path)
    created = run_hpckg("new", "system", "Isambard-AI phase 1", "--operator", "University of Bristol",
                        "--country", "GB", cwd=project)
    assert created.returncode == 0, text(created)
    draft = project / "data" / "ttl" / "systems" / "isambard-ai-phase-1.ttl"
    assert draft.is_file()
    code, output = run_tests(project)
    assert code != 0
    assert output.count("is a draft or does not parse") == 1, output
    assert "data/ttl/systems/isambard-ai-phase-1.ttl" in output and "[placeholder]" in output
    assert "FAILED" not in output and "ERROR tests/" not in output, output


def test_a_file_that_does_not_parse_is_one_clear_failure(tmp_path: Path):
    project = project_with_tests(tmp_path)
    text_of_example = WORKED_EXAMPLE.read_text(encoding="utf-8")
    half = text_of_example[: text_of_example.index("claim:frontier-rmax")] + "claim:frontier-rmax a hpc:Claim ;\n"
    (project / "data" / "ttl" / "systems" / "frontier.ttl").write_text(half, encoding="utf-8")
    code, output = run_tests(project)
    assert code != 0
    assert output.count("is a draft or does not parse") == 1, output
    assert "frontier.ttl" in output and "[syntax-error]" in output
    assert "FAILED" not in output, output
