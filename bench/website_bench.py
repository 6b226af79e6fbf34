"""The website on a built store (the full import: `hpckg import --all && hpckg build`): search latency, system
page render time, lists and charts, over real HTTP to a real `hpckg serve` on 127.0.0.1, and the search index
on its own. Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/website_bench.py PROJECT/.hpckg/store
"""

from __future__ import annotations

import json
import platform
import re
import statistics
import subprocess
import sys
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


def start(store: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([str(ROOT / ".venv/bin/hpckg"), "serve", "--store", str(store), "--host",
                                "127.0.0.1", "--port", "0", "--rate-limit", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    for line in process.stdout:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line.decode())
        if found:
            return process, found.group(1)
    raise RuntimeError("hpckg serve did not start")


def timed(url: str, accept: str = "text/html") -> tuple[float, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=600) as response:
        body = response.read()
    return (time.perf_counter() - started) * 1000, body


def attempt(url: str) -> str:
    """A first request's time, or the status it failed with (a list query over the server's time limit)."""
    try:
        return f"{timed(url)[0]:.0f} ms"
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code} (its query ran over the server's time limit)"


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} ms, max {max(values):.1f} ms"


def main(store: Path) -> None:
    process, base = start(store)
    try:
        lines: list[str] = []
        first_search, _ = timed(base + "/search.json?q=frontier", "application/json")
        search_times = []
        for text in SEARCHES:
            for _ in range(REPEAT):
                elapsed, body = timed(base + "/search.json?" + urllib.parse.urlencode({"q": text}), "application/json")
                search_times.append(elapsed)
        found = {t: json.loads(timed(base + "/search.json?" + urllib.parse.urlencode({"q": t}), "application/json")[1])
                 ["results"][:1] for t in SEARCHES}
        # Systems: the number 1 of a few editions across thirty years, Epoch clusters, the curated seed.
        systems = [r["page"] for t in SEARCHES for r in found[t] if r["type"] == "system"] + ["/page/system/kalos"]
        first_page, _ = timed(base + systems[0])
        page_times, cold_times = [], []
        for path in systems:
            cold, _ = timed(base + path)
            cold_times.append(cold)
            page_times += [timed(base + path)[0] for _ in range(REPEAT)]
        list_first = attempt(base + "/lists/top500/2025-06")
        epoch_first = attempt(base + "/lists/epoch-clusters")
        charts_first = attempt(base + "/charts")
        import pyoxigraph  # noqa: F401 - the index alone, in this process

        from hpckg.serve.search import SearchIndex
        from hpckg.store import Store
        started = time.perf_counter()
        index = SearchIndex.from_store(Store(store, read_only=True))
        built = time.perf_counter() - started
        alone = []
        for text in SEARCHES:
            started = time.perf_counter()
            index.search(text)
            alone.append((time.perf_counter() - started) * 1000)
        lines += [
            "## Website (bench/website_bench.py)", "",
            f"Store: `{store}` (full import), {len(index):,} names indexed. {platform.machine()}, "
            f"Python {platform.python_version()}; over HTTP to `hpckg serve` on 127.0.0.1 (2 shared cores, other "
            "work running).", "",
            "| What | Time |", "|---|---|",
            f"| Search index built from the store (once per store generation, in the first search) | "
            f"{built * 1000:.0f} ms (first search over HTTP: {first_search:.0f} ms) |",
            f"| Search, HTTP round trip, {len(SEARCHES)} typical queries × {REPEAT} | {ms(search_times)} |",
            f"| Search in the index alone | {ms(alone)} |",
            f"| First system page after start (reads the dataset-wide preamble once) | {first_page:.0f} ms |",
            f"| A system page, first visit ({len(systems)} systems, with its chart) | {ms(cold_times)} |",
            f"| A system page, again ({len(systems)} systems × {REPEAT}) | {ms(page_times)} |",
            f"| TOP500 2025-06 list, first | {list_first} |",
            f"| Epoch clusters list, first | {epoch_first} |",
            f"| Charts page (3 charts over 63 editions), first | {charts_first} |",
            "", "Systems measured: " + ", ".join(f"`{s.rsplit('/', 1)[-1]}`" for s in systems) + "."]
        text = "\n".join(lines)
        print(text)
        replace_section(ROOT / "docs" / "benchmarks.md", "website-bench", text)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
