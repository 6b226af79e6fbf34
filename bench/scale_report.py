"""The "Scale: 1×, 10×, 100×" section of docs/benchmarks.md and its chart (docs/scale.svg), from the figures
bench/scale_bench.py wrote to its results.json. Every figure is stated beside its anchor from the same run."""

from __future__ import annotations

import math
import re
from pathlib import Path

from sections import replace_section  # bench/sections.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "docs" / "scale.svg"
# The real import as built and measured by bench/top500_bench.py (docs/benchmarks.md "Full import and build")
REAL = {"triples": 3_611_774, "derived": 308_660, "systems": 12_759, "reported": 253_602, "lead": 5_077,
        "violations": 0, "warnings": 2_411}
FREE_DISK = 70e9  # what this machine had free when the runs started
DISK_MARGIN = 15e9  # never filled below this
MEMORY = 24 * 2**30  # this machine's RAM


def mb(value: float) -> str:
    return f"{value / 1e6:,.0f} MB"


def gb(value: float) -> str:
    return f"{value / 1e9:,.1f} GB"


def builds(results: dict) -> list[tuple[int, str, dict]]:
    """Every build measured: (scale, its label, figures), smallest first."""
    found = []
    for scale, steps in sorted(results.items(), key=lambda item: int(item[0])):
        for name, figures in steps.items():
            if name.startswith("build"):
                found.append((int(scale), figures["staging"], figures))
    return found


def comparison(results: dict) -> list[str]:
    one = results.get("1", {})
    build = one.get("build") or one.get("build-memory") or one.get("build-disk")
    generated = one.get("generate")
    if not build or not generated:
        return []
    s = build["summary"]
    lines = ["### 1× against the real import", "",
             "| figure | real import (`hpckg build`, top500_bench.py) | synthetic 1× (`hpckg build`) |",
             "|---|---:|---:|",
             f"| triples after the build | {REAL['triples']:,} | {s['triples']:,} |",
             f"| derived | {REAL['derived']:,} | {s['derived']:,} |",
             f"| systems | {REAL['systems']:,} | {s['systems']:,} |",
             f"| claims reported | {REAL['reported']:,} | {s['claims_by_tier'].get('reported', 0):,} |",
             f"| claims lead | {REAL['lead']:,} | {s['claims_by_tier'].get('lead', 0):,} |",
             f"| violations / warnings | {REAL['violations']} / {REAL['warnings']:,} | "
             f"{s['violations']} / {s['warnings']:,} |", ""]
    first, last = generated["first_copy"], generated["last_copy"]
    lines += ["Per copy, from the generator's manifest (copy 1 is the real import's files; the last copy of the "
              "largest run is a renamed one; equal counts mean every size is that many times the real import):",
              "", "| graph kind / count | copy 1 (= real) | last copy of the largest run |", "|---|---:|---:|"]
    largest = max((int(k) for k, v in results.items() if "generate" in v), default=1)
    last = results[str(largest)]["generate"]["last_copy"]
    for kind, quads in first["by_kind"].items():
        lines.append(f"| quads in {kind} | {quads:,} | {last['by_kind'].get(kind, 0):,} |")
    for name, value in sorted(first["counts"].items()):
        lines.append(f"| {name} | {value:,} | {last['counts'].get(name, 0):,} |")
    return lines


