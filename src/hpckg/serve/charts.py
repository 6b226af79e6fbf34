"""Charts drawn on the server: Vega-Lite specifications rendered to SVG by vl-convert (no script, no font
and nothing else fetched by the page; the SVG is inline, so the Content-Security-Policy holds), each with a
text alternative and its data as a table.

Each builder takes the rows of a canned query (lists.rows_from_results) and returns a Chart.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from markupsafe import Markup, escape

from hpckg.page.listings import span_text

OTHERS = "others"
SHOWN_CATEGORIES = 8  # a share chart names this many categories (the largest of the last edition), the rest is OTHERS
WIDTH = 640
_render_lock = threading.Lock()  # one Vega runtime per process; calls are serialised


@dataclass
class Chart:
    """A chart: its SVG, a caption, a text alternative and the data drawn, as a table."""

    id: str
    title: str
    alt: str
    svg: Markup
    columns: list[str]
    rows: list[list[str]]
    query_url: str = ""


def render_svg(spec: dict, alt: str) -> Markup:
    """Vega-Lite to an inline SVG announced to assistive technology as one image described by alt."""
    return labelled(vega_svg(spec), alt)


def vega_svg(spec: dict) -> str:
    """Vega-Lite to SVG text (vl-convert; a few hundred milliseconds, serialised in this process)."""
    import vl_convert

    with _render_lock:
        return vl_convert.vegalite_to_svg({"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
                                           "config": {"font": "sans-serif", "background": "white"}, **spec})


def labelled(svg: str, alt: str) -> Markup:
    """An SVG as one image described by alt."""
    return Markup(re.sub(r"^<svg ", f'<svg role="img" aria-label="{escape(alt)}" ', svg, count=1))


def _number(value: object) -> str:
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"
    return "" if value is None else str(value)


def performance_development(rows: list[dict[str, object]], query_url: str = "") -> Chart:
    """Sum, #1 and #500 of Rmax per edition on a log scale (the TOP500's 'performance development')."""
    series = {"sum": "sumTflops", "#1": "firstTflops", "#500": "lastTflops"}
    values = [{"edition": row["edition"], "series": name, "tflops": row[key]}
              for row in rows for name, key in series.items() if isinstance(row.get(key), int | float)]
    first, last = (rows[0], rows[-1]) if rows else ({}, {})
    alt = (f"Line chart, log scale: the sum of the Rmax of the TOP500 grew from {_number(first.get('sumTflops'))} "
           f"TFlop/s in {first.get('edition')} to {_number(last.get('sumTflops'))} in {last.get('edition')}; "
           f"number 1 from {_number(first.get('firstTflops'))} to {_number(last.get('firstTflops'))}; "
           f"number 500 from {_number(first.get('lastTflops'))} to {_number(last.get('lastTflops'))}."
           if rows else "No TOP500 edition is imported.")
    spec = {"width": WIDTH, "height": 320, "data": {"values": values}, "mark": {"type": "line", "point": True},
            "encoding": {"x": {"field": "edition", "type": "ordinal", "title": "Edition"},
                         "y": {"field": "tflops", "type": "quantitative", "scale": {"type": "log"},
                               "title": "Rmax (TFlop/s, log scale)"},
                         "color": {"field": "series", "type": "nominal", "title": None,
                                   "sort": list(series)}}}
    table = [[str(row["edition"]), _number(row.get("sumTflops")), _number(row.get("firstTflops")),
              _number(row.get("lastTflops"))] for row in rows]
    return Chart("performance-development", "Performance development: sum, #1 and #500 of Rmax", alt,
                 render_svg(spec, alt), ["Edition", "Sum (TFlop/s)", "#1 (TFlop/s)", "#500 (TFlop/s)"], table,
                 query_url)


