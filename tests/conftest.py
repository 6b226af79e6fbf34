"""Shared test helpers: `hpckg` run in process (or as the real console script where the process is the
point), the session's stores (tests/stores.py), servers and browser, and the curated graph built and
validated once per session.

The suite never builds this checkout as a user would: its pyproject.toml configures the public datasets as
sources, which `hpckg build` imports first (2.8 M quads of TOP500 alone), and its .hpckg/graphs holds what a
developer imported (`make run`). So:
- in-process code (populate, build, check) is given the checkout's files but, for the whole session,
  without its configured sources, with an empty machine-written graphs folder and a store location of the
  session's own: the `checkout` fixture (session_project()), a Project value passed to what needs it;
- the suite's `hpckg` commands run in `curated_root()` unless a test gives another folder: one copy of the
  ontology, shapes, queries and curated data per session; the `project` fixture is a fresh copy per test.
  A copy has no pyproject.toml, so no configured sources and no imported graphs. Each command chooses its
  project as the real command does (hpckg.cli.main), from --root or its working folder.
"""

from __future__ import annotations

import dataclasses
import io
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
    here = hpckg_project.discover(explicit=ROOT)
    files = [path for folder in here.data for path in sorted(folder.rglob("*.ttl"))]
    report = check_data_files(files, here)
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


# Test modules whose tests share nothing costly and take long one by one (pySHACL parity: seconds to minutes
# each): under pytest-xdist their tests are dealt out one at a time instead of kept on one worker.
SPREAD_OVER_WORKERS = {"tests/test_fastvalidate.py"}


# The tiers whose tests take long (pyproject.toml's markers): under pytest-xdist they are handed out first, so
# the run does not end on one worker still busy with a minute-long test while the other has nothing left.
LONG_TIERS = ("slow", "virtuoso", "imports", "browser", "abuse")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike, as xdist requires
        items.sort(key=lambda item: not any(item.get_closest_marker(tier) for tier in LONG_TIERS))


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`make test` runs `pytest -n auto --dist loadfile`: each test module on one worker, so its module
    fixtures (servers, stores, pages) are made once, except the modules of SPREAD_OVER_WORKERS. (xdist's
    loadgroup would say the same with marks, but it renames test ids in a way pytest 9.2 no longer reads.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # in the collection's order (long tiers first), not by test count

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if module in SPREAD_OVER_WORKERS else module

    return ModuleScheduling(config, log)


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
              timeout: float = 300, process: bool = False) -> subprocess.CompletedProcess:
    """Run `hpckg ARGS` and capture its output as bytes; in `cwd`, by default in the session's copy of the
    project (curated_root, see the module docstring). It runs in this process through `hpckg.cli.main`, as
    sqlite-utils' and datasette's tests call their CLIs, unless `process` asks for the real console script
    in a subprocess: where the process is the point (exit on a signal, start-up, what a user's shell sees)."""
    workdir = cwd or default_workdir()
    if process:
        env = {**os.environ, "PYTHONUTF8": "1"}
        return subprocess.run([hpckg_executable(), *args], cwd=workdir, input=input, capture_output=True,
                              timeout=timeout, env=env, check=False)
    return call_hpckg(list(args), workdir, input)


