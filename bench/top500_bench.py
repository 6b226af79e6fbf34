"""Benchmark the TOP500 importer on every edition: `hpckg import top500 <folder>` then `hpckg build`, each
timed on a fresh copy of the project with /usr/bin/time -v (wall time, peak RSS), and the quads imported.
Writes the `top500-import` section of docs/benchmarks.md.

    python bench/top500_bench.py                       # ../shared/data/top500, build timeout 1800 s
    python bench/top500_bench.py --data DIR --timeout 600
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sections import replace_section

ROOT = Path(__file__).resolve().parent.parent
HPCKG = Path(sys.executable).parent / "hpckg"


def timed(args: list[str], cwd: Path, timeout: float) -> dict:
    """Run under /usr/bin/time -v; wall seconds, peak RSS in MB, output, and whether it finished."""
    command = (["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []) + args
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"finished": False, "seconds": timeout, "rss_mb": None, "out": "", "err": ""}
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    seconds = None
    if wall:
        hours, minutes, secs = wall.groups()
        seconds = int(hours or 0) * 3600 + int(minutes) * 60 + float(secs)
    return {"finished": done.returncode == 0, "seconds": seconds, "rss_mb": int(rss.group(1)) / 1024 if rss else None,
            "out": done.stdout, "err": done.stderr, "returncode": done.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "top500")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--no-write", action="store_true", help="print, do not write docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        for folder in ("ontology", "shapes", "queries", "data"):
            shutil.copytree(ROOT / folder, project / folder)
        imported = timed([str(HPCKG), "import", "top500", str(args.data)], project, args.timeout)
        quads = sum(int(m.replace(",", "")) for m in re.findall(r"\(([\d,]+) quads", imported["out"]))
        graphs = len(re.findall(r"^imported ", imported["out"], re.MULTILINE))
        built = timed([str(HPCKG), "build"], project, args.timeout)
        summary = [line for line in built["out"].splitlines() if re.search(r"triples|quads|violations|graphs", line)]

    def figure(run: dict) -> str:
        if not run["finished"] and run.get("returncode") is None:
            return f"did not finish in {run['seconds']:.0f} s"
        rss = f", peak RSS {run['rss_mb']:,.0f} MB" if run["rss_mb"] else ""
        state = "" if run["finished"] else f" (exit {run['returncode']})"
        return f"{run['seconds']:.1f} s{rss}{state}"

    text = "\n".join([
        "## TOP500 import (bench/top500_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, shared "
        f"and busy): every edition in `{args.data.name}/` ({graphs} graphs, {quads:,} quads imported).",
        "",
        "| step | wall time, peak RSS |",
        "|---|---|",
        f"| `hpckg import top500 {args.data.name}` | {figure(imported)} |",
        f"| `hpckg build` (load, rules, validation) | {figure(built)} |",
        "",
        *(f"    {line}" for line in summary),
    ])
    print(text)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "top500-import", text)


if __name__ == "__main__":
    main()
