"""Every canned query at its default parameters on a built store, in process, as `hpckg query NAME` runs it:
median wall time of a few runs after one warm-up, and the rows. Issue 38's goal is under 1 s each on the
full import (1×). Writes the `canned-queries` section of docs/benchmarks.md.

The digest is the SHA-256 of the ordered rows (each term in N-Triples form): a query rewritten for speed must
keep it on the same store.

    python bench/canned_bench.py --store .hpckg/store            # after `make run` or `hpckg build`
    python bench/canned_bench.py --store .hpckg/store --runs 1 --only top500-editions rmax-changes --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sections import machine_speed, replace_section

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from hpckg import project as projects  # noqa: E402
from hpckg.query import canned_queries  # noqa: E402
from hpckg.store import Store, current_generation  # noqa: E402

GOAL_SECONDS = 1.0


def timed(store: Store, text: str) -> tuple[float, int]:
    started = time.perf_counter()
    rows = sum(1 for _ in store.query(text))
    return time.perf_counter() - started, rows


def digest(store: Store, text: str) -> str:
    """The first 12 hex digits of the SHA-256 of the answer's ordered rows (unbound as an empty field)."""
    result = store.query(text)
    names = [variable.value for variable in result.variables]
    hashed = hashlib.sha256("\t".join(names).encode())
    for solution in result:
        hashed.update(("\n" + "\t".join("" if solution[n] is None else str(solution[n]) for n in names)).encode())
    return hashed.hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a built store (its folder, as hpckg build wrote it)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per query after one warm-up (default 3)")
    parser.add_argument("--only", nargs="*", help="these canned queries only")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave docs/benchmarks.md alone")
    args = parser.parse_args()

    project = projects.load(ROOT, "bench")
    store = Store(current_generation(args.store), read_only=True)
    quads = store.triple_count()
    load_before = os.getloadavg()[0]
    speed = machine_speed()
    results = []
    for query in canned_queries(project):
        if args.only and query.name not in args.only:
            continue
        text = query.bind({})
        answer = digest(store, text)  # also the warm-up: the store's caches, as a server that has answered once
        times, rows = [], 0
        for _ in range(args.runs):
            seconds, rows = timed(store, text)
            times.append(seconds)
        results.append((query.name, statistics.median(times), rows, answer))
        print(f"{query.name}: {statistics.median(times) * 1000:,.1f} ms, {rows:,} rows, digest {answer}", flush=True)

    table = Table("query", "median ms", "rows", "digest", "under 1 s")
    for name, seconds, rows, answer in results:
        table.add_row(name, f"{seconds * 1000:,.1f}", f"{rows:,}", answer, "yes" if seconds < GOAL_SECONDS else "no")
    Console().print(table)
    over = [name for name, seconds, _, _ in results if seconds >= GOAL_SECONDS]
    lines = [
        "## Canned queries on the full import (bench/canned_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, load "
        f"average {load_before:.2f} at the start; {speed}): every canned query at its default parameters, in "
        f"process on the on-disk store ({quads:,} quads), median of {args.runs} runs after one warm-up. Rerun: "
        "`python bench/canned_bench.py --store .hpckg/store` after `make run`.",
        "",
        "| query | median ms | rows | digest |",
        "|---|---:|---:|---|",
        *(f"| `{name}` | {seconds * 1000:,.1f} | {rows:,} | `{answer}` |" for name, seconds, rows, answer in results),
        "",
        f"{len(results) - len(over)} of {len(results)} under 1 s; over it: "
        + (", ".join(f"`{name}`" for name in over) or "none") + ".",
    ]
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "canned-queries", "\n".join(lines))


if __name__ == "__main__":
    main()
