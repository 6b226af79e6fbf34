"""The store under faults (issue 11, "Store and build"): overlapping builds, builds killed part-way, corrupt
store files. Every test drives the real `hpckg` command in subprocesses on real stores in tmp folders.

A build can be held at a named point with HPCKG_TEST_PAUSE_AT=<point>: it prints
"hpckg build: paused at <point>" on stderr and sleeps until it is killed, so a test can SIGKILL it there.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import curated_root, hpckg_executable, run_hpckg, text

pytestmark = pytest.mark.abuse

COUNT_ALL = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
MARKER_QUERY = "SELECT ?v WHERE { <urn:hpckg-test:marker> <urn:hpckg-test:generation> ?v }"

# Every point where a build can be paused, in the order a build passes them; the store must switch to the
# new generation at "after-switch" and not before.
KILL_POINTS = ["after-lock", "after-load", "after-validate", "after-close", "after-switch"]
SWITCHED = {"after-switch"}


def marker_file(folder: Path, value: str) -> Path:
    """An extra build input holding one triple that says which build wrote the store."""
    path = folder / f"marker-{value}.nt"
    path.write_text(f'<urn:hpckg-test:marker> <urn:hpckg-test:generation> "{value}" .\n', encoding="utf-8")
    return path


def build(store: Path, *extra: Path, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    completed = run_hpckg("build", "--quiet", "--no-pages", *options, "--store", str(store), *map(str, extra),
                          cwd=curated_root())
    assert completed.returncode == 0, "\n".join(text(completed))
    return completed


def query(store: Path, sparql: str) -> list[str]:
    """The rows of a query's CSV answer (header dropped); fails the test on a non-zero exit."""
    completed = run_hpckg("query", "-e", sparql, "--format", "csv", "--store", str(store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "Traceback" not in err
    return out.splitlines()[1:]


def marker(store: Path) -> str:
    rows = query(store, MARKER_QUERY)
    assert len(rows) == 1, rows
    return rows[0]


def count(store: Path) -> int:
    return int(query(store, COUNT_ALL)[0])


def start_build(store: Path, *extra: Path, pause_at: str | None = None,
                options: tuple[str, ...] = ()) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUTF8": "1"}
    env.pop("HPCKG_TEST_PAUSE_AT", None)
    if pause_at:
        env["HPCKG_TEST_PAUSE_AT"] = pause_at
    return subprocess.Popen([hpckg_executable(), "build", "--quiet", "--no-pages", *options, "--store", str(store),
                             *map(str, extra)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=curated_root())


def read_stderr_until(process: subprocess.Popen, needle: str, timeout: float = 120) -> list[str]:
    """Lines of a running process's stderr up to and including the first one containing `needle`;
    fails if the process ends (or `timeout` passes) first."""
    lines: list[str] = []
    found = threading.Event()

    def reader() -> None:
        for raw in process.stderr:
            lines.append(raw.decode("utf-8", "replace"))
            if needle in lines[-1]:
                found.set()
                return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    thread.join(timeout)
    if not found.is_set():
        process.kill()
        process.wait()
        pytest.fail(f"never saw {needle!r} on stderr (exit {process.returncode}):\n{''.join(lines)}")
    return lines


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait()


def generation_dirs(store: Path) -> list[Path]:
    folder = store.with_name(store.name + ".generations")
    return sorted(folder.iterdir()) if folder.exists() else []


# ---- 1. overlapping builds -----------------------------------------------------------------------------

# The build lock makes each pair one build after the other: six pairs took 20 s and found nothing three do not.
PAIRS = 3


def test_overlapping_builds_both_succeed_one_after_the_other(tmp_path):
    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "ref"))
    expected = count(store)
    for pair in range(PAIRS):
        first, second = marker_file(tmp_path, f"{pair}a"), marker_file(tmp_path, f"{pair}b")
        processes = [start_build(store, first), start_build(store, second)]
        # A reader querying all along: every answer must come from one complete generation.
        while True:
            running = any(p.poll() is None for p in processes)
            assert count(store) == expected, f"pair {pair}: a reader saw an incomplete store"
            if not running:
                break
        results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in processes]
        for code, out, err in results:
            assert code == 0, f"pair {pair}: {out.decode()}\n{err.decode()}"
            assert b"Traceback" not in err
        # Readable and complete: as many triples as one build, and the marker of exactly one of the two.
        assert count(store) == expected, f"pair {pair}"
        assert marker(store) in (f"{pair}a", f"{pair}b")
    assert len(generation_dirs(store)) <= 2


