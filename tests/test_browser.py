"""A real browser (Debian's Chromium, headless) over a live `hpckg serve`: the home page, a system page,
a site page, and a canned query run from the home page's form. Screenshots go to test-artifacts/."""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path

import pytest

from hpckg.serve import urls
from serve_live import serve_store, start_server

from conftest import require_chromium

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


pytestmark = pytest.mark.browser


def chromium() -> str:
    return require_chromium()


@pytest.fixture(scope="module")
def server():
    chromium()  # skip (or, under CI, fail) before starting a server when there is no browser
    live = start_server(serve_store(), "--workers", "2", "--rate-limit", "0")
    yield live
    live.stop()


@pytest.fixture
def browse(browser):
    def load(url: str, screenshot: str) -> str:
        """The DOM Chromium renders for a URL (after scripts ran), and a PNG of it under test-artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        dom = browser.browse(url, ARTIFACTS / screenshot, "1280,1800")
        assert (ARTIFACTS / screenshot).stat().st_size > 0
        return dom

    return load


def visible(dom: str) -> str:
    dom = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", " ", dom)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom)))


def test_home_system_site_and_a_canned_query_in_chromium(server, browse):
    home = browse(server.url + urls.home(), "home.png")
    assert "hpckg: supercomputers and AI clusters" in visible(home)
    assert re.search(r"[1-9][\d,]* machines at", visible(home))

    kalos = browse(server.url + urls.page("system", "kalos"), "system-kalos.png")
    assert "Kalos (Shanghai AI Lab)" in visible(kalos) and "2,416" in visible(kalos)
    assert '<script type="application/ld+json">' in kalos

    acme = browse(server.url + urls.page("site", "acme"), "site-acme.png")
    assert "Accelerators: 4,704" in visible(acme)
    assert "weakest tier of the inputs: reported" in visible(acme)

    # Run the canned query the way the queries page's Run button does: a GET form with no fields submits
    # to its action URL.
    queries = browse(server.url + urls.queries(), "queries.png")
    action = re.search(r'<form method="get" action="([^"]*acme-total)"', queries)
    assert action, "the queries page has no Run form for acme-total"
    target = urllib.parse.urljoin(server.url + "/", html.unescape(action.group(1)))
    results = browse(target, "query-acme-total.png")
    table = re.search(r'<table class="results">(.*?)</table>', results, re.S)
    assert table and ("4704" in table.group(1) or "4,704" in table.group(1))
    assert f'href="{urls.canned("acme-total", "csv")}"' in results
