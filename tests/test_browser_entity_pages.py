"""Every kind of entity page in Chromium, at desktop and phone width, over a live `hpckg serve` of the website's
store (issue 35): a system page leads with its name, standing and history chart and folds its timeline; a
site, organisation, part and country page shows its systems as a table; nothing is wider than a phone's
screen but what scrolls inside its own box. Screenshots go to test-artifacts/website/entity-*.png (the ones
of the full import, kept in docs/screenshots/, are taken the same way)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chromium import Browser
from hpckg.serve import urls

pytestmark = [pytest.mark.browser, pytest.mark.imports]

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"
DESKTOP, PHONE = "1280,1400", "390,844"
PAGES = {
    "system": urls.page("system", "top500-180307"),
    "system-curated": urls.page("system", "kalos"),
    "system-epoch": urls.page("system", "epoch-xai-colossus-memphis-phase-1"),
    "site": urls.page("site", "acme"),
    "organisation": urls.page("org", "nvidia"),
    "part": urls.page("part", "nvidia-a100-sxm4-80gb"),
    "country": urls.page("country", "US"),
}
WITH_SYSTEMS = ("site", "organisation", "part", "country")


@pytest.fixture(scope="module")
def server(browser, website_server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return website_server


def top(browser: Browser, selector: str) -> float | None:
    """Where the first element matching `selector` starts, in CSS pixels from the top of the page."""
    value = browser.evaluate(f"(e => e ? e.getBoundingClientRect().top + scrollY : null)"
                             f"(document.querySelector({selector!r}))")
    return None if value is None else float(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", PAGES)
def test_entity_page_in_chromium(server, browser: Browser, kind):
    for size, width in ((DESKTOP, "desktop"), (PHONE, "phone")):
        with browser.tab(size):
            browser.navigate(server.url + PAGES[kind])
            browser.screenshot(ARTIFACTS / f"entity-{kind}-{width}.png", full_page=True)
            heading = str(browser.evaluate("document.querySelector('h1').textContent")).strip()
            assert heading and not heading.startswith("TOP500 system"), heading
            # nothing wider than the window but the boxes that scroll on their own (wide tables)
            overflow = browser.evaluate(
                "[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > "
                "innerWidth + 1 && !e.closest('.table-scroll, .chart-svg, pre, code')).map(e => e.tagName + "
                "'.' + e.className).slice(0, 5)")
            assert overflow == [], (kind, width, overflow)
            if kind == "system":
                chart, performance = top(browser, "figure.chart"), top(browser, "#performance")
                assert chart is not None and performance is not None and chart < performance, \
                    "the history chart comes before the per-figure detail"
                assert browser.evaluate("document.querySelector('details.timeline').open") is False
                assert top(browser, "p.standing") is not None
            if kind == "system-epoch":
                values = browser.evaluate("[...document.querySelectorAll("
                                          "'section[aria-labelledby=performance] tbody tr td:nth-child(2)')]"
                                          ".map(td => td.textContent.trim())")
                assert values and "-" not in values, values  # only the claimed figure, no row of '-'

            if kind in WITH_SYSTEMS:
                rows = browser.evaluate("document.querySelectorAll('table.systems tbody tr').length")
                assert isinstance(rows, int) and rows > 0, kind
