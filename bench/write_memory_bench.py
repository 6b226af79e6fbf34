"""What writing a rule's triples into an on-disk store costs in memory: `Store.load_quads_in_batches` flushing
RocksDB's memory tables every 200k quads (as a build does) against never flushing until the end (as before).
Issue 38: the build's peak memory must not grow with the data; a rule that writes millions of triples (rule 14
writes 851k at 1x the real import, 8.5 M at 10x) held them all in memory tables.

Each run is a fresh Python process writing synthetic quads (a new subject each, one predicate, a short literal,
one named graph, as a rule's output) into a new store in a temporary folder on this disk, so the peak RSS is the
writing's alone.

    python bench/write_memory_bench.py                       # 300k, 1.2 M and 3 M quads, both ways
    python bench/write_memory_bench.py --quads 600000 --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sections import machine_speed, replace_section

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import pyoxigraph as ox  # noqa: E402

from hpckg.store import Store  # noqa: E402

NEVER = 10**12  # flush_every for "only at the end"


def one(quads: int, flush_every: int) -> dict:
    """Write `quads` quads into a new on-disk store in this process; seconds and peak RSS."""
    with tempfile.TemporaryDirectory(dir=ROOT) as folder:
        store = Store(Path(folder) / "store")
        graph = ox.NamedNode("urn:derived")
        written = (ox.Quad(ox.NamedNode(f"urn:s{n}"), ox.NamedNode("urn:p"), ox.Literal(f"value {n}"), graph)
                   for n in range(quads))
        started = time.perf_counter()
        added = store.load_quads_in_batches(written, flush_every=flush_every)
        seconds = time.perf_counter() - started
        assert added == store.triple_count() == quads
        store.close()
    return {"seconds": round(seconds, 2), "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def measured(quads: int, flush_every: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", str(quads), str(flush_every)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quads", type=int, nargs="*", default=[300_000, 1_200_000, 3_000_000])
    parser.add_argument("--no-write", action="store_true", help="print the table, leave docs/benchmarks.md alone")
    parser.add_argument("--one", nargs=2, type=int, metavar=("QUADS", "FLUSH_EVERY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return

    speed = machine_speed()
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    rows = []
    for quads in args.quads:
        flushed, unflushed = measured(quads, 200_000), measured(quads, NEVER)
        rows.append((quads, flushed, unflushed))
        print(f"{quads:,}: flushed {flushed}, at the end only {unflushed}", flush=True)

    table = Table(title="writing a rule's quads into an on-disk store")
    for column in ("quads", "flushed every 200k: s", "peak MB", "at the end only: s", "peak MB"):
        table.add_column(column)
    for quads, flushed, unflushed in rows:
        table.add_row(f"{quads:,}", str(flushed["seconds"]), f"{flushed['peak_mb']:,}", str(unflushed["seconds"]),
                      f"{unflushed['peak_mb']:,}")
    Console().print(table)
    if args.no_write:
        return
    lines = ["## Writing a rule's triples to disk (bench/write_memory_bench.py)", "",
             f"Measured {started} on this machine (2 CPUs, load average {load:.2f} at the start; {speed}): "
             "`Store.load_quads_in_batches` (batches of 20k, one transaction each) writing synthetic quads into a "
             "new on-disk store, flushing RocksDB's memory tables every 200k quads (what a build does) or only at "
             "the end, each in a fresh process (peak RSS of the whole process, Python's own ~40 MB included). "
             "Rerun: `python bench/write_memory_bench.py`.", "",
             "| quads | flushed every 200k | peak RSS | flushed at the end only | peak RSS |",
             "|---:|---:|---:|---:|---:|"]
    for quads, flushed, unflushed in rows:
        lines.append(f"| {quads:,} | {flushed['seconds']:.1f} s | {flushed['peak_mb']:,} MB | "
                     f"{unflushed['seconds']:.1f} s | {unflushed['peak_mb']:,} MB |")
    replace_section(ROOT / "docs" / "benchmarks.md", "write-memory", "\n".join(lines))


if __name__ == "__main__":
    main()