def build_table(results: dict) -> list[str]:
    lines = ["### Build", "",
             "| size | quads loaded | anchor: bare bulk load | `hpckg build` | where | load | link | derive | "
             "validate | write | build / (bulk load + validate) | peak RSS (anchor) | store on disk | load avg |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for scale, where, b in builds(results):
        bulk = results[str(scale)].get("bulk", {})
        p = b["phases"]
        anchor = bulk.get("seconds")
        ratio = f"{b['seconds'] / (anchor + p['validate']):.2f}×" if anchor else "—"
        lines.append(
            f"| {scale}× | {bulk.get('quads', 0):,} | {anchor or '—'} s | {b['seconds']} s | {where} | {p['load']} s | "
            f"{p['link']} s | {p['derive']} s | {p['validate']} s | {p['write']} s | {ratio} | "
            f"{mb(b['peak_rss'])} ({mb(bulk.get('peak_rss', 0))}) | {mb(b['store_bytes'])} "
            f"({b['store_bytes'] / b['summary']['triples']:.0f} B/triple) | {b['load_average']} |")
    by_phase = [(scale, where, b) for scale, where, b in builds(results) if "phase_peak_rss" in b]
    if by_phase:
        lines += ["", "Peak RSS by phase (a thread in the build process samples its resident size every 0.2 s; "
                  "builds from before that have none):", ""]
        for scale, where, b in by_phase:
            lines.append(f"- {scale}× ({where}): "
                         + ", ".join(f"{name} {mb(value)}" for name, value in b["phase_peak_rss"].items())
                         + f". The peak is set in {peak_phase(b)}."
                         + (f" Within derive, the rule that held the most: {peak_rule(b)}." if b.get("rule_peak_rss")
                            else ""))
    return lines


def peak_rule(b: dict) -> str:
    """The rule whose run saw the highest sampled RSS, with that figure."""
    peaks = b["rule_peak_rss"]
    rule = max(peaks, key=peaks.get)
    return f"`{rule}`, {mb(peaks[rule])}"


def peak_phase(b: dict) -> str | None:
    """The build phase whose sampled RSS was highest, when the build sampled it."""
    peaks = b.get("phase_peak_rss")
    return max(peaks, key=peaks.get) if peaks else None


def query_table(results: dict) -> list[str]:
    sizes = [s for s in sorted(results, key=int) if "queries" in results[s]]
    if not sizes:
        return []
    names = list(results[sizes[0]]["queries"]["queries"])
    lines = ["### Canned queries (median ms on the built store, in process)", "",
             "| query | " + " | ".join(f"{s}× ms (rows)" for s in sizes) + " | growth per size step |",
             "|---|" + "---:|" * len(sizes) + "---:|"]
    for name in names:
        cells = [results[s]["queries"]["queries"].get(name, {}) for s in sizes]
        growth = ""
        if len(sizes) > 1 and cells[0].get("ms") and cells[-1].get("ms"):
            growth = f"{cells[-1]['ms'] / max(cells[0]['ms'], 0.1):.1f}× for {int(sizes[-1]) // int(sizes[0])}× data"
        lines.append(f"| `{name}` | " + " | ".join(query_cell(c) for c in cells) + f" | {growth} |")
    lines.append("| all that finished | " + " | ".join(f"{results[s]['queries']['sum_ms']:,}" for s in sizes) + " | |")
    return lines


def query_cell(cell: dict) -> str:
    if cell.get("ms") is None:
        return f"stopped after {cell['stopped_after_s']:.0f} s" if "stopped_after_s" in cell else "—"
    return f"{cell['ms']:,} ({cell['rows']:,})"


def serve_table(results: dict) -> list[str]:
    sizes = [s for s in sorted(results, key=int) if "serve" in results[s]]
    if not sizes:
        return []
    lines = ["### Endpoint under 8 clients, page", "",
             "| size | query | `hpckg serve` q/s, p50 / p99 | anchor `oxigraph serve-read-only` q/s, p50 / p99 | "
             "q/s ratio | system page (hpckg serve) |",
             "|---|---|---|---|---:|---:|"]
    for s in sizes:
        v = results[s]["serve"]
        for query in ("lookup", "aggregate"):
            h, o = v[f"{query} hpckg"], v[f"{query} oxigraph"]
            ratio = f"{h['qps'] / o['qps']:.2f}" if "qps" in h and "qps" in o else "—"
            lines.append(f"| {s}× | {query} | {served(h)} | {served(o)} | {ratio} | {v.get('page_ms', '—')} ms |")
    lines += ["", "The system pages (the ten systems with the highest Rmax, each in up to 63 editions) were timed "
              "right after the aggregate load, whose refused and slow queries may still have held the server's "
              "workers: the page figure is an upper bound."]
    return lines


def virtuoso_table(results: dict) -> list[str]:
    lines = []
    for size in [s for s in sorted(results, key=int) if "virtuoso" in results[s]]:
        v = results[size]["virtuoso"]
        embedded = results[size].get("queries", {}).get("queries", {})
        same = [n for n, f in v["queries"].items() if f.get("same_as_embedded")]
        differ = [n for n, f in v["queries"].items() if f.get("same_as_embedded") is False]
        lines += ([""] if lines else []) + [f"### The embedded store and Virtuoso 7 on the synthetic {size}×", "",
                  f"The built generation ({v['quads']:,} quads) published to a Virtuoso started for the run by "
                  f"hpckg's own publish in {v['published_seconds']:,.0f} s ({publish_said(v)}); each "
                  f"canned query once through `RemoteStore` (SPARQL Protocol over loopback, JSON parsed back"
                  + {"graph group": "; the default graph named as the build's Virtuoso graph group, "
                                    "HPCKG_STORE_GRAPH_GROUP=1",
                     "graphs listed": "; the build's graphs listed as the default graph"}.get(
                         v.get("default_graph", ""), "")
                  + "), at "
                  f"most {v['limit_s']:.0f} s"
                  + (f" (the client's timeout, and Virtuoso's MaxQueryExecutionTime of {v['server_limit_s']} s, set "
                     "by a restart after a publish that ran with no limit)" if "server_limit_s" in v else "")
                  + ", beside its in-process time on the embedded store from the table "
                  f"above. Answers compared by value (tests/answers.py digests): {len(same)} the same"
                  + (f", {len(differ)} different ({', '.join(f'`{n}`' for n in differ)})" if differ else "")
                  + "." + dates_apart(v, results[size].get("queries", {})), "",
                  "| query | embedded ms | Virtuoso ms | Virtuoso / embedded | same answer |",
                  "|---|---:|---:|---:|---|"]
        for name, f in v["queries"].items():
            e = embedded.get(name, {}).get("ms")
            shown = f"{e:,}" if e is not None else "stopped"
            if f.get("ms") is None:
                lines.append(f"| `{name}` | {shown} | {server_error(f.get('error', 'failed'), v.get('limit_s'))} "
                             "| — | — |")
                continue
            ratio = f"{f['ms'] / e:.2f}×" if e else "—"
            answer = {True: "yes", False: "NO", None: "—"}[f.get("same_as_embedded")]
            lines.append(f"| `{name}` | {shown} | {f['ms']:,} | {ratio} | {answer} |")
    return lines


def publish_said(virtuoso: dict) -> str:
    """What the publish did, from the line `hpckg build` prints at its switch (runs before 2026-12-01 staged
    every graph and kept no such line)."""
    found = re.search(r"to generation (\d+) \((\d[^()]*)\)$", virtuoso.get("switch", ""))
    if not found:
        return "every graph into a staging graph, then the switch"
    kind = "a first publish" if found.group(1) == "1" else f"publish number {found.group(1)}"
    return f"{kind} of " + found.group(2).replace("; ", ", switch ")


def dates_apart(virtuoso: dict, queries: dict) -> str:
    """A warning when the Virtuoso step and the embedded store's queries step ran on different days: their
    ratios then compare different code and machine states."""
    on, embedded = virtuoso.get("measured", ""), queries.get("measured", "")
    if on[:10] == embedded[:10]:
        return ""
    return (f" The Virtuoso column was measured on {on[:10]} and the embedded one on {embedded[:10]}, with the "
            "canned queries as they were on each day; the answers were compared on the Virtuoso day, so read the "
            "ratios as indications only.")


def server_error(said: str, limit: float | None = None) -> str:
    """The server's own error code and words, short enough for a table cell; a client timeout as such."""
    if "timed out" in said and "SR171" not in said:
        return f"stopped at {limit:.0f} s" if limit else "stopped (client timeout)"
    found = re.search(r"(S[A-Z0-9]{4}|SR\d+|MTXNA)\b.*?(?=\\n|$)", said)
    return (found.group(0) if found else said)[:80].replace("|", "/")


def check_table(results: dict) -> list[str]:
    sizes = [s for s in sorted(results, key=int) if "check" in results[s]]
    if not sizes:
        return []
    lines = ["### `hpckg check` of one contribution against the built store", "",
             "The draft is tests/contributions/good/frontier.ttl. In these graphs Frontier is a TOP500 system "
             "already, so the check refuses it as a duplicate: a full review either way (what it reads does not "
             "depend on the verdict).", "",
             "| size | triples in the store | median of runs | peak RSS | load avg |", "|---|---:|---:|---:|---:|"]
    for s in sizes:
        check = results[s]["check"]
        built = next((b for scale, _, b in builds(results) if str(scale) == s), None)
        triples = f"{built['summary']['triples']:,}" if built else "—"
        lines.append(f"| {s}× | {triples} | {check['seconds']} s ({check.get('repeats', 1)} runs) | "
                     f"{mb(check['peak_rss'])} | {check['load_average']} |")
    return lines


def served(figures: dict) -> str:
    if "qps" in figures:
        return f"{figures['qps']:.3g}, {figures['p50']:.1f} / {figures['p99']:.1f} ms"
    said = figures["error"]
    if said.startswith("warm-up"):
        return "the first request already refused (" + ("503: over the query time limit or busy)" if "503" in said
                                                         else said.split(": ", 1)[-1][:60] + ")")
    failed = said.split(" ", 1)[0]
    if "no answer in" in said:
        return f"{failed} of {figures['requests']} requests had no answer within the client's 60 s"
    return f"{failed} of {figures['requests']} requests refused (503 busy: the slow-query slots stayed taken)"


def chart(results: dict) -> None:
    """Seconds against quads loaded, one line per step, both axes logarithmic: a straight line of slope 1 is
    linear growth."""
    import vl_convert

    rows = []
    for scale, where, b in builds(results):
        quads = results[str(scale)].get("bulk", {}).get("quads") or b["summary"]["triples"]
        for step in ("load", "link", "derive", "validate", "write"):
            if b["phases"][step] > 0:
                rows.append({"quads": quads, "seconds": b["phases"][step], "step": f"{step} ({where})"})
        rows.append({"quads": quads, "seconds": b["seconds"], "step": f"hpckg build ({where})"})
        bulk = results[str(scale)].get("bulk")
        if bulk:
            rows.append({"quads": quads, "seconds": bulk["seconds"], "step": "anchor: bare bulk load"})
        generated = results[str(scale)].get("generate")
        if generated:
            rows.append({"quads": quads, "seconds": generated["seconds"], "step": "generate (synthetic.py)"})
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "width": 560, "height": 320,
            "title": "Build steps against graph size (log-log; slope 1 = linear)",
            "data": {"values": rows}, "mark": {"type": "line", "point": True},
            "encoding": {"x": {"field": "quads", "type": "quantitative", "scale": {"type": "log"},
                               "title": "quads loaded"},
                         "y": {"field": "seconds", "type": "quantitative", "scale": {"type": "log"},
                               "title": "seconds (wall, shared machine)"},
                         "color": {"field": "step", "type": "nominal"}}}
    CHART.write_text(vl_convert.vegalite_to_svg(spec), encoding="utf-8")


