"""Charts drawn on the server: Vega-Lite specifications rendered to SVG by vl-convert (no script, no font
and nothing else fetched by the page), each with a text alternative and its data as a table. A chart drawn
once per build is inline in its page; one drawn for a request (a system's history, a comparison) is an image
of its own URL (Chart.src, `standalone`), so that its page does not wait for Vega (100-300 ms a chart; vl-convert
draws with the interpreter released, but on a core of its own).

Each builder takes the rows of a canned query (lists.rows_from_results) and returns a Chart. Text is at least
13 px, the background transparent and the text, axes and grid drawn in the page's own colour (currentColor),
so a chart reads in the light and the dark colour scheme alike. An edition axis runs over every TOP500
edition from the first drawn to the last, so an edition the graph does not hold is a gap, said in words
beside the chart (absent_editions), never silently closed up.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

from markupsafe import Markup, escape

from hpckg import numbers
from hpckg.page.listings import span_text

OTHERS = "others"
SHOWN_CATEGORIES = 8  # a share chart names this many categories (the largest of the last edition), the rest is OTHERS
WIDTH = 640
FONT_SIZE = 13  # the smallest text of a chart, in px (an SVG shown at its width)
EDITION_LABELS = 16  # at most this many labels on an edition axis
WARM_UP_DRAWINGS = 1  # see warm_up
_render_lock = threading.Lock()  # one Vega runtime per process; calls are serialised

# Text, axes and grid in the colour of the text around the chart (the inline SVG inherits it), on no
# background: readable in light and dark mode without a second drawing.
INK = "currentColor"
CONFIG = {
    "font": "sans-serif", "background": "transparent",
    "aria": False,  # the SVG is one image described by its alt (labelled): no description per mark
    "axis": {"labelFontSize": FONT_SIZE, "titleFontSize": FONT_SIZE + 1, "labelColor": INK, "titleColor": INK,
             "domainColor": INK, "tickColor": INK, "gridColor": INK, "gridOpacity": 0.15, "labelOverlap": True},
    "legend": {"labelFontSize": FONT_SIZE, "titleFontSize": FONT_SIZE + 1, "labelColor": INK, "titleColor": INK},
    "title": {"fontSize": FONT_SIZE + 2, "color": INK},
    "view": {"stroke": None},
}


@dataclass
class Chart:
    """A chart: its SVG, a caption, a text alternative and the data drawn, as a table; note says in words
    what the chart leaves out (editions the graph does not hold)."""

    id: str
    title: str
    alt: str
    svg: Markup
    columns: list[str]
    rows: list[list[str]]
    query_url: str = ""
    note: str = ""
    src: str = ""  # drawn on its own request at this URL (an <img>: standalone), svg left empty


def render_svg(spec: dict, alt: str) -> Markup:
    """Vega-Lite to an inline SVG announced to assistive technology as one image described by alt."""
    return labelled(vega_svg(spec), alt)


def warm_up() -> None:
    """Start the renderer's runtime (0.6 s, once per process) and draw the kind of chart drawn on request (two
    panels of lines over editions): Vega's first drawings of a kind take twice as long as later ones (a
    comparison's first image, measured alone: 300 ms after a blank warm-up, 195 ms after one of these, 140 ms
    after three; in a server just started, whose first pages share the two cores: 284 -> 245 ms with one or
    three, so one, which takes a core from those pages for the shortest time)."""
    vega_svg({"mark": "point", "data": {"values": []}})
    editions = [f"{year}-{month}" for year in range(2000, 2026) for month in ("06", "11")]
    for drawing in range(WARM_UP_DRAWINGS):
        rows = [{"edition": e, "rank": (i * 7 + drawing) % 500 + 1, "rmaxTflops": 10.0 ** (i / 9)}
                for i, e in enumerate(editions)]
        vega_svg(system_history_spec(rows))


def vega_svg(spec: dict) -> str:
    """Vega-Lite to SVG text (vl-convert; a few hundred milliseconds, serialised in this process)."""
    import vl_convert

    with _render_lock:
        return vl_convert.vegalite_to_svg({"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
                                           "config": CONFIG, **spec})


# The page's text colours (templates/layout.html, light and dark), for a chart served as an image of its own.
PAGE_INK, PAGE_INK_DARK = "#1b1b1b", "#e6e6e3"


def standalone(svg: str) -> str:
    """A chart as an SVG document of its own, shown by an <img>, which passes it neither the page's colour nor
    its colour scheme: currentColor set to the page's text colour, light or dark as the reader's scheme is."""
    root, _, inner = svg.partition(">")
    return (root + "><style>svg { color: " + PAGE_INK + " } @media (prefers-color-scheme: dark) { svg { color: "
            + PAGE_INK_DARK + " } }</style>" + inner)


_INNER_ARIA = re.compile(r'\s(?:role|aria-roledescription|aria-label|aria-hidden)="[^"]*"')


def labelled(svg: str, alt: str) -> Markup:
    """An SVG as one image described by alt; the roles Vega gives its groups and marks are taken off (inside
    an image they say nothing, and a role without a label is an accessibility error)."""
    root, _, inner = svg.partition(">")
    return Markup(re.sub(r"^<svg ", f'<svg role="img" aria-label="{escape(alt)}" ', root, count=1) + ">"
                  + _INNER_ARIA.sub("", inner))


def _number(value: object) -> str:
    return numbers.number(value)


def _rate(value: object) -> str:
    """An Rmax held in TFlop/s in the unit of its magnitude: '59.7 GFlop/s', '1.742 EFlop/s'."""
    return numbers.figure(value, "TFlop/s") if isinstance(value, int | float) else ""


# ---- editions on an axis ----------------------------------------------------------------------------------

def edition_sequence(editions: list[str]) -> list[str]:
    """Every TOP500 edition (June and November of each year) from the first of `editions` to the last."""
    known = sorted(e for e in editions if re.fullmatch(r"\d{4}-(06|11)", e))
    if not known:
        return sorted(editions)
    first, last = int(known[0][:4]), int(known[-1][:4])
    every = [f"{year}-{month}" for year in range(first, last + 1) for month in ("06", "11")]
    return [e for e in every if known[0] <= e <= known[-1]]


def absent_editions(editions: list[str]) -> list[str]:
    """The editions between the first and the last of `editions` that are not among them."""
    present = set(editions)
    return [e for e in edition_sequence(editions) if e not in present]


def absent_note(editions: list[str], what: str = "The graph holds no TOP500 list of") -> str:
    """'The graph holds no TOP500 list of 2022-11 and 2023-11: they are gaps in the chart, not zeros.'"""
    absent = absent_editions(editions)
    if not absent:
        return ""
    named = absent if len(absent) <= 6 else [*absent[:5], f"{len(absent) - 5} more"]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"{what} {listed}: {'it is a gap' if len(absent) == 1 else 'they are gaps'} in the chart, not zeros."


def edition_axis(editions: list[str]) -> dict:
    """The x encoding of an edition axis: every edition from the first to the last in order (an absent one a
    gap); a few labels, unrotated: each edition when there are few, else the June edition of every few
    years, labelled with its year."""
    domain = edition_sequence(editions)
    axis: dict = {"labelAngle": 0, "title": "Edition"}
    if len(domain) > 10:
        years = sorted({e[:4] for e in domain})
        step = max(1, math.ceil(len(years) / EDITION_LABELS))
        axis.update(values=[e for e in domain if e.endswith("-06") and (int(e[:4]) - int(years[0])) % step == 0],
                    labelExpr="slice(datum.value, 0, 4)", title="Edition (June of each year labelled)")
    return {"field": "edition", "type": "ordinal", "scale": {"domain": domain}, "axis": axis}


def segments(editions: list[str]) -> dict[str, int]:
    """Each edition's run of consecutive editions: a line drawn per run breaks at an absent edition."""
    present, run, runs = set(editions), 0, {}
    for edition in edition_sequence(editions):
        if edition in present:
            runs[edition] = run
        else:
            run += 1
    return runs


