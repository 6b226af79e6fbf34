"""The website in a real browser (Debian's Chromium, headless, JavaScript on but never needed) over a live
`hpckg serve` of a store with real TOP500 and Epoch AI imports: search to a system page, list sorting and
paging, the charts with their data tables, the tier switch changing the totals, a page at phone width, and
accessibility checks of each page type. Screenshots go to test-artifacts/website/ (printed).

Accessibility: tests/test_browser_axe.py runs axe-core's WCAG 2.1 A/AA rules on every page type, light and
dark. These are the checks it does not make, on the rendered DOM: one <main>, a <header> and <nav>
landmark, one h1 and no skipped heading level (axe files these under best practice, not WCAG), the page's
language English, every chart an image with a text alternative of some length (axe asks only for a name);
and the contrast of every text colour of the stylesheet against its background, light and dark, at least
4.5:1 (WCAG AA), including colours no tested page happens to show. The checks that every <img> has alt and
every form control a label were removed: axe's image-alt and label rules make them on the rendered page."""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path

import pytest

from hpckg.serve import charts, urls

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"
DESKTOP, PHONE = "1280,1800", "390,1600"

pytestmark = [pytest.mark.browser, pytest.mark.imports]


@pytest.fixture(scope="module")
def server(browser, website_server):
    print(f"\nscreenshots of the website tests: {ARTIFACTS}")
    return website_server


