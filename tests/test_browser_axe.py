"""axe-core, the accessibility engine (vendored in tests/vendor/axe-core/, pinned and checked by SHA-256), run
in a real browser (Debian's Chromium, headless, driven over the DevTools pipe: tests/chromium.py) on one page
of every page type the website has, over a live `hpckg serve` of a store with real TOP500 and Epoch AI
imports, in the light and in the dark colour scheme (prefers-color-scheme emulated). axe runs its WCAG 2.0
and 2.1 level A and AA rules (a way to bypass the repeated header, a title and a language, names of links,
buttons, images, charts and form controls, table headers and cells, lists, ARIA use, duplicate ids, the
contrast of the text as rendered...) and the test asserts it finds no violation; a failure lists each rule,
its impact, the elements and what to do.

The script is given to the page by DevTools' Runtime.evaluate, which the page's Content-Security-Policy does
not govern: the pages are checked with the policy they are served with. Screenshots of each page, light and
dark, go to test-artifacts/website/axe-*.png: of the window, or of the whole page for a page that fails and for
every page with HPCKG_SCREENSHOTS=1 (full-page PNGs of the long list pages took a quarter of this module's time).

tests/test_browser_website.py keeps the checks axe's WCAG rules do not make (one <main>, header and nav
landmarks, one h1 and no skipped heading level: axe files these under best practice; each chart's text
alternative long enough to say something; the stylesheet's colours that no tested page shows); its checks
that every <img> has alt and every form control a label were removed there, axe's image-alt and label rules
make them on the rendered page, with every way of naming an element HTML allows."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from chromium import Browser
from hpckg.serve import urls

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"  # README.md there: how to update
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FRONTIER = Path(__file__).parent / "contributions" / "good" / "frontier.ttl"
SYSTEM = "top500-180307"
SIZE = "1280,1600"
PHONE = "390,844"
FULL_PAGE_SCREENSHOTS = os.environ.get("HPCKG_SCREENSHOTS") == "1"

pytestmark = [pytest.mark.browser, pytest.mark.imports]

# The list pages at their smallest page size: every row is the same template, and axe's time grows with the
# rows (the contrast of each cell's text, in two colour schemes): at the default 100 rows the five lists took
# 59 of this module's 175 s. Their paging and sizes are tested in Chromium by tests/test_browser_website.py.
FIRST_ROWS = {"per": "25"}

# One page of each type, by the URL builder; the entity kinds without a fixed example are the first ones a
# page links to, found in the fixture below (the source from the claim page, so in that order).
PAGES = {
    "home": urls.home(),
    "system": urls.page("system", SYSTEM),
    "site": urls.page("site", "acme"),
    "search": urls.search("jupiter"),
    "search-nothing": urls.search("no such machine anywhere"),
    "lists": urls.lists(),  # also the page of urls.top500_editions(): the same template and content
    "top500-list": urls.top500_list("2025-06", params=FIRST_ROWS),
    "epoch-clusters": urls.epoch_clusters(params=FIRST_ROWS),
    "sites": urls.entity_list("sites", params=FIRST_ROWS),
    "organisations": urls.entity_list("organisations", params=FIRST_ROWS),
    "parts": urls.entity_list("parts", params=FIRST_ROWS),
    "compare": urls.compare([SYSTEM, "top500-180047"]),
    "compare-choose": urls.compare(),
    "charts": urls.charts(),
    "statistics": urls.statistics(),
    "edition-statistics": urls.edition_statistics("2025-06"),
    "statistics-table": urls.statistics_table("2025-06", "green500"),
    "statistics-over-time": urls.statistics_trend("vendor-parent"),
    "absent-edition": urls.top500_list("2022-11"),
    "query-editor": urls.query_editor("SELECT ?system ?name WHERE { ?system a hpc:System ; hpc:name ?name } LIMIT 5"),
    "queries": urls.queries(),
    "canned-query": urls.canned("accelerators-by-country"),
    "vocab": urls.vocab(),
    "contribute": urls.contribute(),
    "error": urls.page("system", "no-such-system"),
}
LINKED = {"organisation": ("organisations", "/page/org/"), "part": ("system", "/page/part/"),
          "claim": ("system", "/page/claim/"), "source": ("claim", "/page/source/"),
          "country": ("system", "/page/country/")}
KINDS = [*PAGES, *LINKED, "contribute-review"]


@pytest.fixture(scope="module")
def server(browser, website_server):
    print(f"\nscreenshots of the axe tests: {ARTIFACTS}/axe-*.png")
    return website_server


@pytest.fixture(scope="module")
def axe_script() -> str:
    script = AXE.read_bytes()
    assert hashlib.sha256(script).hexdigest() == AXE_SHA256, f"{AXE} is not the vendored axe-core"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return script.decode("utf-8")


@pytest.fixture(scope="module")
def linked(server, browser: Browser) -> dict[str, str]:
    """The first organisation, part, claim, source and country page that a list or page links to."""
    found: dict[str, str] = {}
    with browser.tab(SIZE):
        for kind, (page, prefix) in LINKED.items():
            browser.navigate(server.url + (PAGES.get(page) or found[page]))
            href = browser.evaluate(f"document.querySelector('main a[href^=\"{prefix}\"]')?.getAttribute('href')")
            assert href, f"the {page} page links to no {kind} page"
            found[kind] = str(href)
    return found


def violations(browser: Browser, axe_script: str) -> list[dict]:
    """axe's WCAG 2.1 A/AA violations on the page the browser shows."""
    if not browser.evaluate("typeof axe !== 'undefined'"):
        browser.evaluate(axe_script)
    options = {"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]}
    return list(browser.evaluate(  # type: ignore[arg-type]
        f"axe.run(document, {json.dumps(options)}).then(r => r.violations.map(v => ({{"
        "id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,"
        "nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))})))",
        await_promise=True))


def report(found: dict[str, list[dict]]) -> str:
    lines = []
    for scheme, rules in found.items():
        for rule in rules:
            lines.append(f"[{scheme}] {rule['id']} ({rule['impact']}): {rule['help']} <{rule['url']}>")
            for node in rule["nodes"][:8]:
                lines.append(f"    {node['target']}: {node['summary'].splitlines()[-1].strip()}")
            if len(rule["nodes"]) > 8:
                lines.append(f"    ... and {len(rule['nodes']) - 8} more")
    return "\n".join(lines)


@pytest.mark.parametrize("kind", KINDS)
def test_axe_finds_no_wcag_violation(server, browser: Browser, axe_script, linked, kind):
    found = {}
    with browser.tab(SIZE, scheme="light"):
        if kind == "contribute-review":  # the answer to a pasted draft: its review and the page it defines
            browser.navigate(server.url + urls.contribute())
            browser.evaluate("document.getElementById('draft-turtle').focus()")
            browser.send("Input.insertText", text=FRONTIER.read_text(encoding="utf-8"))
            browser.evaluate("document.querySelector('form.contribute button[type=submit]').click()")
            browser.wait_for("document.getElementById('review')")
        else:
            browser.navigate(server.url + (PAGES.get(kind) or linked[kind]))
        assert browser.evaluate("document.querySelector('main') !== null"), f"{kind}: not one of the site's pages"
        for scheme in ("light", "dark"):
            browser.color_scheme(scheme)
            assert browser.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
            found[scheme] = violations(browser, axe_script)
            browser.screenshot(ARTIFACTS / f"axe-{kind}-{scheme}.png",
                               full_page=bool(found[scheme]) or FULL_PAGE_SCREENSHOTS)
    if any(found.values()):
        pytest.fail(f"axe finds WCAG 2.1 A/AA violations on the {kind} page:\n" + report(found), pytrace=False)


# The entity pages again at a phone's width (light scheme): their wide tables scroll in their own box.
PHONE_KINDS = ["system", "site", "organisation", "part", "country"]


@pytest.mark.parametrize("kind", PHONE_KINDS)
def test_axe_finds_no_wcag_violation_at_phone_width(server, browser: Browser, axe_script, linked, kind):
    with browser.tab(PHONE, scheme="light"):
        browser.navigate(server.url + (PAGES.get(kind) or linked[kind]))
        found = {"phone": violations(browser, axe_script)}
        browser.screenshot(ARTIFACTS / f"axe-{kind}-phone.png",
                           full_page=bool(found["phone"]) or FULL_PAGE_SCREENSHOTS)
    if any(found.values()):
        pytest.fail(f"axe finds WCAG 2.1 A/AA violations on the {kind} page at phone width:\n" + report(found),
                    pytrace=False)