# A log axis of rates held in TFlop/s, labelled in the unit of each tick's magnitude.
RATE_LABELS = ("datum.value >= 1e6 ? format(datum.value / 1e6, '~g') + ' EFlop/s' : "
               "datum.value >= 1e3 ? format(datum.value / 1e3, '~g') + ' PFlop/s' : "
               "datum.value >= 1 ? format(datum.value, '~g') + ' TFlop/s' : "
               "datum.value >= 1e-3 ? format(datum.value * 1e3, '~g') + ' GFlop/s' : "
               "format(datum.value * 1e6, '~g') + ' MFlop/s'")


def performance_development(rows: list[dict[str, object]], query_url: str = "") -> Chart:
    """Sum, #1 and #500 of Rmax per edition on a log scale (the TOP500's 'performance development'); an
    edition the graph does not hold breaks the lines."""
    series = {"sum": "sumTflops", "#1": "firstTflops", "#500": "lastTflops"}
    editions = [str(row["edition"]) for row in rows]
    runs = segments(editions)
    values = [{"edition": row["edition"], "series": name, "tflops": row[key], "run": runs.get(str(row["edition"]))}
              for row in rows for name, key in series.items() if isinstance(row.get(key), int | float)]
    first, last = (rows[0], rows[-1]) if rows else ({}, {})
    note = absent_note(editions)
    alt = (f"Line chart, log scale: the sum of the Rmax of the TOP500 grew from {_rate(first.get('sumTflops'))} "
           f"in {first.get('edition')} to {_rate(last.get('sumTflops'))} in {last.get('edition')}; "
           f"number 1 from {_rate(first.get('firstTflops'))} to {_rate(last.get('firstTflops'))}; "
           f"number 500 from {_rate(first.get('lastTflops'))} to {_rate(last.get('lastTflops'))}."
           if rows else "No TOP500 edition is imported.")
    spec = {"width": WIDTH, "height": 320, "data": {"values": values}, "mark": {"type": "line", "point": True},
            "encoding": {"x": edition_axis(editions),
                         "y": {"field": "tflops", "type": "quantitative", "scale": {"type": "log"},
                               "axis": {"labelExpr": RATE_LABELS}, "title": "Rmax (log scale)"},
                         "color": {"field": "series", "type": "nominal", "title": None,
                                   "sort": list(series)},
                         "detail": {"field": "run", "type": "nominal"}}}
    table = [[str(row["edition"]), _rate(row.get("sumTflops")), _rate(row.get("firstTflops")),
              _rate(row.get("lastTflops"))] for row in rows]
    return Chart("performance-development", "Performance development: sum, #1 and #500 of Rmax", alt,
                 render_svg(spec, alt), ["Edition", "Sum of Rmax", "#1", "#500"], table, query_url, note)


