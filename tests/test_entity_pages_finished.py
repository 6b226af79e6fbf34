"""Entity pages as a visitor reads them (issue 35), on the website's store (two TOP500 editions and Epoch AI's
hardware and clusters on top of the curated data): the seed banner only where it is true, no empty tables, the
count of lists a system was in said with the lists missing from the imports, and no page of any kind showing
a placeholder title, a raw identifier or Markdown left unrendered."""

from __future__ import annotations

import html
import re

import pytest

import stores
from hpckg.page.claims import select
from hpckg.serve import charts, urls
from hpckg.store import Store

pytestmark = pytest.mark.imports

TOP500_RECORD = "top500-180307"  # an imported TOP500 system of both editions
CURATED_RECORD = "kalos"
EPOCH_RECORD = "epoch-xai-colossus-memphis-phase-1"  # an Epoch AI cluster: no TOP500 figures at all


@pytest.fixture(scope="module")
def store():
    return Store(stores.website().store, read_only=True)


def body(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.text


def visible(page: str) -> str:
    """The page's text as a reader sees it: no markup, scripts, styles or drawings."""
    page = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def dataset_description(store) -> str:
    [row] = select(store, "SELECT ?d WHERE { ?x a hpc:Dataset ; rdfs:comment ?d } LIMIT 1")
    return str(row["d"])


def test_the_seed_banner_is_on_curated_records_only(website_client, store):
    description = dataset_description(store).rstrip(".")
    assert description in visible(body(website_client, urls.page("system", CURATED_RECORD)))
    imported = visible(body(website_client, urls.page("system", TOP500_RECORD)))
    assert description not in imported
    assert "have a readable citation" not in imported  # the curated data's sourcing figures are not this record's


def test_no_performance_table_of_dashes(website_client):
    page = body(website_client, urls.page("system", EPOCH_RECORD))
    section = re.search(r'<section aria-labelledby="performance">(.*?)</section>', page, re.S)
    if section:
        for row in re.findall(r"<tr><td>.*?</tr>", section.group(1), re.S):
            assert not re.search(r"<td>-</td>", row), row


def test_the_count_of_lists_says_which_were_not_imported():
    # Frontier's rows on the full import: the files of 2022-11 and 2023-11 are not among the configured ones.
    rows = [{"edition": e, "rank": 1, "rmaxTflops": 1e6} for e in ("2022-06", "2023-06", "2024-06", "2024-11",
                                                                    "2025-06")]
    imported = ["2021-11", "2022-06", "2023-06", "2024-06", "2024-11", "2025-06"]
    chart = charts.system_history(rows, "Frontier", src="/chart.svg", imported=imported)
    assert "listed in 5 TOP500 editions from 2022-06 to 2025-06, of the 7 lists published in that span" in chart.alt
    assert "2022-11 and 2023-11 are not in the imported files" in chart.alt


# One page of each entity type on the website's store; the kinds without a fixed example are the first a
# system page links to.
FIXED = {"system": [TOP500_RECORD, CURATED_RECORD, EPOCH_RECORD], "site": ["acme"], "org": ["nvidia"],
         "part": ["nvidia-a100-sxm4-80gb"], "country": ["US"]}
PLACEHOLDER = re.compile(r"TOP500 system \d+")
RAW_ID = re.compile(r"\b(?:src|claim|sys|orgn|site|part):[\w.-]+")
RAW_MARKDOWN = re.compile(r"\[[^\]\n]+\]\(\(?https?://")


def linked(page: str, kind: str) -> str:
    found = re.search(rf'href="/page/{kind}/([^"#?]+)"', page)
    assert found, f"no /page/{kind}/ link"
    return found.group(1)


@pytest.fixture(scope="module")
def entity_pages(website_client) -> dict[str, str]:
    """path -> HTML of one or more pages of every entity type."""
    paths = [urls.page(kind, slug) for kind, slugs in FIXED.items() for slug in slugs]
    system = body(website_client, urls.page("system", TOP500_RECORD))
    site = body(website_client, urls.page("site", "acme"))
    paths += [urls.page("site", linked(system, "site")), urls.page("org", linked(system, "org")),
              urls.page("source", linked(site, "source"))]
    return {path: body(website_client, path) for path in paths}


def test_no_page_shows_a_placeholder_a_raw_identifier_or_markdown(entity_pages):
    for path, page in entity_pages.items():
        title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
        text = visible(page)
        assert not PLACEHOLDER.search(title) and not PLACEHOLDER.search(text), path
        assert not RAW_ID.findall(text), (path, RAW_ID.findall(text)[:5])
        assert not RAW_MARKDOWN.search(text), (path, RAW_MARKDOWN.search(text))


def test_entity_pages_list_their_systems_by_name_largest_first(entity_pages, store):
    for path in (urls.page("country", "US"), urls.page("org", "nvidia"), urls.page("site", "acme")):
        table = re.search(r'<table class="systems">(.*?)</table>', entity_pages[path], re.S)
        assert table, path
        names = [visible(cell).strip() for cell in re.findall(r"<tr><td>(.*?)</td>", table.group(1), re.S)]
        assert names and not any(RAW_ID.search(n) or n.startswith(("top500-", "epoch-")) for n in names), names
    # the US page: sorted by Rmax, with the country's share of the latest list
    us = entity_pages[urls.page("country", "US")]
    figures = [float(v.replace(",", "")) for v in re.findall(r'<td class="num">([\d,]+(?:\.\d+)?)</td>\s*<td>', us)]
    assert figures == sorted(figures, reverse=True) and len(figures) > 10
    assert "systems of the TOP500 list of 2025-06" in visible(us)
    assert "rdf:type" not in visible(us) and "hiddenLabel" not in visible(us)


def test_a_site_claims_table_has_units_dates_and_no_claim_column(entity_pages):
    page = entity_pages[urls.page("site", "acme")]
    assert "<th scope=\"col\">Claim</th>" not in page
    assert re.search(r'class="badge tier-\w+" href="/page/claim/', page), "the tier links to the claim"


def test_an_organisations_sites_say_how_many_of_its_systems_each_holds(website_client, store):
    # The TOP500 keeps several Site IDs for one organisation, each a site record of the same name: the
    # organisation page listed "BellSouth" five times and nothing else. Each now says its systems, most first.
    rows = store.query("""
        SELECT ?org (COUNT(DISTINCT ?site) AS ?sites) WHERE {
          ?c a hpc:BestClaim ; hpc:property hpc:operator ; hpc:value ?org ; hpc:about ?system .
          ?system a hpc:System . ?s a hpc:BestClaim ; hpc:property hpc:site ; hpc:about ?system ; hpc:value ?site .
          FILTER (STRSTARTS(STR(?org), "https://w3id.org/hpckg/id/org/top500-operator-")) }
        GROUP BY ?org HAVING (COUNT(DISTINCT ?site) > 1) ORDER BY DESC(?sites) ?org LIMIT 1""")
    org = next(iter(rows))["org"].value.rsplit("/", 1)[-1]
    page = body(website_client, urls.page("org", org))
    items = re.findall(r'<li><a href="/page/site/[^"]+">[^<]+</a> <span class="muted">([\d,]+) systems?'
                       r'(?:, last listed (\d{4}-\d\d))?</span></li>', page.split("<h2>Sites operated</h2>")[1]
                       .split("</ul>")[0])
    assert len(items) >= 2, page
    counts = [int(count.replace(",", "")) for count, _ in items]
    assert counts == sorted(counts, reverse=True) and all(listed for _, listed in items)
