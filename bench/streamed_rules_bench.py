"""The rules an embedded store's build streams (hpckg.rules.STREAMED_RULES) against their CONSTRUCTs on a built
store: each way's wall time and the peak RSS of a process that does only that, and the same triples counted
both ways (the bench stops otherwise). Issue 38: the build's peak memory must not grow with the data.

Each run is a fresh Python process (`--one RULE WAY`), so its peak RSS is that rule's alone; the store is
opened read-only, so a build's store serves as it is (later rules' triples included, as the parity tests
read it).

    python bench/streamed_rules_bench.py --store .hpckg/store                 # after `make run`
    python bench/streamed_rules_bench.py --store .hpckg/store --no-write --only 10-truthy
    python bench/streamed_rules_bench.py --store /work/scale/s10/project/.hpckg/store --label 10x
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sections import machine_speed, replace_section

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from hpckg import project as projects  # noqa: E402
from hpckg.rules import STREAMED_RULES  # noqa: E402
from hpckg.store import Store  # noqa: E402


def one(store_path: Path, rule: str, way: str) -> dict:
    """Run one rule one way in this process; its triples, seconds and this process's peak RSS."""
    store = Store(store_path, read_only=True)
    started = time.perf_counter()
    if way == "streamed":
        triples = sum(1 for _ in STREAMED_RULES[rule](store))  # a triple two entities share may come twice
    elif way == "streamed-distinct":  # the check, in a process of its own: the set would weigh on the peak
        triples = len(set(STREAMED_RULES[rule](store)))
    else:
        text = (projects.discover(explicit=str(ROOT)).rules_dir / f"{rule}.rq").read_text(encoding="utf-8")
        triples = len(set(store.query(text)))  # distinct, as the streamed rules give them
    seconds = time.perf_counter() - started
    return {"triples": triples, "seconds": round(seconds, 2),
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def measured(store_path: Path, rule: str, way: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--store", str(store_path), "--one", rule, way],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a built store (its folder)")
    parser.add_argument("--only", nargs="*", help="these rules only")
    parser.add_argument("--label", default="1×", help="the size of the store, for the section (1×, 10×)")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave docs/benchmarks.md alone")
    parser.add_argument("--one", nargs=2, metavar=("RULE", "WAY"), help=argparse.SUPPRESS)  # a child's task
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.store, *args.one)))
        return

    speed = machine_speed()
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    quads = len(Store(args.store, read_only=True)._store)
    rows = []
    for rule in args.only or sorted(STREAMED_RULES):
        query, streamed = measured(args.store, rule, "construct"), measured(args.store, rule, "streamed")
        distinct = measured(args.store, rule, "streamed-distinct")["triples"]
        if query["triples"] != distinct:
            raise SystemExit(f"{rule}: the CONSTRUCT gives {query['triples']} triples, the streamed rule {distinct}")
        rows.append((rule, query, streamed))
        print(f"{rule}: CONSTRUCT {query['seconds']} s {query['peak_mb']} MB, streamed {streamed['seconds']} s "
              f"{streamed['peak_mb']} MB, {query['triples']:,} triples", flush=True)

    table = Table(title=f"streamed rules on {args.store} ({quads:,} quads)")
    for column in ("rule", "triples", "CONSTRUCT s", "CONSTRUCT peak MB", "streamed s", "streamed peak MB"):
        table.add_column(column)
    for rule, query, streamed in rows:
        table.add_row(rule, f"{query['triples']:,}", str(query["seconds"]), f"{query['peak_mb']:,}",
                      str(streamed["seconds"]), f"{streamed['peak_mb']:,}")
    Console().print(table)
    if args.no_write:
        return
    lines = [f"## Streamed rules against their CONSTRUCTs, {args.label} (bench/streamed_rules_bench.py)", "",
             f"Measured {started} on this machine (2 CPUs, load average {load:.2f} at the start; {speed}): each "
             f"rule of `hpckg.rules.STREAMED_RULES` run both ways on a built on-disk store ({quads:,} quads), "
             "each way in a fresh process, so the peak RSS is that rule's alone (the store opened read-only, "
             "the process's own 40 MB included); the distinct triples must be as many both ways (counted in a third "
             "process, the set of them left out of the peaks). "
             f"Rerun: `python bench/streamed_rules_bench.py --store STORE --label {args.label}`.", "",
             "| rule | triples | CONSTRUCT | CONSTRUCT peak RSS | streamed | streamed peak RSS |",
             "|---|---:|---:|---:|---:|---:|"]
    for rule, query, streamed in rows:
        lines.append(f"| `{rule}` | {query['triples']:,} | {query['seconds']:.1f} s | {query['peak_mb']:,} MB | "
                     f"{streamed['seconds']:.1f} s | {streamed['peak_mb']:,} MB |")
    name = "streamed-rules" if args.label == "1×" else f"streamed-rules-{args.label.rstrip('×x')}x"
    replace_section(ROOT / "docs" / "benchmarks.md", name, "\n".join(lines))


if __name__ == "__main__":
    main()
