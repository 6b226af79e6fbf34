"""Do lookups and system pages answer as fast on the full imported graph as on the seed graph? Starts
`hpckg serve` on the seed store (built here) and on a full store (`--store`, e.g. after `make run` or
bench/top500_bench.py), asks each for the same kind of lookup (a system's truthy Rmax, distinct query texts
so no cache answers) and for system pages, and reports median and p99 latency per store. Writes the
`full-graph-lookups` section of docs/benchmarks.md.

    python bench/full_graph_bench.py --store .hpckg/store
    python bench/full_graph_bench.py --store /path/to/full/store --requests 200 --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from sections import replace_section

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from serve_live import start_server  # noqa: E402  (the tests' way of running a real server)

LOOKUP = "SELECT ?v WHERE {{ <{system}> <https://w3id.org/hpckg/ontology#{prop}> ?v }} # {n}"


def systems(url: str, limit: int = 20) -> list[str]:
    answer = httpx.get(url + "/sparql", params={"query": (
        f"SELECT ?s WHERE {{ ?s a <https://w3id.org/hpckg/ontology#System> }} ORDER BY ?s LIMIT {limit}")},
        headers={"Accept": "application/sparql-results+json"}, timeout=60).json()
    return [b["s"]["value"] for b in answer["results"]["bindings"]]


def measure(store: Path, requests: int) -> dict[str, list[float]]:
    live = start_server(store, "--workers", "2", "--rate-limit", "0")
    try:
        found = systems(live.url)
        times: dict[str, list[float]] = {"lookup": [], "page": []}
        with httpx.Client(timeout=60) as client:
            for n in range(requests):
                system = found[n % len(found)]
                started = time.perf_counter()
                client.get(live.url + "/sparql", params={"query": LOOKUP.format(system=system, prop="rmax", n=n)},
                           headers={"Accept": "application/sparql-results+json"}).raise_for_status()
                times["lookup"].append(time.perf_counter() - started)
            for n in range(max(requests // 10, 5)):
                system = found[n % len(found)]
                started = time.perf_counter()
                page = system.replace("https://w3id.org/hpckg/id/", live.url + "/page/")
                client.get(page, params={"n": n}, headers={"Accept": "text/html"}).raise_for_status()
                times["page"].append(time.perf_counter() - started)
        return times
    finally:
        live.stop()


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{statistics.median(ordered) * 1000:.1f} ms / {p99 * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="the full store (an hpckg store folder)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    hpckg = Path(sys.executable).parent / "hpckg"
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed"
        subprocess.run([str(hpckg), "build", "--no-import", "--quiet", "--store", str(seed)], cwd=ROOT, check=True,
                       capture_output=True)
        seed_times = measure(seed, args.requests)
    full_times = measure(args.store, args.requests)
    quads = subprocess.run([str(hpckg), "query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
                            "--store", str(args.store), "--format", "csv"], capture_output=True, text=True,
                           cwd=ROOT).stdout.split()[-1]
    text = "\n".join([
        "## Lookups and pages on the full graph (bench/full_graph_bench.py)",
        "",
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on this machine ({os.cpu_count()} CPUs, shared and "
        f"busy): `hpckg serve --workers 2` on the seed store and on a full store ({int(quads):,} quads), one "
        f"client, {args.requests} lookups (a system's Rmax, each a distinct query text) and "
        f"{max(args.requests // 10, 5)} system pages each.",
        "",
        "| store | lookup median / p99 | system page median / p99 |",
        "|---|---|---|",
        f"| seed | {summary(seed_times['lookup'])} | {summary(seed_times['page'])} |",
        f"| full | {summary(full_times['lookup'])} | {summary(full_times['page'])} |",
    ])
    print(text)
    if not args.no_write:
        replace_section(ROOT / "docs" / "benchmarks.md", "full-graph-lookups", text)


if __name__ == "__main__":
    main()