def test_second_build_waits_for_the_lock_holder_and_no_wait_refuses(tmp_path):
    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "A"))
    holder = start_build(store, marker_file(tmp_path, "B"), pause_at="after-validate")
    waiter = None
    try:
        read_stderr_until(holder, "paused at after-validate")
        refused = run_hpckg("build", "--quiet", "--no-pages", "--no-wait", "--store", str(store),
                            str(marker_file(tmp_path, "C")), cwd=curated_root())
        out, err = text(refused)
        assert refused.returncode == 2, out + err
        assert f"pid {holder.pid}" in err, err
        assert "Traceback" not in err
        assert marker(store) == "A"

        waiter = start_build(store, marker_file(tmp_path, "D"))
        lines = read_stderr_until(waiter, f"pid {holder.pid}")
        assert "waiting" in lines[-1], lines
        kill(holder)  # the lock dies with its holder
        assert waiter.wait(timeout=300) == 0, waiter.stderr.read().decode()
        rest = waiter.stderr.read().decode()
        assert f"pid {holder.pid}" not in rest, "the waiting message is printed once"
    finally:
        kill(holder)
        if waiter is not None:
            kill(waiter)
    assert marker(store) == "D"


# ---- 2. killed builds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("point", KILL_POINTS)
def test_killed_build_leaves_a_complete_store(tmp_path, point):
    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "A"))
    expected = count(store)
    process = start_build(store, marker_file(tmp_path, "B"), pause_at=point)
    try:
        read_stderr_until(process, f"paused at {point}")
    finally:
        kill(process)
    assert marker(store) == ("B" if point in SWITCHED else "A")
    assert count(store) == expected
    build(store, marker_file(tmp_path, "C"))
    assert marker(store) == "C"
    assert count(store) == expected
    # The next build cleaned up: the current generation and the previous one, nothing half-written.
    assert len(generation_dirs(store)) == 2, generation_dirs(store)


def test_killed_builds_in_a_row_never_lose_the_store(tmp_path):
    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "A"))
    for point in KILL_POINTS:
        process = start_build(store, marker_file(tmp_path, point), pause_at=point)
        try:
            read_stderr_until(process, f"paused at {point}")
        finally:
            kill(process)
        assert marker(store) in ("A", *KILL_POINTS)
    assert marker(store) == "after-switch"
    build(store, marker_file(tmp_path, "Z"))
    assert marker(store) == "Z"
    assert len(generation_dirs(store)) == 2


def legacy_store(tmp_path: Path, value: str) -> Path:
    """A store in the layout of earlier hpckg versions: the RocksDB folder itself at the store path."""
    source = tmp_path / "source"
    build(source / "store", marker_file(tmp_path, value))
    real = Path(os.path.realpath(source / "store"))
    legacy = tmp_path / "legacy"
    shutil.copytree(real, legacy)
    assert (legacy / "CURRENT").is_file() and not legacy.is_symlink()
    return legacy


def test_an_open_reader_keeps_its_generation_while_a_build_switches(tmp_path):
    from hpckg.store import Store, current_generation

    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "A"))
    reader = Store(store, read_only=True)  # resolves the pointer once, here
    build(store, marker_file(tmp_path, "B"))
    rows = list(reader.query(MARKER_QUERY))
    assert [row["v"].value for row in rows] == ["A"], "the open handle still reads its own generation"
    assert reader.generation_path != current_generation(store)
    assert marker(store) == "B"


def test_old_layout_is_read_and_the_next_build_migrates_it(tmp_path):
    store = legacy_store(tmp_path, "old")
    assert marker(store) == "old"
    checked = run_hpckg("check", "--store", str(store), "data/ttl/systems/kalos.ttl")
    assert checked.returncode in (0, 1), "\n".join(text(checked))
    build(store, marker_file(tmp_path, "new"))
    assert marker(store) == "new"
    assert store.is_symlink()
    build(store, marker_file(tmp_path, "newer"))
    assert marker(store) == "newer"
    assert len(generation_dirs(store)) == 2


def test_an_old_layout_store_put_back_after_a_migration_is_migrated_again(tmp_path):
    store = legacy_store(tmp_path, "old")
    build(store, marker_file(tmp_path, "new"))
    store.unlink()
    shutil.copytree(Path(os.path.realpath(tmp_path / "source" / "store")), store)  # an old-layout copy again
    assert marker(store) == "old"
    build(store, marker_file(tmp_path, "again"))
    assert marker(store) == "again"
    assert store.is_symlink()