def performance_share(rows: list[dict[str, object]], label: str, key: str, chart_id: str, title: str,
                      query_url: str = "") -> Chart:
    """Per edition, the share of the list's Rmax of each category (country, vendor parent) as stacked bars:
    the largest categories of the last edition by name, the rest as 'others'."""
    editions = sorted({str(row["edition"]) for row in rows})
    last = [row for row in rows if editions and row["edition"] == editions[-1]]
    last.sort(key=lambda row: -float(row.get("sharePercent") or 0))
    named = [str(row.get(label) or row.get(key)) for row in last[:SHOWN_CATEGORIES]]
    shares: dict[tuple[str, str], float] = {}
    for row in rows:
        category = str(row.get(label) or row.get(key))
        category = category if category in named else OTHERS
        cell = (str(row["edition"]), category)
        shares[cell] = shares.get(cell, 0.0) + float(row.get("sharePercent") or 0)
    categories = [*named, OTHERS]
    values = [{"edition": e, "category": c, "share": round(s, 2)} for (e, c), s in shares.items()]
    leaders = ", ".join(f"{c} {shares.get((editions[-1], c), 0):.1f} %" for c in named[:3]) if editions else ""
    alt = (f"Stacked bar chart of the share of Rmax per edition from {editions[0]} to {editions[-1]}; in "
           f"{editions[-1]} the largest are {leaders}." if editions else "No TOP500 edition is imported.")
    spec = {"width": WIDTH, "height": 320, "data": {"values": values}, "mark": "bar",
            "encoding": {"x": {"field": "edition", "type": "ordinal", "title": "Edition"},
                         "y": {"field": "share", "type": "quantitative", "stack": "zero",
                               "title": "Share of the list's Rmax (%)"},
                         "color": {"field": "category", "type": "nominal", "title": None, "sort": categories},
                         "order": {"field": "share", "type": "quantitative", "sort": "descending"}}}
    table = [[e, *(f"{shares.get((e, c), 0):.2f}" for c in categories)] for e in editions]
    return Chart(chart_id, title, alt, render_svg(spec, alt), ["Edition", *(f"{c} (%)" for c in categories)],
                 table, query_url)


def system_history_spec(rows: list[dict[str, object]]) -> dict:
    """The Vega-Lite of a system's rank and Rmax over the TOP500 editions it was listed in (rank axis reversed:
    1 on top); it names no system, so it can be drawn before the page has read the system's name."""
    values = [{"edition": row["edition"], "rank": row.get("rank"), "rmax": row.get("rmaxTflops")} for row in rows]
    x = {"field": "edition", "type": "ordinal", "title": "Edition"}
    return {"data": {"values": values}, "vconcat": [
        {"width": WIDTH, "height": 140, "mark": {"type": "line", "point": True},
         "encoding": {"x": x, "y": {"field": "rank", "type": "quantitative", "scale": {"reverse": True, "zero": False},
                                    "title": "Rank"}}},
        {"width": WIDTH, "height": 140, "mark": {"type": "line", "point": True, "color": "#b35806"},
         "encoding": {"x": x, "y": {"field": "rmax", "type": "quantitative", "title": "Rmax (TFlop/s)"}}}]}


def system_history(rows: list[dict[str, object]], name: str, query_url: str = "", svg: str | None = None, *,
                   imported: list[str] | None = None) -> Chart:
    """A system's rank and Rmax over the TOP500 editions it was listed in; svg: system_history_spec(rows)
    already drawn (vega_svg), else drawn here. `imported` (the store's editions, YYYY-MM) lets the text name
    the lists of the system's span that the imports lack."""
    best = min(rows, key=lambda row: row.get("rank") or 10**9) if rows else {}
    span = span_text([str(row["edition"])[:7] for row in rows], imported or [])
    alt = (f"{name} was {span}; best rank {best.get('rank')} in {best.get('edition')}; "
           f"Rmax {_number(rows[-1].get('rmaxTflops'))} TFlop/s in {rows[-1]['edition']}.")
    table = [[str(row["edition"]), _number(row.get("rank")), _number(row.get("rmaxTflops")),
              str(row.get("rmaxTier") or "")] for row in rows]
    drawn = svg if svg is not None else vega_svg(system_history_spec(rows))
    return Chart("system-history", f"{name} in the TOP500: rank and Rmax per edition", alt, labelled(drawn, alt),
                 ["Edition", "Rank", "Rmax (TFlop/s)", "Tier"], table, query_url)


SHOWN_OWNERS = 6
LEAD, SURER = "lead", "reported or verified"


