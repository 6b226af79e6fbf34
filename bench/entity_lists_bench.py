"""The sites, organisations and parts lists and the compare page on a built store (the full import), over real
HTTP to a real `hpckg serve` on 127.0.0.1: each list's first visit (its query runs), a repeat visit (rows kept
per store generation: sorting, filtering and paging in Python), a filtered visit and the CSV twin; a compare
page of TOP500 and Epoch systems first and again. Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/entity_lists_bench.py PROJECT/.hpckg/store
"""

from __future__ import annotations

import platform
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from website_bench import start, timed  # noqa: E402

from sections import replace_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 10
LISTS = {"sites": "country=US", "organisations": "name=nvidia", "parts": "name=xeon"}
COMPARISONS = [["top500-180307", "top500-180047"],  # El Capitan, Frontier
               ["top500-180307", "top500-180047", "top500-179807", "top500-180183"],  # + Fugaku, Aurora
               ["kalos", "top500-180307", "epoch-xai-colossus-memphis-phase-2"]]


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms"


def main(store: Path) -> None:
    process, base = start(store)
    try:
        rows = []
        # The server's first answers open its workers' store handles; a visitor's first list is rarely the
        # server's first request, so the /lists index (one small query per worker) is visited first.
        started, _ = timed(f"{base}/lists")
        warm = [timed(f"{base}/sparql?query=ASK%7B%3Fs%20%3Fp%20%3Fo%7D", "application/sparql-results+json")[0]
                for _ in range(4)]
        for name, query in LISTS.items():
            first, _ = timed(f"{base}/lists/{name}")
            again = [timed(f"{base}/lists/{name}?page={1 + i % 3}&sort=name")[0] for i in range(REPEAT)]
            filtered = [timed(f"{base}/lists/{name}?{query}")[0] for _ in range(REPEAT)]
            twin, _ = timed(f"{base}/lists/{name}.csv", "text/csv")
            rows.append(f"| /lists/{name} | {first:.0f} ms | {ms(again)} | {ms(filtered)} (`?{query}`) | "
                        f"{twin:.0f} ms |")
        firsts = {name: float(row.split("|")[2].split()[0]) for name, row in zip(LISTS, rows, strict=True)}
        agains = [float(row.split("|")[3].split()[1]) for row in rows]
        compare = []
        for systems in COMPARISONS:
            url = f"{base}/compare?" + "&".join(f"system={s}" for s in systems)
            first, _ = timed(url)
            again = [timed(url)[0] for _ in range(REPEAT)]
            compare.append(f"| {len(systems)}: " + ", ".join(f"`{s}`" for s in systems)
                           + f" | {first:.0f} ms | {ms(again)} |")
        lines = [
            "## Sites, organisations and parts lists; compare (bench/entity_lists_bench.py)", "",
            f"Store: `{store}` (full import). {platform.machine()}, Python {platform.python_version()}; over "
            "HTTP to `hpckg serve` on 127.0.0.1 (2 shared cores, other work running). First: the list's query "
            "runs in a worker; again: its rows are kept per store generation, pages sorted in Python. The server's "
            f"first request (/lists) took {started:.0f} ms, then {len(warm)} ASK queries "
            f"{ms(warm)}, before the lists were visited.", "",
            "| List | First visit | Again (pages 1-3, sorted by name) | Filtered | CSV twin |",
            "|---|---|---|---|---|", *rows, "",
            "| Compare (systems) | First | Again |", "|---|---|---|", *compare, "",
            "Goals: a list's first visit under 1 s: "
            + ", ".join(f"{name} {'met' if ms_ < 1000 else 'not met'} ({ms_:.0f} ms)" for name, ms_ in firsts.items())
            + f"; a repeat visit under 200 ms: {'met' if max(agains) < 200 else 'not met'} (medians "
            + ", ".join(f"{a:.0f} ms" for a in agains) + "). The first compare page of a server also starts the "
            "chart renderer (vl-convert) in the server process."]
        text = "\n".join(lines)
        print(text)
        replace_section(ROOT / "docs" / "benchmarks.md", "entity-lists-bench", text)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