def performance_share(rows: list[dict[str, object]], label: str, key: str, chart_id: str, title: str,
                      query_url: str = "") -> Chart:
    """Per edition, the share of the list's Rmax of each category (country, vendor parent) as stacked bars on
    an axis from 0 to 100 %: the largest categories of the last edition by name, the rest as 'others',
    stacked in one order in every bar (the largest over all editions at the bottom, 'others' on top)."""
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
    overall = {c: sum(v for (_, category), v in shares.items() if category == c) for c in named}
    categories = [*sorted(named, key=lambda c: -overall[c]), OTHERS]
    place = {c: i for i, c in enumerate(categories)}
    values = [{"edition": e, "category": c, "share": round(s, 2), "place": place[c]}
              for (e, c), s in sorted(shares.items(), key=lambda item: (item[0][0], place[item[0][1]]))]
    leaders = ", ".join(f"{c} {shares.get((editions[-1], c), 0):.1f} %" for c in named[:3]) if editions else ""
    note = absent_note(editions)
    alt = (f"Stacked bar chart of the share of Rmax per edition from {editions[0]} to {editions[-1]}; in "
           f"{editions[-1]} the largest are {leaders}." if editions else "No TOP500 edition is imported.")
    spec = {"width": WIDTH, "height": 320, "data": {"values": values}, "mark": "bar",
            "encoding": {"x": edition_axis(editions),
                         "y": {"field": "share", "type": "quantitative", "stack": "zero",
                               "scale": {"domain": [0, 100], "nice": False, "clamp": True},
                               "title": "Share of the list's Rmax (%)"},
                         "color": {"field": "category", "type": "nominal", "title": None, "sort": categories},
                         "order": {"field": "place", "type": "quantitative", "sort": "ascending"}}}
    table = [[e, *(f"{shares.get((e, c), 0):.1f}" for c in categories)] for e in editions]
    return Chart(chart_id, title, alt, render_svg(spec, alt), ["Edition", *(f"{c} (%)" for c in categories)],
                 table, query_url, note)


