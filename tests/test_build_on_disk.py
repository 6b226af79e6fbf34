"""The build's two places to derive and validate (issue 15): in memory, copied into the new generation once
it is good, or in the new on-disk generation itself, for graphs larger than memory. Both must give the same
graph, the same summary and the same report, and keep the store's guarantees: a failed or killed build
leaves the previous generation in place. Every build here is the real `hpckg build` in a subprocess."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from hostile.test_store_faults import (
    KILL_POINTS,
    SWITCHED,
    count,
    generation_dirs,
    kill,
    marker,
    marker_file,
    read_stderr_until,
    start_build,
)

from conftest import ROOT, copy_project, run_hpckg, text

FIXTURES = ROOT / "tests" / "fixtures" / "timeseries"  # TOP500-style and Epoch-style graphs: claims over time
ENDED = "http://www.w3.org/ns/prov#endedAtTime"  # when each rule ran: the one thing two builds differ in


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return copy_project(tmp_path_factory.mktemp("on-disk"))


def build(project: Path, store: Path, staging: str, *extra: Path) -> tuple[int, str, str]:
    completed = run_hpckg("build", "--no-pages", "--no-import", "--staging", staging, "--store", str(store),
                          *map(str, extra), cwd=project)
    out, err = text(completed)
    assert "Traceback" not in err, err
    return completed.returncode, out, err


def dataset(store: Path) -> ox.Dataset:
    """The store's quads, less the rule runs' timestamps, with blank nodes canonicalised (RDFC-1.0's
    unstable variant: the shapes' blank nodes get their labels afresh in every build)."""
    from hpckg.store import current_generation

    opened = ox.Store.read_only(str(current_generation(store)))
    found = ox.Dataset(q for q in opened if not (isinstance(q.predicate, ox.NamedNode) and q.predicate.value == ENDED))
    found.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return found


def without_location(summary: str) -> list[str]:
    return [line for line in summary.splitlines() if not line.startswith("store: ")]


def test_disk_and_memory_give_the_same_graph_and_summary(project, tmp_path):
    extra = sorted(FIXTURES.glob("*.ttl"))
    results = {}
    for staging in ("memory", "disk"):
        code, out, err = build(project, tmp_path / staging, staging, *extra)
        assert code == 0, out + err
        assert f"deriving and validating {'in memory' if staging == 'memory' else 'on disk'}" in err
        results[staging] = out
    assert without_location(results["memory"]) == without_location(results["disk"])
    in_memory, on_disk = dataset(tmp_path / "memory"), dataset(tmp_path / "disk")
    assert len(in_memory) > 8000
    assert set(map(str, in_memory)) == set(map(str, on_disk))


def test_disk_and_memory_refuse_an_invalid_graph_with_the_same_report(project, tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix hpc: <https://w3id.org/hpckg/ontology#> .\n"
                   "<https://w3id.org/hpckg/id/claim/x> a hpc:Claim .\n", encoding="utf-8")
    reports = {}
    for staging in ("memory", "disk"):
        store = tmp_path / staging
        code, out, err = build(project, store, staging, marker_file(tmp_path, "good"))
        assert code == 0, out + err
        code, out, err = build(project, store, staging, bad)
        assert code == 1, out + err
        reports[staging] = err[err.index("the graph does not conform"):]
        assert "claim-source" in reports[staging] or "Violation" in reports[staging], reports[staging]
        # The failed generation is gone; the good one still serves.
        assert marker(store) == "good"
        assert len(generation_dirs(store)) == 1, generation_dirs(store)
    assert reports["memory"] == reports["disk"]


# abuse: three builds per kill point, about 4 s each; make test runs them, make test-fast leaves them out
@pytest.mark.abuse
@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_disk_build_killed_at_any_point_leaves_a_complete_store(tmp_path, point):
    store = tmp_path / "store"
    disk = ("--staging", "disk")
    process = start_build(store, marker_file(tmp_path, "A"), options=disk)
    assert process.wait(timeout=300) == 0, process.stderr.read().decode()
    expected = count(store)
    process = start_build(store, marker_file(tmp_path, "B"), pause_at=point, options=disk)
    try:
        read_stderr_until(process, f"paused at {point}")
    finally:
        kill(process)
    # The half-built generation on disk is never what the store points at before the switch.
    assert marker(store) == ("B" if point in SWITCHED else "A")
    assert count(store) == expected
    process = start_build(store, marker_file(tmp_path, "C"), options=disk)
    assert process.wait(timeout=300) == 0, process.stderr.read().decode()
    assert marker(store) == "C"
    assert len(generation_dirs(store)) == 2, generation_dirs(store)


def test_auto_chooses_from_the_inputs_size_and_the_memory_available(project):
    from hpckg import project as projects
    from hpckg.build import (
        BYTES_PER_QUAD_IN_MEMORY,
        MEMORY_SHARE,
        available_memory,
        choose_staging,
        expected_quads,
        source_files,
    )
    from hpckg.store import Store

    copy = projects.discover(explicit=project)
    files = source_files(copy)
    estimate = expected_quads(files)
    loaded = Store(None)
    from hpckg.build import load_files

    load_files(loaded, files, copy)
    # The estimate errs high, so that "auto" errs towards the disk, never towards running out of memory.
    assert estimate >= loaded.triple_count()
    assert available_memory() > 0
    expected = "memory" if estimate * BYTES_PER_QUAD_IN_MEMORY <= MEMORY_SHARE * available_memory() else "disk"
    assert choose_staging(files) == expected
    assert choose_staging(files, "disk") == "disk"


WRITE_AND_MEASURE = """
import json, resource, sys
import pyoxigraph as ox
from hpckg.store import Store
store = Store(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
graph = ox.NamedNode("urn:derived")
quads = (ox.Quad(ox.NamedNode(f"urn:s{n}"), ox.NamedNode("urn:p"), ox.Literal(f"value {n}"), graph)
         for n in range(600_000))
added = store.load_quads_in_batches(quads)
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps({"added": added, "count": store.triple_count(), "grown_mb": grown}))
"""


@pytest.mark.slow
def test_a_rules_triples_written_to_disk_do_not_pile_up_in_memory(tmp_path):
    # RocksDB kept every quad written in its memory tables until a flush (600k quads: ~470 MB more, growing
    # with the rule's output); flushed every 200k they take a bounded amount whatever the rule writes.
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WRITE_AND_MEASURE, str(tmp_path / "store")],
                          capture_output=True, text=True, check=True)
    measured = json.loads(done.stdout)
    assert measured["added"] == measured["count"] == 600_000
    assert measured["grown_mb"] < 300, measured
