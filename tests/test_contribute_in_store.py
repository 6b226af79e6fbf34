"""`hpckg check` against a built store reads only what the draft touches (hpckg.contribute.neighbourhood),
and its review equals the full in-memory review of the curated graph, problem for problem, on every file of
the contribution corpus; without --store it uses the project's store once built."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from pathlib import Path

import pytest

from hpckg.contribute.check import check_files
from test_remote_store import oxigraph_server  # noqa: F401  (the fixture: a real `oxigraph serve`)

from conftest import session_project

CORPUS = Path(__file__).parent / "contributions"
FILES = sorted((CORPUS / "good").glob("*.ttl")) + sorted((CORPUS / "bad").glob("*.ttl"))


def _review(report) -> dict:
    """The report's problems and additions, blank node labels (new with every parse) made alike."""
    text = json.dumps({"problems": sorted((dataclasses.asdict(p) for p in report.problems), key=json.dumps),
                       "additions": dataclasses.asdict(report.additions), "exit_code": report.exit_code,
                       "graph_checked": report.graph_checked}, sort_keys=True)
    return json.loads(re.sub(r"\b[0-9a-f]{24,32}\b", "blank", text))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.stem}" for p in FILES])
def test_review_in_the_built_store_equals_the_full_review(path: Path, built_store: Path):
    full = check_files([path], full=True, project=session_project())
    focused = check_files([path], store_path=built_store, project=session_project())
    assert _review(focused) == _review(full), focused.to_text() + "\n---\n" + full.to_text()


def test_review_reads_a_neighbourhood_not_the_store(built_store: Path):
    """What is read for Frontier is the entities it names and what hangs off them, far from the whole store."""
    from hpckg.contribute.check import review_in_store
    from hpckg.datafiles.filecheck import check_file
    from hpckg.datafiles.report import CheckReport
    from hpckg.store import open_store

    report = CheckReport(files=[])
    parsed = check_file(CORPUS / "good" / "frontier.ttl", report, project=session_project())
    store = open_store(built_store, read_only=True)
    try:
        context = review_in_store([parsed], report, store, project=session_project())
        whole = store.triple_count()
    finally:
        store.close()
    assert report.exit_code == 0, report.to_text()
    assert 0 < len(context.around) < whole / 4
    subjects = {q.subject.value for q in context.around}
    assert "https://w3id.org/hpckg/id/system/kalos" not in subjects  # nothing links Frontier to Kalos


def test_check_uses_the_projects_built_store_and_says_so(tmp_path: Path):
    from conftest import copy_project, run_hpckg, text

    project = copy_project(tmp_path / "p")
    draft = CORPUS / "bad" / "conflicting-quantity.ttl"
    before = run_hpckg("check", "--format", "json", str(draft), cwd=project)
    assert run_hpckg("build", "--no-pages", cwd=project).returncode == 0
    after = run_hpckg("check", "--format", "json", str(draft), cwd=project)
    full = run_hpckg("check", "--full", "--format", "json", str(draft), cwd=project)
    assert before.returncode == after.returncode == full.returncode == 1, text(after)
    notes = json.loads(after.stdout)["notes"]
    assert any("built store" in note for note in notes), notes
    assert not any("built store" in note for note in json.loads(full.stdout)["notes"])
    assert json.loads(after.stdout)["problems"] == json.loads(full.stdout)["problems"]
    # an edited data file is reviewed as edited (its built copy is left out), and only other files changed
    # since the build are called stale
    kalos = project / "data" / "ttl" / "systems" / "kalos.ttl"
    kalos.write_text(kalos.read_text(encoding="utf-8") + """
claim:kalos-accelerator-quantity-2500 a hpc:Claim ;
    hpc:about cmp:kalos-accelerator ; hpc:property hpc:quantity ; hpc:value 2500 ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank rank:preferred ;
    prov:hadPrimarySource src:arxiv-2403-07648 .
""", encoding="utf-8")
    edited = [run_hpckg("check", "--format", "json", *flags, str(kalos), cwd=project) for flags in ((), ("--full",))]
    assert json.loads(edited[0].stdout)["problems"] == json.loads(edited[1].stdout)["problems"], text(edited[0])
    assert json.loads(edited[0].stdout)["problems"], "a second preferred quantity of Kalos"
    assert not any("changed after that build" in note for note in json.loads(edited[0].stdout)["notes"])
    (project / "data" / "ttl" / "parts.ttl").write_text((project / "data" / "ttl" / "parts.ttl").read_text(
        encoding="utf-8") + "\n", encoding="utf-8")
    stale = run_hpckg("check", "--format", "json", str(kalos), cwd=project)
    assert any("1 data files changed after that build" in note and "parts.ttl" in note
               for note in json.loads(stale.stdout)["notes"]), text(stale)