def exponent(pairs: list[tuple[float, float]]) -> float | None:
    """The growth exponent between the smallest and largest size (1.0 = linear)."""
    if len(pairs) < 2 or pairs[0][0] == pairs[-1][0] or min(p[1] for p in pairs) <= 0:
        return None
    (x0, y0), (x1, y1) = pairs[0], pairs[-1]
    return math.log(y1 / y0) / math.log(x1 / x0)


def report(results: dict, write: Path | None) -> str:
    body = ["## Scale: 1×, 10×, 100× (bench/scale_bench.py)", "",
            "Generated by `python bench/scale_bench.py report --work <folder> --write docs/benchmarks.md` from the "
            "figures `bench/scale_bench.py run` measured (see its docstring); do not edit by hand. The synthetic "
            "graphs are `bench/synthetic.py`'s: N copies of the real import (the 67 graph files `hpckg import "
            "--all` writes; 3.29 M quads, 711 MB of N-Quads; the 4.65 M of earlier notes counted the "
            "importer's `parts/` too, which a build does not load), copy 1 the real files, every other copy "
            "with the importers' IRIs, graph names, slugs and names renamed so it is a new world of systems "
            "pointing at the same curated data. The machine is the shared 2-core one; the load average during "
            "each step is in the tables, so read the ratios to the anchors of the same run, not the seconds.",
            ""]
    body += comparison(results) + [""] + build_table(results) + [""] + query_table(results) + [""]
    body += serve_table(results) + [""] + check_table(results) + [""] + virtuoso_table(results) + [""]
    pyshacl = next((v["pyshacl"] for v in results.values() if "pyshacl" in v), None)
    if pyshacl:
        body += ["### Validation against pySHACL", "",
                 f"pySHACL and the fast engine on the same store and shapes, on {pyshacl['what']}: the largest "
                 "graph pySHACL finishes in minutes here (it grows faster than the graph, below), so the anchor "
                 f"is this fraction ({100 * pyshacl['quads'] / REAL['triples']:.1f}% of 1×), not 1× itself. "
                 "Results compared as (rule, focus, path, value) sets.", "",
                 "| triples | pySHACL | fast engine | pySHACL / fast | results | identical |",
                 "|---:|---:|---:|---:|---:|---|"]
        for point in pyshacl["points"]:
            body.append(f"| {point['quads']:,} | {point['pyshacl_seconds']:.1f} s | {point['fast_seconds']:.2f} s | "
                        f"{point['pyshacl_seconds'] / point['fast_seconds']:,.0f}× | {point['results']} | "
                        f"{'yes' if point['same'] else 'NO'} |")
        if len(pyshacl["points"]) > 1:
            slow, fast = ([(point["quads"], point[key]) for point in pyshacl["points"]]
                          for key in ("pyshacl_seconds", "fast_seconds"))
            body += ["", f"Growth exponent between the smallest and largest size (1.00 = linear): pySHACL "
                     f"{exponent(slow):.2f}, fast engine {exponent(fast):.2f}."]
        body.append("")
    body += goals(results, pyshacl) + [""] + hundred(results) + [""] + not_measured(results)
    text = "\n".join(body)
    if write:
        chart(results)
        text = text + "\n\n![Build steps against graph size](scale.svg)\n"
        replace_section(write, "scale_bench.py", text)
    print(text)
    return text


