"""Time each validation rule of the fast engine on built on-disk stores: where a build's validate step goes.

    python bench/validate_rules_bench.py --store "full import=/tmp/full/.hpckg/store" \\
        --store "10x=/work/scale10/s10/project/.hpckg/store" --json runs.json --write docs/benchmarks.md

Each store is opened read-only in its own process (so each gets its own peak RSS) and every query
hpckg.validate.sparql_engine compiles from shapes/ (or --shapes) runs on it once, in order, as the build's
validate step runs them. The table lists each rule's seconds per store (a rule may compile to several
queries), the total, the growth exponent between the smallest and largest store (1.00 = linear) and the peak
RSS. With --memory each rule also runs alone in a process of its own on each store, which gives its own peak
RSS (the build's validate step holds at most one rule's queries at a time, and hands what each freed back to
the system before the next, as this script does: its peak is the largest of these over what the build itself
holds). A store may be given as LABEL=PATH, which the table names it by. --write replaces the
validate-rules-bench section of that Markdown file; --from-json rewrites it from a --json file without running.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from hpckg.memory import release_freed_memory
from hpckg.project import discover
from hpckg.store import Store
from hpckg.validate.shapes import load_shapes
from hpckg.validate.sparql_engine import compile_shapes, run_check

from sections import replace_section  # bench/sections.py, beside this script


def time_rules(label: str, store_path: Path, shapes_dir: Path | None, only: str | None = None) -> dict:
    store = Store(store_path, read_only=True)
    rules: dict[str, float] = {}
    found = 0
    started = time.perf_counter()
    for check in compile_shapes(load_shapes(shapes_dir or discover().shapes_dir)):
        if only is not None and check.rule != only:
            continue
        began = time.perf_counter()
        found += len(run_check(store, check))
        release_freed_memory()  # as the build's validate step does after each check
        rules[check.rule] = rules.get(check.rule, 0.0) + time.perf_counter() - began
    return {"store": label, "triples": store.triple_count(), "seconds": time.perf_counter() - started,
            "results": found, "rules": rules, "load": os.getloadavg()[0],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def exponent(small: tuple[int, float], large: tuple[int, float]) -> float | None:
    (n0, t0), (n1, t1) = small, large
    if n1 <= n0 or t0 <= 0 or t1 <= 0:
        return None
    return math.log(t1 / t0) / math.log(n1 / n0)


def table(runs: list[dict]) -> str:
    runs = sorted(runs, key=lambda r: r["triples"])
    largest = runs[-1]
    head = "| rule | " + " | ".join(f"{r['triples'] / 1e6:.1f} M triples" for r in runs) + " | exponent |"
    lines = [head, "|---" + "|---:" * (len(runs) + 1) + "|"]

    measured = all("rule_peaks" in r for r in runs)
    if measured:
        head += " " + " | ".join(f"alone, peak RSS at {r['triples'] / 1e6:.1f} M" for r in runs) + " |"
        lines = [head, "|---" + "|---:" * (2 * len(runs) + 1) + "|"]
    blank = " |" * len(runs) if measured else ""

    def row(name: str, values: list[float], peaks: list[float] | None = None) -> str:
        growth = exponent((runs[0]["triples"], values[0]), (largest["triples"], values[-1]))
        cells = " | ".join(f"{v:,.1f} s" for v in values)
        memory = " " + " | ".join(f"{p:,.0f} MB" for p in peaks) + " |" if peaks else blank
        return (f"| {name} | {cells} | {growth:.2f} |" if growth is not None else f"| {name} | {cells} | |") + memory

    for rule in sorted(largest["rules"], key=largest["rules"].get, reverse=True):
        lines.append(row(f"`{rule}`", [r["rules"].get(rule, 0.0) for r in runs],
                         [r["rule_peaks"].get(rule, 0.0) for r in runs] if measured else None))
    lines.append(row("**all rules**", [r["seconds"] for r in runs]))
    lines.append("| peak RSS | " + " | ".join(f"{r['peak_rss_mb']:,.0f} MB" for r in runs) + " | |" + blank)
    lines.append("| load average at the end | " + " | ".join(f"{r['load']:.2f}" for r in runs) + " | |" + blank)
    lines.append("| results | " + " | ".join(f"{r['results']:,}" for r in runs) + " | |" + blank)
    return "\n".join(lines)


def write(path: Path, runs: list[dict]) -> None:
    body = (f"## Validation rule by rule on on-disk stores (bench/validate_rules_bench.py)\n\n"
            f"Written by `python bench/validate_rules_bench.py --store ... --write docs/benchmarks.md` on "
            f"{time.strftime('%Y-%m-%d')}; do not edit by hand. Each store read-only in its own process, every "
            "query the fast engine compiles from shapes/ run once, rules sorted by their time on the largest "
            "store; with --memory each rule again alone in a process of its own for its peak RSS (the process's "
            "own ~60 MB with the store open included). Stores: "
            + "; ".join(f"`{r['store']}`" for r in sorted(runs, key=lambda r: r["triples"])) + ".\n\n" + table(runs))
    replace_section(path, "validate-rules-bench", body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", action="append", default=[], help="a built store, PATH or LABEL=PATH (repeatable)")
    parser.add_argument("--shapes", type=Path, help="shapes directory (default: the project's shapes/)")
    parser.add_argument("--write", type=Path, help="update the validate-rules-bench section of this file")
    parser.add_argument("--json", type=Path, help="also save the raw figures here")
    parser.add_argument("--from-json", type=Path, help="write the section from a --json file of an earlier run")
    parser.add_argument("--memory", action="store_true", help="also run each rule alone for its own peak RSS")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child process: one store
    parser.add_argument("--rule", help=argparse.SUPPRESS)  # with --one: only this rule
    options = parser.parse_args()
    if options.one:
        label, _, path = options.store[0].rpartition("=")
        print(json.dumps(time_rules(label or path, Path(path), options.shapes, options.rule)))
        return
    if options.from_json:
        runs = json.loads(options.from_json.read_text())
        print(table(runs))
        if options.write:
            write(options.write, runs)
        return
    if not options.store:
        parser.error("give at least one --store")
    runs = []
    for store in options.store:
        command = [sys.executable, __file__, "--one", "--store", store]
        if options.shapes:
            command += ["--shapes", str(options.shapes)]
        run = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        print(f"{store}: {run['triples']:,} triples, {run['seconds']:.1f} s, {run['peak_rss_mb']:,.0f} MB",
              flush=True)
        if options.memory:
            run["rule_peaks"] = {}
            for rule in run["rules"]:
                alone = json.loads(subprocess.run([*command, "--rule", rule], check=True, capture_output=True,
                                                  text=True).stdout)
                run["rule_peaks"][rule] = alone["peak_rss_mb"]
                print(f"  {rule}: {alone['seconds']:.1f} s, {alone['peak_rss_mb']:,.0f} MB", flush=True)
        runs.append(run)
    print(table(runs))
    if options.json:
        options.json.write_text(json.dumps(runs, indent=1))
    if options.write:
        write(options.write, runs)


if __name__ == "__main__":
    main()
