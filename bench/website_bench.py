"""The website on a built store (the full import: `hpckg import --all && hpckg build`): search latency, system
page render time, lists and charts, over real HTTP to a real `hpckg serve` on 127.0.0.1, and the search index
on its own. Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/website_bench.py PROJECT/.hpckg/store
"""

from __future__ import annotations

import json
import math
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import replace_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEARCHES = ["el capitan", "jupiter", "Jülich", "nvidia h100", "fugaku", "DOE/NNSA", "sunway", "xai colossus",
            "roadrunner", "earth simulator"]
REPEAT = 10
PIVOTED = ("1993-06", "2005-11", "2015-06", "2025-06")


def start(store: Path, log: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([str(ROOT / ".venv/bin/hpckg"), "serve", "--store", str(store), "--host",
                                "127.0.0.1", "--port", "0", "--rate-limit", "0", "--log-level", "info"],
                               stdout=subprocess.PIPE, stderr=log.open("wb"))
    for line in process.stdout:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line.decode())
        if found:
            return process, found.group(1)
    raise RuntimeError("hpckg serve did not start")


def ready(log: Path, timeout: float = 1800) -> tuple[float, list[str]]:
    """Seconds until the server's background precompute said it was done, and its per-step lines."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        text = log.read_text(errors="replace")
        if "precomputed the website's figures" in text:
            return time.perf_counter() - started, re.findall(r"precomputed the (.+? in [\d.]+ s)", text)
        time.sleep(0.5)
    raise RuntimeError("the server did not finish precomputing")


def timed(url: str, accept: str = "text/html") -> tuple[float, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=600) as response:
        body = response.read()
    return (time.perf_counter() - started) * 1000, body


def attempt(url: str) -> str:
    """A request's time, or the status it failed with (a list query over the server's time limit)."""
    try:
        return f"{timed(url)[0]:.0f} ms"
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}"


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return f"median {statistics.median(values):.1f} ms, p99 {p99:.1f} ms, max {max(values):.1f} ms"


def systems_to_visit(base: str, found: dict[str, list[dict]]) -> list[str]:
    """Pages of systems across the lists: every 25th entry of the newest and an old edition, the number 1s the
    searches find, Epoch AI clusters and the curated seed's system."""
    pages = [r["page"] for t in SEARCHES for r in found[t] if r["type"] == "system"] + ["/page/system/kalos"]
    for edition in ("2025-06", "2005-06"):
        rows = json.loads(timed(f"{base}/lists/top500/{edition}.json", "application/json")[1])["rows"]
        pages += ["/page/system/" + str(row["system"]).rsplit("/", 1)[-1] for row in rows[::25]]
    clusters = json.loads(timed(f"{base}/lists/epoch-clusters.json", "application/json")[1])["rows"]
    pages += ["/page/system/" + str(row["system"]).rsplit("/", 1)[-1] for row in clusters[::60]]
    return list(dict.fromkeys(pages))


def main(store: Path) -> None:
    log = Path(tempfile.mkdtemp(prefix="website-bench-")) / "serve.log"
    launched = time.perf_counter()
    process, base = start(store, log)
    try:
        lines: list[str] = []
        # Requests while the background precompute runs: the server answers meanwhile.
        during = attempt(base + "/page/system/kalos")
        steps = ready(log)[1]
        warm = time.perf_counter() - launched
        search_times = []
        for text in SEARCHES:
            for _ in range(REPEAT):
                elapsed, body = timed(base + "/search.json?" + urllib.parse.urlencode({"q": text}), "application/json")
                search_times.append(elapsed)
        found = {t: json.loads(timed(base + "/search.json?" + urllib.parse.urlencode({"q": t}), "application/json")[1])
                 ["results"][:1] for t in SEARCHES}
        list_first = attempt(base + "/lists/top500/2025-06")
        list_again = attempt(base + "/lists/top500/2025-06?sort=rmaxTflops&order=desc")
        old_first = attempt(base + "/lists/top500/2010-06")
        old_again = attempt(base + "/lists/top500/2010-06?page=2")
        epoch_first = attempt(base + "/lists/epoch-clusters")
        epoch_again = attempt(base + "/lists/epoch-clusters?status=existing")
        charts_first = attempt(base + "/charts")
        charts_again = attempt(base + "/charts")
        systems = systems_to_visit(base, found)
        from hpckg.serve.editions import edition_rows
        from hpckg.store import Store
        page_store = Store(store, read_only=True)
        pivot_times = []
        for edition in PIVOTED:
            started = time.perf_counter()
            edition_rows(page_store, edition)
            pivot_times.append((time.perf_counter() - started) * 1000)
        cold_times, page_times = [], []
        for path in systems:
            cold_times.append(timed(base + path)[0])
        for path in systems:
            page_times += [timed(base + path)[0] for _ in range(REPEAT // 2)]
        lines += [
            "## Website (bench/website_bench.py)", "",
            f"Store: `{store}` (full import). {platform.machine()}, Python {platform.python_version()}; over HTTP to "
            "`hpckg serve` on 127.0.0.1 (2 shared cores, other work running). First visits are measured after the "
            "server's background precompute of the store generation finished.", "",
            "| What | Time |", "|---|---|",
            f"| Background precompute after the server opened the generation ({'; '.join(steps)}) | "
            f"{warm:.0f} s after start ({time.perf_counter() - launched:.0f} s so far) |",
            f"| A system page while the precompute runs | {during} |",
            f"| Search, HTTP round trip, {len(SEARCHES)} typical queries × {REPEAT} | {ms(search_times)} |",
            f"| A system page, first visit ({len(systems)} systems, with its chart) | {ms(cold_times)} |",
            f"| A system page, again ({len(systems)} systems × {REPEAT // 2}) | {ms(page_times)} |",
            f"| TOP500 2025-06 list (precomputed), first / sorted again | {list_first} / {list_again} |",
            f"| TOP500 2010-06 list, first / page 2 | {old_first} / {old_again} |",
            f"| An edition's list read and pivoted, in the bench's process (as the background or a visitor before it "
            f"does; {', '.join(PIVOTED)}) | {ms(pivot_times)} |",
            f"| Epoch clusters list, first / filtered | {epoch_first} / {epoch_again} |",
            f"| Charts page, first / again | {charts_first} / {charts_again} |",
            "", "Systems measured: " + ", ".join(f"`{s.rsplit('/', 1)[-1]}`" for s in systems) + "."]
        text = "\n".join(lines)
        print(text)
        replace_section(ROOT / "docs" / "benchmarks.md", "website-bench", text)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