def goals(results: dict, pyshacl: dict | None) -> list[str]:
    lines = ["### Goals of issue 15", ""]
    done = builds(results)
    for scale, where, b in done:
        bulk = results[str(scale)].get("bulk")
        if bulk:
            ratio = b["seconds"] / (bulk["seconds"] + b["phases"]["validate"])
            lines.append(f"- Build within 1.5× of bare bulk load + validation, {scale}× ({where}): "
                         f"{'met' if ratio <= 1.5 else 'missed'}, {ratio:.2f}×.")
    for staging in ("memory", "disk"):
        series = [(results[str(s)]["bulk"]["quads"], b) for s, w, b in done
                  if w == staging and "bulk" in results[str(s)]]
        if len(series) > 1:
            growth = {step: exponent([(q, b["phases"][step]) for q, b in series])
                      for step in ("load", "link", "derive", "validate")}
            parts = [f"{step} {e:.2f}" for step, e in growth.items() if e is not None]
            worst = max((e or 0) for e in growth.values())
            busy = max(b["load_average"] for _, b in series) >= 2
            anchor = exponent([(results[str(s)]["bulk"]["quads"], results[str(s)]["bulk"]["seconds"])
                               for s, w, _ in done if w == staging and "bulk" in results[str(s)]])
            why = (" (an upper bound where the larger build ran beside other work, as the load averages in the "
                   "build table show)" if busy else
                   f" on a quiet machine; the bare bulk load grows {anchor:.2f} between the same sizes, the "
                   "on-disk store's own slowdown as it outgrows the page cache" if staging == "disk" and anchor
                   else " on a quiet machine")
            lines.append(f"- Linear steps ({staging}; growth exponent between the smallest and largest size, "
                         f"1.00 = linear): {', '.join(parts)}."
                         + (f" Missed: above 1.10{why}." if worst > 1.1 else ""))
    for step, label in (("generate", "generator"), ("bulk", "bare bulk load")):
        series = [(r[step]["quads"], r[step]["seconds"], r[step]["load_average"], k)
                  for k, r in sorted(results.items(), key=lambda item: int(item[0])) if step in r]
        if len(series) > 1:
            e = exponent([(q, t) for q, t, _, _ in series])
            lines.append(f"- Linear {label}: " + ", ".join(f"{k}× {q / 1e6:.1f} M quads in {t} s (load avg {a})"
                                                          for q, t, a, k in series) + f"; exponent {e:.2f}"
                         + (" (copy 1 is the template passed through, later copies are rewritten line by line: "
                            "per rewritten copy " + ", ".join(
                                f"{(t - series[0][1]) / (int(k) - 1):.1f} s at {k}×" for _, t, _, k in series[1:])
                            + ")." if step == "generate" else "."))
    if pyshacl:
        last = pyshacl["points"][-1]
        speed = last["pyshacl_seconds"] / last["fast_seconds"]
        same = all(point["same"] for point in pyshacl["points"])
        lines.append(f"- Validation ≥ 100× faster than pySHACL with identical results: "
                     f"{'met' if speed >= 100 and same else 'missed'}, {speed:,.0f}× on {last['quads']:,} triples.")
    for scale in sorted(results, key=int):
        check = results[scale].get("check")
        if check:
            lines.append(f"- `hpckg check` of one contribution at {scale}×: {check['seconds']} s, peak RSS "
                         f"{mb(check['peak_rss'])} ({check['what']}); the goal is < 2 s at 10×: "
                         + (("met" if check['seconds'] < 2 else "missed") if int(scale) >= 10 else
                            f"{'on course' if check['seconds'] < 2 else 'missed'} at this size") + ".")
    return lines