def accelerators_over_time(rows: list[dict[str, object]], key: str, chart_id: str, title: str, heading: str,
                           query_url: str = "", min_tier: str = "lead") -> Chart:
    """Epoch AI's GPU clusters (the rows of epoch-clusters-list): the cumulative number of AI accelerators of
    the clusters operational by each year (their first operational date), stacked by `key` (country, owner;
    the largest by the last year named, the rest 'others'), the part resting on a lead figure drawn lighter.
    min_tier 'reported' (or 'verified') leaves out the clusters whose count is a weaker claim."""
    from hpckg.serve.lists import TIERS

    floor = TIERS.index(min_tier)
    counted = [row for row in rows if row.get("since") and isinstance(row.get("accelerators"), int | float)
               and row.get("acceleratorsTier") in TIERS and TIERS.index(str(row["acceleratorsTier"])) >= floor]
    years = [str(y) for y in range(min((int(str(r["since"])[:4]) for r in counted), default=0),
                                   max((int(str(r["since"])[:4]) for r in counted), default=-1) + 1)]
    overall: dict[str, float] = {}
    for row in counted:
        category = str(row.get(key) or "unknown")
        overall[category] = overall.get(category, 0.0) + float(row["accelerators"])  # type: ignore[arg-type]
    named = [c for c, _ in sorted(overall.items(), key=lambda item: -item[1])[:SHOWN_OWNERS]]
    categories = [*named, OTHERS] if len(overall) > len(named) else named
    cells: dict[tuple[str, str, str], float] = {}
    for row in counted:
        category = str(row.get(key) or "unknown")
        category = category if category in named else OTHERS
        tier = LEAD if row["acceleratorsTier"] == "lead" else SURER
        start = str(row["since"])[:4]
        for year in years[years.index(start):]:
            cell = (year, category, tier)
            cells[cell] = cells.get(cell, 0.0) + float(row["accelerators"])  # type: ignore[arg-type]
    values = [{"year": y, "category": c, "tier": t, "accelerators": v} for (y, c, t), v in cells.items()]
    total = {y: sum(v for (year, _, _), v in cells.items() if year == y) for y in years}
    lead = {y: sum(v for (year, _, t), v in cells.items() if year == y and t == LEAD) for y in years}
    if years:
        last = years[-1]
        largest = ", ".join(f"{c} {_number(sum(v for (y, cat, _), v in cells.items() if y == last and cat == c))}"
                            for c in named[:3])
        alt = (f"Stacked bar chart of the cumulative number of AI accelerators in Epoch AI's GPU clusters by the "
               f"year they first operated, by {heading.lower()}, {years[0]} to {last}: {_number(total[last])} "
               f"accelerators in {len(counted)} clusters by {last}, of which {_number(lead[last])} rest on a lead "
               f"(drawn lighter); the largest: {largest}."
               + (f" Only counts {min_tier} or better." if min_tier != "lead" else ""))
    else:
        alt = "No Epoch AI cluster with a first operational date and an accelerator count is imported."
    spec = {"width": WIDTH, "height": 320, "data": {"values": values}, "mark": "bar",
            "encoding": {"x": {"field": "year", "type": "ordinal", "title": "Year"},
                         "y": {"field": "accelerators", "type": "quantitative", "stack": "zero",
                               "title": "AI accelerators (cumulative)"},
                         "color": {"field": "category", "type": "nominal", "title": heading, "sort": categories},
                         "opacity": {"field": "tier", "type": "nominal", "title": "Tier of the count",
                                     "scale": {"domain": [SURER, LEAD], "range": [1, 0.35]}},
                         "order": {"field": "tier", "type": "nominal", "sort": "descending"},
                         "tooltip": [{"field": "year"}, {"field": "category"}, {"field": "tier"},
                                     {"field": "accelerators", "format": ","}]}}
    table = [[y, *(_number(sum(v for (year, c, _), v in cells.items() if year == y and c == cat))
                   for cat in categories), _number(total[y]), _number(lead[y])] for y in years]
    return Chart(chart_id, title, alt, render_svg(spec, alt), ["Year", *categories, "Total", "Of which lead"],
                 table, query_url)