def call_hpckg(args: list[str], workdir: Path, input: bytes | None = None) -> subprocess.CompletedProcess:
    """`hpckg.cli.main(args)` in this process, in `workdir`, with stdin, stdout and stderr of its own.
    (Tests run one at a time in a process, so changing the working directory for the call is safe.)"""
    from hpckg.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    streams = (io.TextIOWrapper(io.BytesIO(input or b""), encoding="utf-8"),
               io.TextIOWrapper(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", write_through=True))
    saved, previous = (sys.stdin, sys.stdout, sys.stderr), os.getcwd()
    os.chdir(workdir)
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        try:
            status = main(args)
        except SystemExit as stop:  # argparse: --help, --version, a usage error
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if isinstance(stop.code, str):
                print(stop.code, file=sys.stderr)
        for stream in streams[1:]:
            stream.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(previous)
    return subprocess.CompletedProcess(["hpckg", *args], status, out.getvalue(), err.getvalue())


def text(completed: subprocess.CompletedProcess) -> tuple[str, str]:
    return completed.stdout.decode("utf-8", "replace"), completed.stderr.decode("utf-8", "replace")


def query_rows(project: Path, *query: str) -> list[dict[str, str]]:
    """`hpckg query QUERY… --format json` in a project: each row's values as text ("" when unbound).
    (JSON results: values with commas or newlines need no CSV parsing.)"""
    import json

    completed = run_hpckg("query", *query, "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    results = json.loads(out)
    names = results["head"]["vars"]
    return [{n: b[n]["value"] if n in b else "" for n in names} for b in results["results"]["bindings"]]


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


_curated: list[Path] = []
_session_project: list[hpckg_project.Project] = []


def curated_root() -> Path:
    """This session's copy of the project (see the module docstring): build it, never the checkout."""
    if not _curated:
        raise RuntimeError("curated_root() is made by the session fixture curated_project")
    return _curated[0]


_checkout_names: list = []


def checkout_names():
    """The checkout's curated names (hpckg.reference.Reference), as `hpckg import` hands them to an importer;
    read once per process."""
    from hpckg.reference import Reference

    if not _checkout_names:
        _checkout_names.append(Reference.of_project(hpckg_project.discover(explicit=ROOT)))
    return _checkout_names[0]


def session_project() -> hpckg_project.Project:
    """The checkout as the session's in-process code sees it (see the module docstring and `checkout`)."""
    if not _session_project:
        raise RuntimeError("session_project() is made by the session fixture curated_project")
    return _session_project[0]


def default_workdir() -> Path:
    """Where the suite's commands run unless a test says otherwise: the session's copy of the project."""
    return _curated[0] if _curated else ROOT


@pytest.fixture(scope="session", autouse=True)
def curated_project(tmp_path_factory) -> Path:
    """The session's copy of the project (curated_root), and the checkout as the in-process project minus its
    configured sources and its machine-written graphs (session_project; see the module docstring)."""
    root = copy_project(tmp_path_factory.mktemp("curated"))
    _curated.append(root)
    checkout = hpckg_project.discover(explicit=ROOT)
    # Its own store too: a developer's `make run` leaves the full import's store in .hpckg/store, and `hpckg
    # check` reviews against the built store it finds (the good contributions then clash with TOP500 rows).
    in_process = dataclasses.replace(checkout, sources={}, graphs=tmp_path_factory.mktemp("checkout-graphs"),
                                     store=tmp_path_factory.mktemp("checkout-store") / "store")
    _session_project.append(in_process)
    yield root
    _curated.clear()
    _session_project.clear()


@pytest.fixture(scope="session")
def checkout(curated_project) -> hpckg_project.Project:
    """The checkout as a Project value for in-process code: its ontology, shapes, queries and curated data,
    without its configured sources, with the session's own graphs folder and store (session_project)."""
    return session_project()


@pytest.fixture(scope="session", autouse=True)
def store_factory(tmp_path_factory):
    """The one factory of the session's stores (tests/stores.py). Under pytest-xdist its folder is the one
    all workers of the run share, so each store is built once per run, not once per worker."""
    import stores

    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "stores"
    folder.mkdir(exist_ok=True)
    stores._factory.append(stores.StoreFactory(folder))
    yield stores._factory[0]
    stores._factory.clear()


@pytest.fixture(scope="session")
def built_store(store_factory) -> Path:
    """The curated data built and validated once per session by the real `hpckg build` command."""
    import stores

    return stores.curated().store


@pytest.fixture(scope="session")
def seed_store(checkout) -> Store:
    """The curated graph (ontology, shapes, data/ttl/, derived facts) in memory, built once per session.
    Read-only by convention: a test that adds data builds its own store."""
    store = Store(None)
    populate(store, checkout)
    return store


@pytest.fixture(scope="session")
def seed_report(seed_store: Store, checkout) -> ValidationReport:
    """The curated graph validated once per session with the fast engine (pySHACL parity is a slow test)."""
    return validate(seed_store, project=checkout)


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """One headless Chromium for the whole session, driven over DevTools (tests/chromium.py): each page a test
    loads gets a fresh tab of its own. Skipped without Chromium, failed under CI (require_chromium)."""
    from chromium import Browser  # not at the top: chromium.py imports require_chromium from here

    chromium = Browser(tmp_path_factory.mktemp("chromium") / "profile")
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def website_server():
    """One real `hpckg serve` over the website's store (tests/stores.py) for the session's tests that need a
    server process (browsers, HTTP clients): its precomputed pages are made once, not once per module."""
    import stores
    from serve_live import start_server

    live = start_server(stores.website().store, "--workers", "2", "--rate-limit", "0")
    yield live
    live.stop()


@pytest.fixture(scope="session")
def website_client():
    """The application over the website's store in this process (Starlette's TestClient), for the session."""
    import stores
    from serve_live import in_process

    with in_process(stores.website().store, workers=2, rate_limit=0) as client:
        yield client