def hundred(results: dict) -> list[str]:
    """What breaks first at 100×, from the measured per-quad costs of the largest run."""
    done = builds(results)
    if not done:
        return []
    scale, where, b = done[-1]
    for s, w, f in done:
        if w == "disk":
            scale, where, b = s, w, f
    triples = b["summary"]["triples"]
    generated = results[str(scale)].get("generate", {})
    quads = generated.get("quads") or triples
    per_copy_quads = quads / scale
    store_per_triple = b["store_bytes"] / triples
    files_per_quad = generated.get("bytes", 0) / quads if generated else 0
    triples_per_copy = triples / scale
    at100 = {"quads": 100 * per_copy_quads, "triples": 100 * triples_per_copy}
    store100 = at100["triples"] * store_per_triple
    files100 = at100["quads"] * files_per_quad
    rss_per_triple = b["peak_rss"] / triples
    in_memory = [f for _, w, f in done if w == "memory"]
    memory_per_triple = (in_memory[-1]["peak_rss"] / in_memory[-1]["summary"]["triples"]) if in_memory else None
    seconds_per_triple = b["seconds"] / triples
    usable = FREE_DISK - DISK_MARGIN
    fits = usable / (store_per_triple + files_per_quad * per_copy_quads / triples_per_copy) / triples_per_copy
    memory_fits = MEMORY / rss_per_triple / triples_per_copy
    return ["### 100×: what breaks first", "",
            f"From the {scale}× build ({where} staging): {store_per_triple:.0f} bytes of store per triple, "
            f"{files_per_quad:.0f} bytes of generated N-Quads per quad, peak RSS {rss_per_triple:.0f} bytes per "
            f"triple, {1e6 * seconds_per_triple:.0f} s per million triples (load avg {b['load_average']}).",
            "",
            f"- 100× is {at100['quads'] / 1e6:,.0f} M quads to load, {at100['triples'] / 1e6:,.0f} M triples built: "
            f"the generated files take {gb(files100)} and the store {gb(store100)} (plus the previous generation a "
            f"build keeps), against {gb(FREE_DISK)} free on this disk. With {gb(DISK_MARGIN)} "
            f"kept free, input files and one generation fit on the disk up to about {fits:.0f}× "
            f"({fits * triples_per_copy / 1e6:,.0f} M triples).",
            (f"- Memory breaks {'before' if memory_fits < fits else 'after'} the disk: the on-disk staging's peak "
             f"RSS is {mb(b['peak_rss'])} at {scale}× "
             f"({rss_per_triple:.0f} bytes per triple), so 24 GiB holds about "
             f"{MEMORY / rss_per_triple / triples_per_copy:.0f}× ({MEMORY / rss_per_triple / 1e6:,.0f} M "
             f"triples) and 100× would need about {rss_per_triple * at100['triples'] / 1e9:,.0f} GB: "
             + (f"the peak is set in the {peak_phase(b)} phase, whose whole-store queries hold hash tables and "
                "aggregates over every claim. " if peak_phase(b) else
                "which phase sets the peak was not sampled in this build. ")
             + ("The disk staging's memory, not the disk, is what breaks first. " if memory_fits < fits else
                f"The disk, at about {fits:.0f}×, is what breaks first; the memory would hold about "
                f"{memory_fits:.0f}×. ")
             if where == "disk" and rss_per_triple * at100["triples"] > MEMORY else
             f"- Memory does not: the on-disk staging's peak RSS is {mb(b['peak_rss'])} at {scale}×"
             f"{'' if where == 'disk' else ' (this build was in memory; the disk path is the one for 100×)'}; ")
            + (f"The in-memory path would need about {memory_per_triple * at100['triples'] / 1e9:,.0f} GB at 100× "
             f"({memory_per_triple:.0f} bytes per triple at its largest measured size), which is why `--staging "
             "auto` leaves it above a third of the memory available." if memory_per_triple else
             "The in-memory path was not measured."),
            f"- Time: at the measured {1e6 * seconds_per_triple:.0f} s per million triples, 100× builds in about "
            f"{seconds_per_triple * at100['triples'] / 3600:.1f} h on this machine, if every step stays "
            "linear."]


