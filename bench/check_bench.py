"""Time `hpckg check` of one contribution against a project's built store (docs/benchmarks.md, "Check of one
contribution against the built store").

    python bench/check_bench.py PROJECT FILE [--runs 3] [--full]

PROJECT is a project folder whose store `hpckg build` has made (such as a copy of a checkout after `make
run`); FILE the contribution. The build writes the index of the store's system names the check compares a
new system with (hpckg.systemnames); --without-index removes it first, so the first run pays the scan of the
store that a check does when the index is missing. --full also times `hpckg check --full --with-imports` (the graph read
from the files, imports included, in memory: minutes and gigabytes on a big store). Prints one line per run:
wall seconds, peak RSS and the review's exit code.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path


def timed(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS of the child in MB (as far as getrusage tells) and its exit code."""
    started = time.perf_counter()
    completed = subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak, completed.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("file", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--without-index", action="store_true",
                        help="remove the index of system names the build wrote, so the first check scans the store")
    args = parser.parse_args()
    hpckg = str(Path(sys.executable).with_name("hpckg"))
    if args.without_index:
        shutil.rmtree(args.project / ".hpckg" / "cache" / "check", ignore_errors=True)
    for run in range(args.runs):
        seconds, peak, code = timed([hpckg, "check", str(args.file.resolve())], args.project)
        first = "first after the build" + (" (index removed: names scanned)" if args.without_index else "")
        label = first if run == 0 else "later"
        print(f"hpckg check FILE, {label}: {seconds:.2f} s, peak RSS <= {peak:.0f} MB, exit {code}")
    if args.full:
        seconds, peak, code = timed([hpckg, "check", "--full", "--with-imports", str(args.file.resolve())],
                                    args.project)
        print(f"hpckg check --full --with-imports FILE: {seconds:.2f} s, peak RSS <= {peak:.0f} MB, exit {code}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
