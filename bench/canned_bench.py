"""Every canned query at its default parameters on a built store, in process, as `hpckg query NAME` runs it:
median wall time of a few runs after one warm-up, and the rows. Issue 38's goal is under 1 s each on the
full import (1×). Writes the `canned-queries` section of docs/benchmarks.md.

The digest is the SHA-256 of the ordered rows (each term in N-Triples form): a query rewritten for speed must
keep it on the same store.

    python bench/canned_bench.py --store .hpckg/store            # after `make run` or `hpckg build`
    python bench/canned_bench.py --store .hpckg/store --runs 1 --only top500-editions rmax-changes --no-write
    python bench/canned_bench.py --store .hpckg/store --limit      # and DuckDB's time (bench/duckdb_limit.py)
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

from duckdb_limit import FlatTables, describe, limit_queries
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
    parser.add_argument("--limit", action="store_true",
                        help="also time DuckDB over flat tables of the same rows, where bench/limits/NAME.sql exists "
                             "(pip install -e '.[bench]')")
    args = parser.parse_args()

    project = projects.load(ROOT, "bench")
    store = Store(current_generation(args.store), read_only=True)
    quads = store.triple_count()
    load_before = os.getloadavg()[0]
    speed = machine_speed()
    limits = limit_queries() if args.limit else {}
    flat = FlatTables(store) if limits else None
    if flat is not None:
        print(f"flat tables copied in {flat.copy_seconds:.1f} s: " + ", ".join(describe(flat)), flush=True)
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
        limit = ""
        if flat is not None and query.name in limits:
            limit_seconds, limit_rows = flat.timed(limits[query.name], args.runs)
            if limit_rows != rows:  # a different question: its time would say nothing
                raise SystemExit(f"bench/limits/{query.name}.sql gives {limit_rows:,} rows, the query {rows:,}")
            limit = f"{limit_seconds * 1000:,.1f}"
        results.append((query.name, statistics.median(times), rows, answer, limit))
        print(f"{query.name}: {statistics.median(times) * 1000:,.1f} ms, {rows:,} rows, digest {answer}"
              + (f", DuckDB {limit} ms" if limit else ""), flush=True)

    table = Table("query", "median ms", "rows", "digest", "DuckDB ms", "under 1 s")
    for name, seconds, rows, answer, limit in results:
        table.add_row(name, f"{seconds * 1000:,.1f}", f"{rows:,}", answer, limit,
                      "yes" if seconds < GOAL_SECONDS else "no")
    Console().print(table)
    over = [name for name, seconds, *_ in results if seconds >= GOAL_SECONDS]
    lines = [
        "## Canned queries on the full import (bench/canned_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, load "
        f"average {load_before:.2f} at the start; {speed}): every canned query at its default parameters, in "
        f"process on the on-disk store ({quads:,} quads), median of {args.runs} runs after one warm-up. Rerun: "
        "`python bench/canned_bench.py --store .hpckg/store` after `make run`.",
        "",
        "The limit is DuckDB's median over flat tables of the same facts (bench/duckdb_limit.py, the SQL in "
        "bench/limits/, the same number of rows checked; copying the tables is not timed)"
        + (f": `--limit`, tables copied in {flat.copy_seconds:.0f} s ({', '.join(describe(flat))} rows)."
           if flat is not None else ": not run this time (`--limit`)."),
        "",
        "| query | median ms | rows | digest | limit (DuckDB ms) |",
        "|---|---:|---:|---|---:|",
        *(f"| `{name}` | {seconds * 1000:,.1f} | {rows:,} | `{answer}` | {limit} |"
          for name, seconds, rows, answer, limit in results),
        "",
        f"{len(results) - len(over)} of {len(results)} under 1 s; over it: "
        + (", ".join(f"`{name}`" for name in over) or "none") + ".",
    ]
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "canned-queries", "\n".join(lines))


if __name__ == "__main__":
    main()
