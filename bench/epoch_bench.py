"""Benchmark the Epoch AI importers and the rules on their output.

1. On a fresh copy of the project: `hpckg import epoch-hardware`, `epoch-clusters`, `epoch-datacenters`
   (each timed with /usr/bin/time -v: wall time, peak RSS; quads and reported cells counted), then
   `hpckg build` and `hpckg validate --format json` (violations and warnings counted apart).
2. Rule scaling: the curated data plus the three imported graphs, the imported graphs replicated 1×, 4× and
   16× (every IRI under https://w3id.org/hpckg/id/ gets a "-rN" suffix per copy, countries excepted, as
   bench/rules_bench.py does), each rule timed as the build runs it. Linear rules grow 4× per step.

Writes the `epoch-import` section of docs/benchmarks.md.

    python bench/epoch_bench.py                 # ../shared/data/epoch-ai, copies 1 4 16
    python bench/epoch_bench.py --copies 1 4 --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
from top500_bench import timed  # the same /usr/bin/time -v wrapper

from sections import replace_section  # bench/sections.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
HPCKG = Path(sys.executable).parent / "hpckg"
IMPORTS = (("epoch-hardware", ["ml_hardware.csv"]), ("epoch-clusters", ["gpu_clusters.csv"]),
           ("epoch-datacenters", ["data_centers.csv", "data_center_timelines.csv"]))


def figure(run: dict) -> str:
    if run["seconds"] is None:
        return "not measured"
    rss = f", peak RSS {run['rss_mb']:,.0f} MB" if run["rss_mb"] else ""
    return f"{run['seconds']:.2f} s{rss}" + ("" if run["finished"] else f" (exit {run.get('returncode')})")


def rule_scaling(project: Path, copies: int) -> dict[str, object]:
    """Per-rule seconds on the curated data plus the imported graphs replicated `copies` times."""
    from hpckg.build import load_files, rule_files, source_files
    from hpckg.machinegraphs import is_machine_written
    from hpckg.namespaces import DERIVED_GRAPH, ID
    from hpckg.project import discover
    from hpckg.store import Store

    copy = discover(explicit=project)  # the copy, not the checkout
    files = source_files(copy)
    store = Store(None)
    load_files(store, [f for f in files if not is_machine_written(f, copy.graphs)], copy)
    imported = [q for f in files if is_machine_written(f, copy.graphs)
                for q in ox.parse(path=str(f), format=ox.RdfFormat.N_QUADS)]

    def rename(term, suffix: str):
        if isinstance(term, ox.NamedNode) and term.value.startswith(ID) and not term.value.startswith(ID + "country/"):
            return ox.NamedNode(term.value + suffix)
        return term

    for copy in range(copies):
        suffix = f"-r{copy}"
        store.load_quads([ox.Quad(rename(q.subject, suffix), q.predicate, rename(q.object, suffix),
                                  ox.NamedNode(q.graph_name.value + suffix)) for q in imported])
    row: dict[str, object] = {"copies": copies, "quads": store.triple_count()}
    derived = ox.NamedNode(DERIVED_GRAPH)
    for path in rule_files(copy.rules_dir):
        start = time.perf_counter()
        triples = list(store.query(path.read_text(encoding="utf-8")))
        row[path.stem] = time.perf_counter() - start
        store.load_quads(ox.Quad(t.subject, t.predicate, t.object, derived) for t in triples)
    start = time.perf_counter()
    summary = list(store.query((project / "queries" / "epoch-clusters-summary.rq").read_text(encoding="utf-8")))
    row["epoch-clusters-summary"] = time.perf_counter() - start
    assert len(summary) == 9
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "epoch-ai")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--no-write", action="store_true", help="print, do not write docs/benchmarks.md")
    args = parser.parse_args()
    data = args.data.resolve()
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        for folder in ("ontology", "shapes", "queries", "data"):
            shutil.copytree(ROOT / folder, project / folder)
        for name, files in IMPORTS:
            run = timed([str(HPCKG), "import", name, *(str(data / f) for f in files)], project, args.timeout)
            quads = sum(int(m.replace(",", "")) for m in re.findall(r"\(([\d,]+) quads", run["out"]))
            reported = sum(int(m) for m in re.findall(r"(\d+) cells reported", run["out"]))
            lines.append(f"| `hpckg import {name} {' '.join(files)}` | {quads:,} quads, {reported} cells "
                         f"reported | {figure(run)} |")
        built = timed([str(HPCKG), "build", "--quiet"], project, args.timeout)
        triples = re.search(r"triples: (\d+) \((\d+) derived\)", built["out"])
        lines.append(f"| `hpckg build` (curated + 3 Epoch imports: load, rules, validation) | "
                     f"{int(triples.group(1)):,} triples, {int(triples.group(2)):,} derived |" if triples else
                     "| `hpckg build` | |")
        lines[-1] += f" {figure(built)} |"
        validated = timed([str(HPCKG), "validate", "--format", "json"], project, args.timeout)
        report = json.loads(validated["out"] or "{}")
        severities = Counter(v["severity"] for v in report.get("violations", []))
        lines.append(f"| `hpckg validate` | {severities['Violation']} violations, {severities['Warning']:,} "
                     f"warnings (dataset-gives-no-source) | {figure(validated)} |")
        rows = [rule_scaling(project, copies) for copies in args.copies]
        os.chdir(ROOT)
    rules = [k for k in rows[0] if k not in ("copies", "quads")]
    scaling = ["| copies | quads | " + " | ".join(f"`{r}`" for r in rules) + " |", "|---:" * (2 + len(rules)) + "|"]
    scaling += [f"| {r['copies']} | {r['quads']:,} | " + " | ".join(f"{r[k]:.2f} s" for k in rules) + " |"
                for r in rows]
    text = "\n".join([
        "## Epoch AI imports (bench/epoch_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, shared "
        f"and busy), files from `{data.name}/`.",
        "",
        "| step | output | wall time, peak RSS |",
        "|---|---|---|",
        *lines,
        "",
        "Rules on the curated data plus the three imported graphs replicated N times (each rule in build "
        "order, seeing the earlier rules' triples; `epoch-clusters-summary` is the canned query):",
        "",
        *scaling,
    ])
    print(text)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "epoch-import", text)


if __name__ == "__main__":
    main()