def not_measured(results: dict) -> list[str]:
    """What this run did not measure, said plainly."""
    sizes = sorted(int(k) for k in results)
    built = sorted({s for s, _, _ in builds(results)})
    lines = ["### Not measured in this run", ""]
    for s in sizes:
        unfinished = results[str(s)].get("unfinished", {})
        for running in unfinished.get("runs", []):
            lines.append(f"- {s}×: {running['what']} had not finished when this section was written "
                         f"({unfinished['measured']} UTC): {running['elapsed']} wall, {running['cpu']} of CPU, "
                         f"RSS {mb(running['rss'])} at that moment{running.get('more', '')}.")
    if 10 not in built:
        disk = [(s, b) for s, w, b in builds(results) if w == "disk"]
        memory = [(s, b) for s, w, b in builds(results) if w == "memory"]
        why = ""
        if memory:
            s, b = memory[-1]
            why += (f" In memory it would need about {10 * b['peak_rss'] / s / 1e9:.0f} GB (peak RSS "
                    f"{mb(b['peak_rss'])} at {s}×), more than this machine's 24 GiB, so 10× takes the on-disk "
                    "staging.")
        if disk:
            s, b = disk[0]
            started = "unfinished" in results.get("10", {})
            why += (f" That path took {b['seconds']:.0f} s at {s}× (load avg {b['load_average']}); linear, 10× "
                    f"would take about {10 * b['seconds'] / s / 60:.0f} min of a quiet machine"
                    + ("; the 10× build above ran beside other work and took longer than that." if started else
                       ", more than the session that wrote this section had left beside the test suite."))
        lines.append(f"- 10× and larger: sizes built {', '.join(f'{s}×' for s in built)}.{why} Its derive and "
                     "validate steps read RocksDB instead of memory; making them faster is the next step for 10×.")
    for s in sizes:
        missing = [step for step in ("bulk", "queries", "serve", "check") if step not in results[str(s)]]
        if missing:
            lines.append(f"- {s}×: {', '.join(missing)} not run.")
    on_virtuoso = [f"{s}×" for s in sizes if "virtuoso" in results[str(s)]]
    lines.append("- The embedded store against Virtuoso on the synthetic graphs: "
                 + (f"run at {' and '.join(on_virtuoso)}" if on_virtuoso else "not run")
                 + "; the engines section above compares them on the replicated curated data at 1× and 10×.")
    return lines