def system_history_spec(rows: list[dict[str, object]]) -> dict:
    """The Vega-Lite of a system's rank and Rmax over the TOP500 editions it was listed in (rank axis reversed:
    1 on top); it names no system, so it can be drawn before the page has read the system's name."""
    editions = [str(row["edition"]) for row in rows]
    runs = segments(editions)
    values = [{"edition": row["edition"], "rank": row.get("rank"), "rmax": row.get("rmaxTflops"),
               "run": runs.get(str(row["edition"]))} for row in rows]
    scale = numbers.column_unit([row.get("rmaxTflops") for row in rows], "TFlop/s")
    x = edition_axis(editions)
    run = {"field": "run", "type": "nominal"}  # an edition the system was not listed in breaks the line
    return {"data": {"values": values}, "vconcat": [
        {"width": WIDTH, "height": 140, "mark": {"type": "line", "point": True},
         "encoding": {"x": x, "detail": run, "y": {"field": "rank", "type": "quantitative",
                                                   "scale": {"reverse": True, "zero": False}, "title": "Rank"}}},
        {"width": WIDTH, "height": 140, "mark": {"type": "line", "point": True, "color": "#d9711c"},
         "transform": [{"calculate": f"datum.rmax / {1000 ** scale.steps}", "as": "shown"}],
         "encoding": {"x": x, "detail": run,
                      "y": {"field": "shown", "type": "quantitative", "title": f"Rmax ({scale.unit})"}}}]}


def system_history(rows: list[dict[str, object]], name: str, *, src: str, query_url: str = "",
                   imported: list[str] | None = None) -> Chart:
    """A system's rank and Rmax over the TOP500 editions it was listed in; src: the URL of its image
    (system_history_spec(rows) drawn on its own request, standalone). `imported` (the store's editions,
    YYYY-MM) lets the text name the lists of the system's span that the imports lack."""
    best = min(rows, key=lambda row: row.get("rank") or 10**9) if rows else {}
    span = span_text([str(row["edition"])[:7] for row in rows], imported or [])
    alt = (f"{name} was {span}; best rank {best.get('rank')} in {best.get('edition')}; "
           f"Rmax {_rate(rows[-1].get('rmaxTflops'))} in {rows[-1]['edition']}.")
    scale = numbers.column_unit([row.get("rmaxTflops") for row in rows], "TFlop/s")
    table = [[str(row["edition"]), _number(row.get("rank")), scale.text(row.get("rmaxTflops")),
              str(row.get("rmaxTier") or "")] for row in rows]
    note = absent_note([str(row["edition"]) for row in rows], "Not listed in")
    return Chart("system-history", f"{name} in the TOP500: rank and Rmax per edition", alt, Markup(""),
                 ["Edition", "Rank", scale.heading("Rmax"), "Tier"], table, query_url, note, src)


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
    place = {c: i for i, c in enumerate(categories)}  # one stacking order in every bar: the largest at the bottom
    values = [{"year": y, "category": c, "tier": t, "accelerators": v, "place": place[c] * 2 + (t == LEAD)}
              for (y, c, t), v in cells.items()]
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
            "encoding": {"x": {"field": "year", "type": "ordinal", "title": "Year", "axis": {"labelAngle": 0}},
                         "y": {"field": "accelerators", "type": "quantitative", "stack": "zero",
                               "title": "AI accelerators (cumulative)"},
                         "color": {"field": "category", "type": "nominal", "title": heading, "sort": categories},
                         "opacity": {"field": "tier", "type": "nominal", "title": "Tier of the count",
                                     "scale": {"domain": [SURER, LEAD], "range": [1, 0.35]}},
                         "order": {"field": "place", "type": "quantitative", "sort": "ascending"},
                         "tooltip": [{"field": "year"}, {"field": "category"}, {"field": "tier"},
                                     {"field": "accelerators", "format": ","}]}}
    table = [[y, *(_number(sum(v for (year, c, _), v in cells.items() if year == y and c == cat))
                   for cat in categories), _number(total[y]), _number(lead[y])] for y in years]
    return Chart(chart_id, title, alt, render_svg(spec, alt), ["Year", *categories, "Total", "Of which lead"],
                 table, query_url)