REMOTE = [CORPUS / "good" / "frontier.ttl", CORPUS / "bad" / "conflicting-quantity.ttl",
          CORPUS / "bad" / "duplicate-system-accents.ttl", CORPUS / "bad" / "redefines-system-label.ttl",
          CORPUS / "bad" / "verified-single-source.ttl"]


@pytest.fixture(scope="module")
def remote_endpoint(oxigraph_server) -> str:  # noqa: F811 (the imported fixture)
    from hpckg.build import build

    endpoint = f"{oxigraph_server}/query"
    build(session_project(), store_path=endpoint, validate=False)
    return endpoint


@pytest.mark.parametrize("path", REMOTE, ids=[f"{p.parent.name}-{p.stem}" for p in REMOTE])
def test_review_against_a_sparql_server_equals_the_full_review(path: Path, remote_endpoint: str):
    """The same neighbourhood read over the SPARQL protocol from a real `oxigraph serve` (hpckg.store)."""
    here = session_project()
    focused = check_files([path], here, store_path=remote_endpoint)
    assert _review(focused) == _review(check_files([path], here, full=True))


def test_a_review_can_be_bounded_and_says_so(built_store: Path):
    """The site's Contribute page bounds what a review reads; a draft touching more is refused with a
    message, not reviewed halfway."""
    from hpckg.contribute.check import review_in_store
    from hpckg.contribute.neighbourhood import TooBroad
    from hpckg.datafiles.filecheck import check_file
    from hpckg.datafiles.report import CheckReport
    from hpckg.store import open_store

    report = CheckReport(files=[])
    parsed = check_file(CORPUS / "good" / "kalos-second-source.ttl", report, project=session_project())
    store = open_store(built_store, read_only=True)
    try:
        needed = len(review_in_store([parsed], CheckReport(files=[]), store, project=session_project()).around)
        assert review_in_store([parsed], CheckReport(files=[]), store, limit=needed, project=session_project()).around
        with pytest.raises(TooBroad, match="hpckg check"):
            review_in_store([parsed], CheckReport(files=[]), store, limit=needed // 2, project=session_project())
    finally:
        store.close()


def test_store_and_full_review_are_not_mixed(built_store: Path):
    from conftest import run_hpckg, text

    frontier = str(CORPUS / "good" / "frontier.ttl")
    for option in ("--full", "--with-imports"):
        refused = run_hpckg("check", "--store", str(built_store), option, frontier)
        assert refused.returncode == 2 and f"--store and {option} cannot be used together" in text(refused)[1]


def test_the_build_writes_the_index_of_system_names_the_check_reads(tmp_path: Path):
    """`hpckg build` leaves the index of the new generation's system names in the check cache, so the first
    check after a build does not scan the store (3.5-4.5 s on the full import); a duplicate is still found."""
    from hpckg.systemnames import SystemNames, index_path

    from conftest import copy_project, run_hpckg, text

    project = copy_project(tmp_path / "p")
    cache = project / ".hpckg" / "cache" / "check"
    for build in range(2):  # the second build's index replaces the first's
        assert run_hpckg("build", "--no-pages", cwd=project).returncode == 0
        generation = (project / ".hpckg" / "store").resolve()
        assert [p.name for p in cache.glob("*.sqlite")] == [index_path(cache, str(generation)).name], build
    index = index_path(cache, str(generation))
    written = index.stat().st_mtime_ns
    assert SystemNames(sqlite3.connect(index)).matches(["Kalos"]) == {"https://w3id.org/hpckg/id/system/kalos"}
    draft = CORPUS / "bad" / "duplicate-system-accents.ttl"
    checked = run_hpckg("check", "--format", "json", str(draft), cwd=project)
    assert checked.returncode == 2 and b"duplicate-system" in checked.stdout, text(checked)  # 2: errors
    assert index.stat().st_mtime_ns == written  # read, not made again
    assert not list(project.glob(".hpckg/.store.system-names.*"))  # nothing left beside the store
