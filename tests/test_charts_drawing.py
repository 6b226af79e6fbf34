"""Charts people can read (issue 35), drawn by vl-convert from rows shaped as the canned queries answer
them: text of 13 px or more in the page's own colour on no background (dark mode), a few unrotated edition
labels, a share axis from 0 to 100 %, one stacking order in every bar, absent editions as gaps said in words."""

from __future__ import annotations

import re
from collections import defaultdict

from hpckg.serve import charts

# Two editions the files lack (2022-11 and 2023-11) between ones they have, as on the full import.
EDITIONS = ["2021-06", "2021-11", "2022-06", "2023-06", "2024-06", "2024-11", "2025-06"]


def development_rows(editions: list[str]) -> list[dict[str, object]]:
    return [{"edition": e, "sumTflops": 4000000.0 + 1000 * i, "firstTflops": 1000000.0 + i, "lastTflops": 2000.0 + i}
            for i, e in enumerate(editions)]


def share_rows(editions: list[str]) -> list[dict[str, object]]:
    """Per edition, three countries whose order by share changes from one edition to the next."""
    rows = []
    for i, edition in enumerate(editions):
        # Rounded per country, an edition's shares can add up to a little over 100 (100.3 here).
        shares = {"US": 50.0, "JP": 30.0 - 3 * i, "DE": 20.0 + 3 * i} if i % 2 else {"US": 40.1, "JP": 45.1, "DE": 15.1}
        rows += [{"edition": edition, "countryLabel": c, "country": c, "sharePercent": s} for c, s in shares.items()]
    return rows


def font_sizes(svg: str) -> list[float]:
    return [float(size) for size in re.findall(r'font-size="([\d.]+)px"', svg)]


def test_chart_text_is_readable_and_follows_the_colour_scheme():
    chart = charts.performance_development(development_rows(EDITIONS))
    sizes = font_sizes(chart.svg)
    assert sizes and min(sizes) >= 13, sizes
    assert 'fill="white"' not in chart.svg and 'fill="#fff"' not in chart.svg  # no white box in dark mode
    assert 'fill="currentColor"' in chart.svg  # labels in the colour of the text around the chart


def test_absent_editions_are_gaps_said_in_words():
    chart = charts.performance_development(development_rows(EDITIONS))
    assert "2022-11 and 2023-11" in chart.note and "gaps" in chart.note
    # The #1's line breaks at each absent edition: three runs (2021-06..2022-06, 2023-06, 2024-06..2025-06),
    # the middle one a single point and so no line.
    paths = re.findall(r'<path[^>]* d="(M[^"]*)"[^>]*stroke="#f58518"', chart.svg)
    lines = [d for d in paths if "L" in d]
    assert len(lines) == 2 and all(d.count("L") == 2 for d in lines), paths
    complete = charts.performance_development(development_rows(["2024-06", "2024-11", "2025-06"]))
    assert complete.note == ""


def test_edition_labels_are_thinned_over_thirty_years():
    editions = [f"{y}-{m}" for y in range(1993, 2026) for m in ("06", "11")]
    axis = charts.edition_axis(editions)["axis"]
    assert axis["labelAngle"] == 0 and len(axis["values"]) <= charts.EDITION_LABELS
    assert charts.edition_axis(["2024-11", "2025-06"])["axis"].get("values") is None  # few: each labelled


def test_the_share_axis_runs_to_100_and_the_stack_order_is_one_for_every_bar():
    chart = charts.performance_share(share_rows(EDITIONS), "countryLabel", "country", "share", "Share")
    ticks = [float(t) for t in re.findall(r'<text[^>]*>(\d+)</text>', chart.svg)]
    assert max(ticks) == 100, ticks
    # Each bar's rectangles from the bottom up: the same order of colours in every edition.
    bars: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for x, y, fill in re.findall(r'<path [^>]*d="M([\d.]+),([\d.]+)h[^"]*"[^>]*fill="(#[0-9a-f]{6})"', chart.svg):
        bars[x].append((-float(y), fill))
    orders = {tuple(fill for _, fill in sorted(rects)) for rects in bars.values() if len(rects) == 3}
    assert len(bars) == len(EDITIONS) and len(orders) == 1, orders
