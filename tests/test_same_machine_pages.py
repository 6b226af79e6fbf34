"""One machine, one page (hpckg.page.machine), over the website's store (TOP500 2024-11 and 2025-06 with Epoch
AI's clusters): JUPITER's Epoch AI row cites its top500.org page, so the two records are one machine at tier
reported. The TOP500 record's page shows what Epoch AI says, each claim with its tier and source; the Epoch
record's page points to it; search and the lists show the machine once, "also in Epoch AI as …". Frontier's
link is a name match, a lead: "may be the same machine as", and nothing more."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import stores
from hpckg.page import render_markdown, system_page
from hpckg.serve import urls
from hpckg.store import Store

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}
SYS = "https://w3id.org/hpckg/id/system/"
JUPITER, JUPITER_EPOCH = "top500-180357", "epoch-jupiter-julich"
FRONTIER, FRONTIER_EPOCH = "top500-180047", "epoch-oak-ridge-nl-frontier"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"


@pytest.fixture(scope="module")
def web(website_client):
    return website_client


def text_of(page: str) -> str:
    page = re.sub(r"(?s)<(style|script)[^>]*>.*?</\1>", "", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def section(page: str, slug: str) -> str:
    found = re.search(rf'(?s)<section aria-labelledby="{re.escape(slug)}">(.*?)</section>', page)
    assert found, f"no section {slug}"
    return found.group(1)


def test_the_machines_page_shows_what_the_other_dataset_says_each_claim_with_its_source(web):
    page = web.get(urls.page("system", JUPITER), headers=HTML).text
    also = re.search(r'(?s)<p class="also-in">(.*?)</p>', page)
    assert also, "JUPITER's page does not name its Epoch AI record"
    assert f'href="{urls.page("system", JUPITER_EPOCH)}"' in also.group(1)
    line = text_of(also.group(1))
    assert line.startswith("Also in Epoch AI as") and "reported" in line and "dataset cites the record" in line
    assert "top500.org/system/180357" in line  # the note names the page the row cites
    epoch = section(page, f"also-{JUPITER_EPOCH}")
    # Epoch's own figures, from its row: the accelerator and its count, each with its tier and source
    epoch_text = text_of(epoch)
    assert "What Epoch AI says" in text_of(page) and "accelerator" in epoch_text.lower()
    assert "GH200" in epoch_text, epoch_text[:500]
    assert 'class="badge tier-' in epoch and "<a href=" in epoch


def test_the_other_records_page_points_to_the_machines_page(web):
    page = web.get(urls.page("system", JUPITER_EPOCH), headers=HTML).text
    pointer = re.search(r'(?s)<p class="machine-page">(.*?)</p>', page)
    assert pointer and f'href="{urls.page("system", JUPITER)}"' in pointer.group(1)
    assert "What TOP500 says" not in text_of(page)  # its page does not repeat the machine's


def test_a_lead_only_says_may_be_the_same_machine(web):
    page = web.get(urls.page("system", FRONTIER), headers=HTML).text
    may_be = re.search(r'(?s)<p class="may-be">(.*?)</p>', page)
    assert may_be, "Frontier's page does not show its lead"
    assert text_of(may_be.group(1)).startswith("May be the same machine as")
    assert f'href="{urls.page("system", FRONTIER_EPOCH)}"' in may_be.group(1)
    assert 'class="also-in"' not in page and "What Epoch AI says" not in text_of(page)
    assert 'class="machine-page"' not in web.get(urls.page("system", FRONTIER_EPOCH), headers=HTML).text


def test_search_shows_the_machine_once_with_its_other_record(web):
    results = web.get(urls.search("jupiter julich", "json") + "&limit=50").json()["results"]
    systems = [r["iri"].rsplit("/", 1)[-1] for r in results if r["type"] == "system"]
    assert JUPITER in systems and JUPITER_EPOCH not in systems, systems
    [jupiter] = [r for r in results if r["iri"] == SYS + JUPITER]
    assert any(also.startswith("Epoch AI as ") for also in jupiter["also"]), jupiter
    page = web.get(urls.search("jupiter julich"), headers=HTML).text
    assert "also in Epoch AI as" in text_of(page)
    # a lead does not merge: Frontier's Epoch record is still found on its own
    frontier = [r["iri"].rsplit("/", 1)[-1] for r in web.get(urls.search("frontier", "json") + "&limit=50").json()[
        "results"]]
    assert FRONTIER in frontier and FRONTIER_EPOCH in frontier


def test_lists_name_the_machines_other_records(web):
    top500 = web.get(urls.top500_list("2025-06"), headers=HTML).text
    row = next(r for r in re.findall(r"(?s)<tr>(.*?)</tr>", top500) if urls.page("system", JUPITER) in r)
    assert "also in Epoch AI as" in text_of(row) and urls.page("system", JUPITER_EPOCH) in row
    epoch = web.get(urls.epoch_clusters(params={"country": "DE", "per": "500"}), headers=HTML).text
    row = next(r for r in re.findall(r"(?s)<tr>(.*?)</tr>", epoch) if urls.page("system", JUPITER_EPOCH) in r)
    assert "also in TOP500 as" in text_of(row) and urls.page("system", JUPITER) in row


def test_the_markdown_page_says_the_same():
    store = Store(stores.website().store, read_only=True)
    try:
        text = render_markdown(system_page(store, SYS + JUPITER))
    finally:
        store.close()
    assert "Also in Epoch AI as" in text and "## What Epoch AI says" in text


@pytest.mark.browser
def test_jupiters_page_in_chromium(website_server, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "same-machine-jupiter.png"
    dom = browser.browse(website_server.url + urls.page("system", JUPITER), shot)
    assert shot.stat().st_size > 10_000
    assert "Also in Epoch AI as" in text_of(dom) and f"also-{JUPITER_EPOCH}" in dom


def test_a_system_page_says_where_the_machine_sits_and_who_runs_it_with_one_link_per_source_host(web):
    # The TOP500 names the site; the operator is derived from it (rule 05-site-operator). Both lines cite the
    # two editions the store holds, one link per host with the count, not one link per edition.
    page = web.get(f"/page/system/{FRONTIER}", headers=HTML).text
    header = page.split("<h2", 1)[0]
    site = re.search(r'<p class="site">(.*?)</p>', header, re.S)
    operator = re.search(r'<p class="operator">(.*?)</p>', header, re.S)
    assert site and operator, header
    assert "Oak Ridge National Laboratory" in text_of(site.group(1))
    assert "Oak Ridge National Laboratory" in text_of(operator.group(1))
    assert "not named" not in text_of(operator.group(1))
    for line in (site.group(1), operator.group(1)):
        hosts = re.findall(r">(top500\.org)</a>", line)
        assert hosts == ["top500.org"], line
        assert "(2 sources)" in text_of(line)
    # The name the list repeats among the aliases is not listed again as another name.
    aliases = re.search(r'<p class="aliases">(.*?)</p>', header, re.S)
    names = text_of(aliases.group(1)).removeprefix(" ").removeprefix("Also known as ") if aliases else ""
    assert not names.startswith("Frontier,")
