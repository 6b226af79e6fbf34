"""Shared test helpers: the real `hpckg` console script, a store built once per session, and the curated
graph built and validated once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpckg import project as hpckg_project
from hpckg.build import populate
from hpckg.datafiles import check_data_files
from hpckg.store import Store
from hpckg.validate import ValidationReport, validate

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def drafts_in_data() -> str:
    """The data files that break a file-level rule (a half-written draft, a file that does not parse), as
    the lines `hpckg check` prints; empty when every file is finished."""
    files = [path for folder in hpckg_project.current().data for path in sorted(folder.rglob("*.ttl"))]
    report = check_data_files(files)
    return "\n".join(f"  {p.location()}: [{p.code}] {p.message}" for p in report.errors)


def pytest_sessionstart(session: pytest.Session) -> None:
    """A draft in data/ttl/ stops the run with one message: every test that builds the graph would fail on
    it, burying the one thing to do under a page of the same error."""
    problems = drafts_in_data()
    if problems:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line("a file in data/ttl/ is a draft or does not parse, so the graph cannot be built and "
                            f"no test that reads it can run:\n{problems}\nfinish it (`hpckg check FILE` says what "
                            "is missing) or move it out of data/ttl/ while it is a draft", red=True, bold=True)
        pytest.exit("a draft in data/ttl/ (above)", returncode=1)


def hpckg_executable() -> str:
    """The installed `hpckg` console script of the interpreter running the tests."""
    candidate = Path(sys.executable).with_name("hpckg")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("hpckg")
    if not found:
        raise RuntimeError("the hpckg console script is not installed; run `make install`")
    return found


def require_chromium() -> str:
    """Debian's Chromium for the browser tests. `make test` installs it where it can; elsewhere the browser
    tests are skipped with this reason, except under CI, which must never skip them."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    reason = ("Chromium is not installed, so the browser tests cannot run: `make test` installs it as root "
              "with apt-get; otherwise install Debian's chromium package")
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI is set: CI never skips the browser tests)", pytrace=False)
    pytest.skip(reason)


def run_hpckg(*args: str, cwd: Path | None = None, input: bytes | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the real `hpckg` command in a subprocess and capture its output as text."""
    env = {**os.environ, "PYTHONUTF8": "1"}
    return subprocess.run([hpckg_executable(), *args], cwd=cwd or ROOT, input=input, capture_output=True,
                          timeout=timeout, env=env, check=False)


def text(completed: subprocess.CompletedProcess) -> tuple[str, str]:
    return completed.stdout.decode("utf-8", "replace"), completed.stderr.decode("utf-8", "replace")


def copy_project(target: Path) -> Path:
    """A second project: the ontology, shapes, queries and curated data of this checkout, so imports and
    builds write into it and not into the checkout."""
    for folder in ("ontology", "shapes", "queries", "data"):
        shutil.copytree(ROOT / folder, target / folder)
    return target


@pytest.fixture
def project(tmp_path) -> Path:
    """A copy of this project in a temporary folder (see copy_project)."""
    return copy_project(tmp_path)


@pytest.fixture(scope="session")
def built_store(tmp_path_factory) -> Path:
    """A store built once per test session by the real `hpckg build` command."""
    path = tmp_path_factory.mktemp("store") / "store"
    completed = run_hpckg("build", "--quiet", "--store", str(path))
    out, err = text(completed)
    assert completed.returncode == 0, f"hpckg build failed:\n{out}\n{err}"
    return path


@pytest.fixture(scope="session")
def seed_store() -> Store:
    """The curated graph (ontology, shapes, data/ttl/, derived facts) in memory, built once per session.
    Read-only by convention: a test that adds data builds its own store."""
    store = Store(None)
    populate(store)
    return store


@pytest.fixture(scope="session")
def seed_report(seed_store: Store) -> ValidationReport:
    """The curated graph validated once per session with the fast engine (pySHACL parity is a slow test)."""
    return validate(seed_store)