@pytest.mark.parametrize("point", ["after-migrate-move", "after-switch"])
def test_killed_migration_leaves_a_complete_store(tmp_path, point):
    store = legacy_store(tmp_path, "old")
    process = start_build(store, marker_file(tmp_path, "new"), pause_at=point)
    try:
        read_stderr_until(process, f"paused at {point}")
    finally:
        kill(process)
    assert marker(store) == ("new" if point == "after-switch" else "old")
    build(store, marker_file(tmp_path, "next"))
    assert marker(store) == "next"
    assert store.is_symlink()


def test_failed_validation_keeps_the_current_generation(tmp_path):
    store = tmp_path / "store"
    build(store, marker_file(tmp_path, "A"))
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix hpc: <https://w3id.org/hpckg/ontology#> .\n"
                   "<https://w3id.org/hpckg/id/claim/x> a hpc:Claim .\n", encoding="utf-8")
    completed = run_hpckg("build", "--quiet", "--no-pages", "--store", str(store), str(bad), cwd=curated_root())
    assert completed.returncode == 1, "\n".join(text(completed))
    assert marker(store) == "A"
    assert len(generation_dirs(store)) == 1


def test_build_refuses_to_replace_a_folder_that_is_not_a_store(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "notes.txt").write_text("not a store\n", encoding="utf-8")
    completed = run_hpckg("build", "--quiet", "--no-pages", "--store", str(store), cwd=curated_root())
    out, err = text(completed)
    assert completed.returncode == 2, out + err
    assert "does not hold an hpckg store" in err and "Traceback" not in err
    assert (store / "notes.txt").read_text(encoding="utf-8") == "not a store\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    build(empty, marker_file(tmp_path, "A"))
    assert marker(empty) == "A"


# ---- 3. corrupt stores ---------------------------------------------------------------------------------


def _sst(folder: Path) -> Path:
    return max(folder.glob("*.sst"), key=lambda p: p.stat().st_size)


def zero_sst(folder: Path) -> None:
    path = _sst(folder)
    path.write_bytes(bytes(path.stat().st_size))


def truncate_sst(folder: Path) -> None:
    path = _sst(folder)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 3)


def scribble_sst(folder: Path) -> None:
    """Overwrite 4 KiB a third of the way into every large table, sizes and footers intact, so the damage
    is found only when a query reads those blocks (not when the store is opened). The tests read rows
    with SELECT *: pyoxigraph 0.5.13 answers COUNT(*) over such a store by collecting the read error
    again and again until an allocation fails and the process aborts, which hpckg cannot catch."""
    for path in folder.glob("*.sst"):
        if path.stat().st_size >= 64 * 1024:
            data = bytearray(path.read_bytes())
            third = len(data) // 3
            data[third:third + 4096] = bytes([0xA5]) * 4096
            path.write_bytes(bytes(data))


def empty_current(folder: Path) -> None:
    (folder / "CURRENT").write_bytes(b"")


CORRUPTIONS = [zero_sst, truncate_sst, scribble_sst, empty_current]


@pytest.fixture()
def store_copy(built_store, tmp_path) -> Path:
    """A tmp copy of the session's built store (its folder, the generations beside it and its pointer)."""
    copy = tmp_path / "copy"
    shutil.copytree(built_store.parent, copy, symlinks=True)
    return copy / built_store.name


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_corrupt_store_gives_a_clear_error(store_copy, corrupt):
    corrupt(Path(os.path.realpath(store_copy)))
    for command in (["query", "-e", "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }", "--format", "csv"],
                    ["check", "data/ttl/systems/kalos.ttl"]):
        completed = run_hpckg(*command, "--store", str(store_copy))
        out, err = text(completed)
        assert completed.returncode == 2, f"{command[0]}: {err}"
        assert "Traceback" not in err, err
        assert str(store_copy) in err, err
        assert "run `hpckg build` to rebuild it" in err, err


@pytest.mark.parametrize("corrupt", [zero_sst, truncate_sst, empty_current], ids=lambda f: f.__name__)
def test_every_reading_command_reports_a_store_damaged_at_open(store_copy, corrupt, tmp_path):
    corrupt(Path(os.path.realpath(store_copy)))
    for command in (["export", "--format", "nt"], ["page", "kalos"]):
        completed = run_hpckg(*command, "--store", str(store_copy))
        out, err = text(completed)
        assert completed.returncode == 2, f"{command[0]}: {err}"
        assert "Traceback" not in err and "run `hpckg build` to rebuild it" in err, err


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_build_replaces_a_corrupt_store(store_copy, corrupt, tmp_path):
    corrupt(Path(os.path.realpath(store_copy)))
    build(store_copy, marker_file(tmp_path, "fixed"))
    assert marker(store_copy) == "fixed"

