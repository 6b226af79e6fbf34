"""Benchmark the full import and build: every configured public dataset (63 TOP500 editions, Epoch AI's ML
hardware, GPU clusters and data centers) imported with `hpckg import --all`, then `hpckg build --no-import`,
each on a fresh copy of the project, timed with /usr/bin/time -v (wall time, peak RSS). Beside them, in the
same run, the anchors the issue asks for: a bare pyoxigraph bulk load of the same files into an on-disk
store (the build's floor) and the build's own validation time (from its log), so that "the build within 2x
bulk load + validation" is a ratio measured here. Writes the `top500-import` section of docs/benchmarks.md.

    python bench/top500_bench.py                   # ../shared/data, build timeout 1800 s
    python bench/top500_bench.py --data DIR --timeout 900 --no-write
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

# The build in-process with its debug log (each rule and shape timed), as `hpckg build` runs it.
BUILD = """
import logging, sys, time
logging.basicConfig(level=logging.DEBUG, format="%(created).3f %(name)s %(message)s", stream=sys.stdout)
for name in ("rdflib", "pyshacl", "httpx"):
    logging.getLogger(name).setLevel(logging.WARNING)
from hpckg import build
from hpckg.project import discover
started = time.time()
def progress(message):
    print(f"{time.time():.3f} progress {message}", flush=True)
summary = build.build(discover(), store_path=".hpckg/store", progress=progress)
print(summary.to_text())
"""
# The floor: the same files bulk-loaded into an empty on-disk store, nothing else.
BULK = """
import sys, time
from pathlib import Path
import pyoxigraph as ox
store = ox.Store(sys.argv[1])
started = time.time()
for path in sorted(Path(".hpckg/graphs").rglob("*.nq")):
    if not path.name.endswith(".part.nq"):
        store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
for folder in ("ontology", "shapes", "data"):
    for path in sorted(Path(folder).rglob("*.ttl")):
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE, to_graph=ox.NamedNode(path.resolve().as_uri()))
store.flush()
print(f"bulk {len(store)} quads {time.time() - started:.2f}")
"""


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


def phases(log: str) -> dict[str, float]:
    """Seconds per build phase from the progress lines' timestamps."""
    marks = [(float(m.group(1)), m.group(2)) for m in re.finditer(r"^([\d.]+) progress (.*)$", log, re.MULTILINE)]
    found: dict[str, float] = {}

    def first(prefix: str) -> float | None:
        return next((t for t, text in marks if text.startswith(prefix)), None)

    start = marks[0][0] if marks else 0.0
    linked, rules_end = first("linked"), None
    rule_marks = [t for t, text in marks if text.startswith("rule ")]
    rules_end = rule_marks[-1] if rule_marks else None
    validating, writing = first("validating"), first("writing")
    if linked:
        found["load"] = linked - start
    if linked and rules_end:
        found["rules"] = rules_end - linked
    if rules_end and validating:
        found["summary"] = validating - rules_end
    if validating and writing:
        found["validate"] = writing - validating
    slowest = sorted(((float(m.group(2)), m.group(1)) for m in re.finditer(
        r"(shape [\w-]+|rule [\w-]+): \d+ (?:results|triples) in ([\d.]+) s", log)), reverse=True)[:4]
    found["slowest"] = slowest  # type: ignore[assignment]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--no-write", action="store_true", help="print, do not write docs/benchmarks.md")
    args = parser.parse_args()
    data = args.data.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        for folder in ("ontology", "shapes", "queries", "data"):
            shutil.copytree(ROOT / folder, project / folder)
        (project / "hpckg.toml").write_text(
            "[sources]\n"
            f'top500 = ["{data / "top500"}"]\n'
            f'epoch-hardware = ["{data / "epoch-ai" / "ml_hardware.csv"}"]\n'
            f'epoch-clusters = ["{data / "epoch-ai" / "gpu_clusters.csv"}"]\n'
            f'epoch-datacenters = ["{data / "epoch-ai" / "data_centers.csv"}", '
            f'"{data / "epoch-ai" / "data_center_timelines.csv"}"]\n', encoding="utf-8")
        imported = timed([str(HPCKG), "import", "--all", "--format", "json"], project, args.timeout)
        quads = sum(int(n) for n in re.findall(r'"quads": (\d+)', imported["out"]))
        graphs = len(re.findall(r'"status": "imported"', imported["out"]))
        bulk = timed([sys.executable, "-c", BULK, str(Path(tmp) / "bulk-store")], project, args.timeout)
        bulk_seconds = float(re.search(r"bulk \d+ quads ([\d.]+)", bulk["out"]).group(1)) if bulk["finished"] else None
        built = timed([sys.executable, "-c", BUILD], project, args.timeout)
        summary = [line for line in built["out"].splitlines()
                   if re.match(r"(triples|systems|claims by tier|violations|files):", line)]
        times = phases(built["out"])

    def figure(run: dict) -> str:
        if not run["finished"] and run.get("returncode") is None:
            return f"did not finish in {run['seconds']:.0f} s"
        rss = f", peak RSS {run['rss_mb']:,.0f} MB" if run["rss_mb"] else ""
        state = "" if run["finished"] else f" (exit {run['returncode']})"
        return f"{run['seconds']:.1f} s{rss}{state}"

    anchor = (bulk_seconds or 0) + times.get("validate", 0)
    ratio = f"{built['seconds'] / anchor:.2f}x" if built["finished"] and anchor else "n/a"
    slowest = ", ".join(f"{name} {seconds:.1f} s" for seconds, name in times.get("slowest", []))
    text = "\n".join([
        "## Full import and build (bench/top500_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, shared "
        f"and busy): every configured source in `{data.name}/` ({graphs} files imported, {quads:,} quads).",
        "",
        "| step | wall time, peak RSS |",
        "|---|---|",
        f"| `hpckg import --all` (63 TOP500 editions, Epoch hardware, clusters, data centers) | {figure(imported)} |",
        f"| anchor: bare pyoxigraph bulk load of the same files into an on-disk store | {figure(bulk)} "
        f"(load {bulk_seconds or 0:.1f} s) |",
        f"| `hpckg build` (load, links, rules, validation, write) | {figure(built)} |",
        "",
        "Build phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items() if k != "slowest") + ".",
        f"Slowest steps: {slowest}.",
        f"Build / (bulk load + validation) = {ratio} (goal: within 2x).",
        "",
        *(f"    {line}" for line in summary),
    ])
    print(text)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "top500-import", text)


if __name__ == "__main__":
    main()
