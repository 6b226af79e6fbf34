"""Page latency of the website on the full graph, as a visitor meets it: start `hpckg serve` on a built store,
visit each page type once at once (the first visit after the server opened the build, while its background
precompute may still run), then N more times for p50/p99. Run twice by default: the first server after a build
(the page cache of this generation emptied, then filled as `hpckg build` fills it: hpckg.serve.prepare) and a
restart (the page cache as the first server left it). --cold: the first run after a `hpckg build --no-pages`
instead (the cache emptied only). Writes its table to docs/benchmarks.md with --write.

    .venv/bin/python bench/page_bench.py /work/main/.hpckg/store [--visits 20] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import replace_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAGES = {  # page type -> path (real entities of the full import)
    "home": "/",
    "lists": "/lists",
    "latest TOP500 list": "/lists/top500/2025-06",
    "charts": "/charts",
    "accelerators-by-country": "/queries/accelerators-by-country",
    "compare 3 systems": "/compare?system=top500-180047&system=top500-179807&system=top500-179397",
    "compare's chart (its image)": "/compare.svg?system=top500-180047&system=top500-179807&system=top500-179397",
    "SPARQL editor": "/sparql",
    "system (Frontier)": "/page/system/top500-180047",
    "site (ORNL)": "/page/site/top500-site-48553",
    "organisation (HPE)": "/page/org/hpe",
    "organisation (ORNL)": "/page/org/top500-operator-doe-sc-oak-ridge-national-laboratory",
    "organisation (NVIDIA)": "/page/org/nvidia",
    "part (10G Ethernet, 699 systems)": "/page/part/top500-10g-ethernet",
    "country (US, 5,947 systems)": "/page/country/US",
    "country (DE)": "/page/country/DE",
    "source (TOP500 2025-06, 10,147 claims)": "/page/source/top500-2025-06",
    "search": "/search?q=frontier",
    "statistics": "/statistics",
    "statistics of an edition": "/statistics/top500/2025-06",
    "a statistic over time": "/statistics/country",
}


def start(store: Path, log: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([str(ROOT / ".venv/bin/hpckg"), "serve", "--store", str(store), "--host",
                                "127.0.0.1", "--port", "0", "--rate-limit", "0", "--log-level", "info"],
                               stdout=subprocess.PIPE, stderr=log.open("wb"), cwd=ROOT)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line.decode())
        if found:
            return process, found.group(1)
    raise RuntimeError(f"hpckg serve did not start; see {log}")


def visit(client: httpx.Client, path: str) -> tuple[float, int, int]:
    """Milliseconds, status and bytes on the wire (gzip when the server compresses); status 0: timed out."""
    started = time.perf_counter()
    try:
        with client.stream("GET", path, headers={"Accept": "text/html", "Accept-Encoding": "gzip"}) as response:
            size = sum(len(chunk) for chunk in response.iter_raw())
            status = response.status_code
    except httpx.TimeoutException:
        return (time.perf_counter() - started) * 1000, 0, 0
    return (time.perf_counter() - started) * 1000, status, size


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run(store: Path, visits: int, label: str, timeout: float) -> list[dict]:
    log = Path(f"/tmp/page-bench-{label}.log")
    process, url = start(store, log)
    rows = []
    try:
        with httpx.Client(base_url=url, timeout=timeout) as client:
            for name, path in PAGES.items():
                first, status, size = visit(client, path)
                if status == 0:  # a page over the timeout is not visited again (each would wait as long)
                    rows.append({"page": name, "path": path, "status": "timeout", "bytes": 0, "first": first,
                                 "p50": math.nan, "p99": math.nan})
                    print(f"{label:8} {name:26} timed out after {first / 1000:.0f} s", flush=True)
                    continue
                times = [visit(client, path)[0] for _ in range(visits)]
                rows.append({"page": name, "path": path, "status": status, "bytes": size, "first": first,
                             "p50": statistics.median(times), "p99": percentile(times, 99)})
                print(f"{label:8} {name:26} {status} {size:>9,} B first {first:9.0f} ms  p50 "
                      f"{rows[-1]['p50']:7.1f}  p99 {rows[-1]['p99']:7.1f}", flush=True)
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return rows


def table(runs: dict[str, list[dict]]) -> str:
    names = list(runs)
    head = "| page | " + " | ".join(f"{n}: first | p50 | p99 | bytes sent" for n in names) + " |"
    lines = [head, "|---|" + "--:|" * (4 * len(names))]
    for i, row in enumerate(runs[names[-1]]):
        cells = [f"`{row['path']}`" + ("" if row["status"] == 200 else f" ({row['status']})")]
        for n in names:
            r = runs[n][i]
            if r["status"] == "timeout":
                cells += [f"> {r['first'] / 1000:,.0f} s", "-", "-", "-"]
            else:
                cells += [f"{r['first']:,.0f} ms", f"{r['p50']:,.1f} ms", f"{r['p99']:,.1f} ms", f"{r['bytes']:,}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def prepare(store: Path) -> float:
    """What `hpckg build` does for the website before it switches the store to a generation; its seconds."""
    from hpckg.project import discover
    from hpckg.serve.prepare import prepare_generation
    from hpckg.store import current_generation

    began = time.perf_counter()
    prepare_generation(discover(explicit=ROOT), current_generation(store), store_path=store)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--visits", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=300, help="seconds a visit may take (default 300)")
    parser.add_argument("--write", action="store_true", help="write the table to docs/benchmarks.md")
    parser.add_argument("--label", default="", help="a note for the table's heading (e.g. 'before')")
    parser.add_argument("--no-cold", action="store_true", help="keep the page cache (only the restart run)")
    parser.add_argument("--cold", action="store_true",
                        help="the first run after a build with --no-pages: the page cache emptied, not prepared")
    parser.add_argument("--save", type=Path, help="write this run's rows as JSON (for --before)")
    parser.add_argument("--before", type=Path, help="an earlier --save, shown as the table's first columns")
    args = parser.parse_args()
    cache = args.store.with_name(args.store.name + ".pages")  # hpckg.serve.diskcache.pages_folder
    runs: dict[str, list[dict]] = {}
    if args.before:  # an earlier run's rows (--save), e.g. of the code before a change, as the first columns
        runs.update(json.loads(args.before.read_text()))
    prepared_in = None
    if not args.no_cold:
        shutil.rmtree(cache, ignore_errors=True)
        if not args.cold:
            prepared_in = prepare(args.store)
        runs["cold start" if args.cold else "after build"] = run(args.store, args.visits, "cold", args.timeout)
    runs["restart"] = run(args.store, args.visits, "restart", args.timeout)
    if args.save:
        args.save.write_text(json.dumps({f"{args.label} {name}".strip(): rows for name, rows in runs.items()
                                         if not args.before or name not in json.loads(args.before.read_text())}))
    load = os.getloadavg()
    body = (f"## Page latency on the full graph (bench/page_bench.py){' ' + args.label if args.label else ''}\n\n"
            f"`.venv/bin/python bench/page_bench.py STORE --visits {args.visits} --write` starts `hpckg serve` on "
            "the full import, visits each page once right after the server opened the build (\"first\"), then "
            f"{args.visits} times more (p50, p99), with httpx over loopback (Accept-Encoding: gzip). \"cold "
            "start\": the page cache of this generation (`STORE.pages`) emptied first (a build with --no-pages); "
            "\"after build\": emptied, then filled as `hpckg build` fills it before it switches to a generation"
            + (f" ({prepared_in:.0f} s on this graph)" if prepared_in is not None else "")
            + "; \"restart\": a second server on the same generation, which finds the first one's cache on disk.\n\n"
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores shared with other "
            f"engineers' jobs (load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} at the end).\n\n"
            + table(runs))
    print(body)
    if args.write:
        replace_section(ROOT / "docs" / "benchmarks.md", "page-bench", body)


if __name__ == "__main__":
    main()