@pytest.fixture
def browse(browser):
    def load(url: str, screenshot: str, size: str = DESKTOP) -> str:
        """The DOM Chromium renders for a URL, and a PNG of it under test-artifacts/website/."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        dom = browser.browse(url, ARTIFACTS / screenshot, size)
        assert (ARTIFACTS / screenshot).stat().st_size > 10_000
        return dom

    return load


def visible(dom: str) -> str:
    dom = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<svg.*?</svg>", " ", dom)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom)))


def link_after(dom: str, pattern: str) -> str:
    return html.unescape(re.search(pattern, dom, re.S).group(1))


def test_search_to_a_system_page(server, browse):
    home = browse(server.url + urls.home(), "home.png")
    action = link_after(home, r'<form class="search" role="search" method="get" action="([^"]+)"')
    # Submitting the box is a GET of its action with q=...: what the browser does without any script.
    results = browse(server.url + action + "?" + urllib.parse.urlencode({"q": "frontier"}), "search-frontier.png")
    assert "Frontier" in visible(results) and "system" in visible(results)
    first = link_after(results, r'<ol class="search-results">\s*<li><a href="([^"]+)"')
    assert first == urls.page("system", "top500-180047")
    page = browse(server.url + first, "system-frontier.png")
    assert "Frontier" in visible(page)
    assert re.search(r'<figure class="chart" id="system-history">.*?<img src="[^"]+/history.svg" '
                     r'alt="Frontier was listed', page, re.S)
    assert '<table class="chart-table" id="system-history-data">' in page


def test_list_sorting_and_paging(server, browse):
    edition = browse(server.url + urls.top500_list("2025-06"), "top500-2025-06.png")
    assert "El Capitan" in visible(edition) and "page 1 of 5" in visible(edition)
    # Click the Rmax heading twice (ascending sort), then "next": links, no script.
    rmax = link_after(edition, r'<th scope="col"[^>]*><a href="([^"]+)">Rmax')
    descending = browse(server.url + rmax, "top500-by-rmax.png")
    rmax = link_after(descending, r'<th scope="col"[^>]*><a href="([^"]+)">Rmax')
    ascending = browse(server.url + rmax, "top500-by-rmax-ascending.png")
    following = link_after(ascending, r'<a rel="next" href="([^"]+)"')
    second = browse(server.url + following, "top500-by-rmax-page-2.png")
    assert "page 2 of 5" in visible(second)
    cells = re.findall(r'<tr><td class="num">(\d+)</td>', second)
    assert len(cells) == 100 and "El Capitan" not in visible(second)
    assert 'aria-sort="ascending"' in second


def test_each_chart_is_drawn_with_its_data_table(server, browse):
    page = browse(server.url + urls.charts(), "charts.png")
    for chart in ("performance-development", "share-by-country", "share-by-vendor"):
        assert re.search(rf'<figure class="chart" id="{chart}">.*?<svg role="img" aria-label="[^"]+".*?'
                         rf'<table class="chart-table" id="{chart}-data">.*?<td>2025-06</td>', page, re.S), chart


def test_the_tier_switch_changes_the_totals(server, browse):
    every = visible(browse(server.url + urls.epoch_clusters(), "epoch-clusters.png"))
    reported = visible(browse(server.url + urls.epoch_clusters(params={"tier": "reported"}),
                              "epoch-clusters-reported.png"))
    total = re.compile(r"(\d[\d,]*) of (\d[\d,]*) rows.*?Accelerators: ([\d,]+) ?, of which lead: ([\d,]+)")
    all_rows, _, all_total, all_lead = total.search(every).groups()
    some_rows, _, some_total, some_lead = total.search(reported).groups()
    assert int(some_rows.replace(",", "")) < int(all_rows.replace(",", ""))
    assert int(some_total.replace(",", "")) == int(all_total.replace(",", "")) - int(all_lead.replace(",", ""))
    assert some_lead == "0" and all_lead != "0"


def test_the_epoch_charts_and_their_tier_switch(server, browse):
    """Epoch AI's accelerators over time, drawn with their data tables; ?tier=reported (the charts page's tier
    switch, a GET form) leaves the lead counts out: the last year's total drops by its lead part."""
    def last_row(dom: str, chart_id: str) -> list[str]:
        table = re.search(rf'<table class="chart-table" id="{chart_id}-data">(.*?)</table>', dom, re.S).group(1)
        rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
        return [html.unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", rows[-1])]

    tall = "1280,6400"  # the whole page, the Epoch charts at its end
    every = browse(server.url + urls.charts(), "charts-epoch.png", tall)
    reported = browse(server.url + urls.charts() + "?tier=reported", "charts-epoch-reported.png", tall)
    assert 'name="tier" value="reported" checked' in reported.replace('checked=""', "checked")
    for chart_id in ("accelerators-by-country", "accelerators-by-owner"):
        chart = re.search(rf'<figure class="chart" id="{chart_id}">(.*?)</figure>', every, re.S).group(1)
        assert re.search(r'<svg [^>]*role="img"[^>]*aria-label="Stacked bar chart of the cumulative', chart)
        *_, total, lead = map(lambda c: int(c.replace(",", "")), last_row(every, chart_id))
        *_, reported_total, reported_lead = map(lambda c: int(c.replace(",", "")), last_row(reported, chart_id))
        assert lead > 0 and reported_lead == 0 and reported_total == total - lead


def test_a_list_and_a_system_page_at_phone_width(server, browse):
    page = browse(server.url + urls.top500_list("2025-06"), "phone-top500.png", PHONE)
    assert '<div class="table-scroll">' in page  # the wide table scrolls inside, the page does not
    browse(server.url + urls.page("system", "top500-180307"), "phone-system.png", PHONE)
    browse(server.url + urls.charts(), "phone-charts.png", PHONE)


PAGE_TYPES = {
    "home": urls.home(), "system": urls.page("system", "top500-180307"), "site": urls.page("site", "acme"),
    "lists": urls.lists(), "list": urls.top500_list("2024-11"), "epoch": urls.epoch_clusters(),
    "search": urls.search("jupiter"), "charts": urls.charts(),
    "compare": urls.compare(["top500-180307", "top500-180047"]), "compare-choose": urls.compare(),
    "sites": urls.entity_list("sites"), "organisations": urls.entity_list("organisations"),
    "parts": urls.entity_list("parts"), "contribute": urls.contribute(),
}


@pytest.mark.parametrize("kind", PAGE_TYPES)
def test_accessibility_of_each_page_type(server, browse, kind):
    dom = browse(server.url + PAGE_TYPES[kind], f"a11y-{kind}.png")
    assert re.search(r'<html lang="en"', dom)
    assert len(re.findall(r"<main[\s>]", dom)) == 1 and re.search(r"<header[\s>]", dom) and "<nav" in dom
    levels = [int(level) for level in re.findall(r"<h([1-6])[\s>]", dom)]
    assert levels.count(1) == 1 and levels[0] == 1, levels
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), f"a heading level is skipped: {levels}"
    for svg in re.findall(r"<svg [^>]*>", dom):
        assert 'role="img"' in svg and re.search(r'aria-label="[^"]{20,}"', svg), svg[:200]


def luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_text_colours_contrast_with_their_backgrounds_light_and_dark():
    layout = (Path(__file__).resolve().parents[1] / "src" / "hpckg" / "templates" / "layout.html").read_text()
    light = re.search(r"body \{[^}]*color: (#[0-9a-f]+); background: (#[0-9a-f]+)", layout).groups()
    dark_block = layout[layout.index("prefers-color-scheme: dark"):]
    dark = re.search(r"body \{ color: (#[0-9a-f]+); background: (#[0-9a-f]+)", dark_block).groups()
    # a chart served as an image carries the page's text colours itself (charts.standalone)
    assert (charts.PAGE_INK, charts.PAGE_INK_DARK) == (light[0], dark[0])
    light_texts = ["#0b5cad", "#176b2c", "#8a5a00", "#a3262d", "#666", "#555", "#5c4400"]
    dark_texts = re.findall(r"(?<![-\w])color: (#[0-9a-f]{3,6})", dark_block.split("}\n}")[0])
    for text in [light[0], *light_texts]:
        assert contrast(text, light[1]) >= 4.5, (text, light[1])
    for text in [dark[0], *dark_texts]:
        assert contrast(text, dark[1]) >= 4.5, (text, dark[1])
    assert contrast("#5c4400", "#fff3cd") >= 4.5  # the lead badge


def test_from_search_to_comparing_two_systems(server, browse):
    # Search from the box on every page, then "add to compare" and the compare page's own search: links and
    # GET forms only, no IRI typed.
    results = browse(server.url + urls.search("frontier"), "compare-search-frontier.png")
    add = link_after(results, r'<a class="add" href="([^"]+)">add to compare</a>')
    one = browse(server.url + add, "compare-one-system.png")
    assert "Only one system chosen" in visible(one) and "Frontier" in visible(one)
    form = re.search(r'<form method="get" action="([^"]+)" class="compare-search".*?</form>', one, re.S)
    hidden = re.findall(r'<input type="hidden" name="system" value="([^"]+)">', form.group(0))
    query = urllib.parse.urlencode([("system", s) for s in hidden] + [("q", "el capitan")])
    found = browse(server.url + html.unescape(form.group(1)) + "?" + query, "compare-find.png")
    both = browse(server.url + link_after(found, r'<a class="add" href="([^"]+)">add to compare</a>'),
                  "compare-frontier-el-capitan.png")
    text = visible(both)
    assert "Frontier" in text and "El Capitan" in text and "Rmax (TFlop/s)" in text
    assert re.search(r'<th scope="col"><a href="/page/system/top500-180047">Frontier</a></th>', both)
    assert re.search(r'<figure class="chart" id="compare-history">.*?<img src="/compare.svg\?[^"]+" alt="Line charts',
                     both, re.S)
    assert '<table class="chart-table" id="compare-history-data">' in both
    browse(server.url + link_after(found, r'<a class="add" href="([^"]+)">add to compare</a>'), "phone-compare.png",
           PHONE)


def test_sorting_and_paging_a_sites_list(server, browse):
    sites = browse(server.url + urls.entity_list("sites", params={"per": "25"}), "sites.png")
    assert 'aria-sort="descending"' in sites and "page 1 of" in visible(sites)
    # Click the Site heading (sort by name), then "next".
    by_name = browse(server.url + link_after(sites, r'<th scope="col"[^>]*><a href="([^"]+)">Site'),
                     "sites-by-name.png")
    following = browse(server.url + link_after(by_name, r'<a rel="next" href="([^"]+)"'), "sites-by-name-page-2.png")
    assert "page 2 of" in visible(following) and 'aria-sort="ascending"' in following
    names = [html.unescape(n) for n in re.findall(r'<tr><td><a href="/page/site/[^"]+">([^<]+)</a>', following)]
    assert len(names) == 25 and [n.casefold() for n in names] == sorted(n.casefold() for n in names)
