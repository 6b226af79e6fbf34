"""The website's lists over a store with real TOP500 and Epoch AI imports, in-process through Starlette's
TestClient (real store, real query worker processes): a TOP500 edition sorted and paged by URL parameters,
Epoch's clusters filtered, the tier switch changing the totals, the CSV and JSON twins, and the SPARQL link."""

from __future__ import annotations

import csv
import html
import io
import re
import urllib.parse

import pytest
from openpyxl import load_workbook

from hpckg.page.entities import CITED_SHOWN
from hpckg.query import canned_query
from hpckg.serve import lists, urls
from stores import TOP500

from conftest import session_project

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def web(website_client):
    return website_client


def body_rows(page: str) -> list[list[str]]:
    """The cells of the list table's body, as visible text; a name's cell without the note naming the
    machine's records in other datasets ("also in Epoch AI as …", hpckg.page.machine)."""
    body = re.search(r'<table class="list" id="list">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    body = re.sub(r'(?s)\s*<small class="also">.*?</small>', "", body)
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def first_rows_of_the_file(edition_file: str, count: int) -> list[tuple[int, str]]:
    """(rank, Rmax) of the first rows of a TOP500 edition's spreadsheet, read with openpyxl."""
    sheet = load_workbook(TOP500 / edition_file, read_only=True).active
    rows = sheet.iter_rows(values_only=True)
    header = [str(h) for h in next(rows)]
    rank, rmax = header.index("Rank"), next(i for i, h in enumerate(header) if h.startswith("Rmax"))
    firsts = [row for _, row in zip(range(count), rows, strict=False)]
    return [(int(row[rank]), f"{float(row[rmax]) / 1000:,.2f}") for row in firsts]  # TFlop/s shown in PFlop/s


def test_a_top500_edition_is_a_table_of_its_500_entries_in_rank_order(web):
    response = web.get(urls.top500_list("2025-06"), headers=HTML)
    assert response.status_code == 200, response.text
    rows = body_rows(response.text)
    assert len(rows) == 100  # the default page size
    assert "500 of 500 rows" in html.unescape(re.sub(r"<[^>]+>", "", response.text))
    expected = first_rows_of_the_file("TOP500_202506.xlsx", 5)
    assert [(int(r[0]), r[7].split()[0]) for r in rows[:5]] == expected
    assert rows[0][1] == "El Capitan" and rows[0][3] == "US" and rows[0][6] == "Hewlett Packard Enterprise"
    # Each row links to its system page; each Rmax carries its tier badge linking to its claim.
    assert f'href="{urls.page("system", "top500-180307")}"' in response.text
    assert f'href="{urls.page("claim", "top500-180307-rmax-2025-06")}"' in response.text


def test_sorting_and_paging_are_url_parameters(web):
    by_rmax = body_rows(web.get(urls.top500_list("2025-06", params={"sort": "rmaxTflops", "order": "asc",
                                                                          "per": "25", "page": "2"}),
                                headers=HTML).text)
    assert len(by_rmax) == 25
    values = [float(r[7].split()[0].replace(",", "")) for r in by_rmax]
    assert values == sorted(values)
    first_page = body_rows(web.get(urls.top500_list("2025-06", params={"sort": "rmaxTflops", "order": "asc",
                                                                             "per": "25"}), headers=HTML).text)
    assert float(first_page[-1][7].split()[0].replace(",", "")) <= values[0]
    by_name = body_rows(web.get(urls.top500_list("2025-06", params={"sort": "name"}), headers=HTML).text)
    names = [r[1].casefold() for r in by_name if r[1]]
    assert names == sorted(names)
    page = web.get(urls.top500_list("2025-06", params={"per": "25", "page": "3"}), headers=HTML).text
    assert "page 3 of 20" in page
    assert 'rel="next"' in page and 'rel="prev"' in page


def test_bad_list_parameters_are_400_naming_the_allowed_values(web):
    response = web.get(urls.top500_list("2025-06", params={"sort": "nonsense"}), headers={"Accept": "application/json"})
    assert response.status_code == 400 and "rank" in response.json()["error"]["message"]
    assert web.get(urls.top500_list("2025-06", params={"per": "7"})).status_code == 400
    assert web.get(urls.top500_list("1999-06"), headers=HTML).status_code == 404
    assert web.get("/lists/nothing", headers=HTML).status_code == 404


def test_csv_and_json_twins_hold_the_same_rows_as_the_page(web):
    params = {"country": "DE", "sort": "rmaxTflops", "order": "desc"}
    page = body_rows(web.get(urls.top500_list("2025-06", params=params), headers=HTML).text)
    table = list(csv.DictReader(io.StringIO(web.get(urls.top500_list("2025-06", "csv", params)).text)))
    assert [r["name"] for r in table] == [r[1] for r in page] and all(r["country"] == "DE" for r in table)
    assert table[0]["rmaxClaim"].startswith("https://w3id.org/hpckg/id/claim/")
    document = web.get(urls.top500_list("2025-06", params=params), headers={"Accept": "application/json"}).json()
    assert [r["name"] for r in document["rows"]] == [r[1] for r in page]
    assert document["count"] == len(page)
    assert abs(document["totals"]["rmaxTflops"]["value"] - sum(float(r["rmaxTflops"]) for r in table)) < 1e-6


def test_the_sparql_behind_a_list_opens_in_the_editor_and_answers_the_same_rows(web):
    page = web.get(urls.top500_list("2024-11"), headers=HTML).text
    link = html.unescape(re.search(r'<a href="([^"]+)" id="sparql-behind">', page).group(1))
    query = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["query"][0]
    assert "VALUES ?edition { <https://w3id.org/hpckg/id/dataset/top500-2024-11> }" in query
    editor = web.get(link, headers=HTML)
    assert editor.status_code == 200 and "El Capitan" in editor.text
    answer = web.get(urls.sparql(query), headers={"Accept": "application/sparql-results+json"}).json()
    assert len(answer["results"]["bindings"]) == 500
    # The page's rows are read another way (the edition's claims pivoted in Python, hpckg.serve.editions):
    # every row and cell the list serves is one the query answers, and the other way round.
    listed = web.get(urls.top500_list("2024-11", "json"), params={"per": "500"}).json()["rows"]
    assert comparable(listed) == comparable(lists.rows_from_results(answer))


def comparable(rows: list[dict]) -> list[tuple]:
    """Rows as sorted tuples of their cells; a joined cell's parts ("A / B") in sorted order, as GROUP_CONCAT
    gives no order."""
    def cell(key: str, value: object) -> object:
        return " / ".join(sorted(str(value).split(" / "))) if key in ("vendors", "parents") else value
    return sorted(tuple(sorted((k, cell(k, v)) for k, v in row.items() if v not in (None, ""))) for row in rows)


def test_epoch_clusters_filter_by_status_certainty_country_owner_and_chip(web):
    everything = web.get(urls.epoch_clusters("json")).json()
    assert everything["count"] > 700
    for key in ("status", "certainty", "country", "owners", "chips"):
        value = next(r[key].split(" / ")[0] for r in everything["rows"] if r.get(key))
        chosen = web.get(urls.epoch_clusters("json", {key: value})).json()
        assert 0 < chosen["count"] < everything["count"], key
        assert all(value in r[key].split(" / ") for r in chosen["rows"]), key
    page = web.get(urls.epoch_clusters(params={"status": "planned", "per": "25"}), headers=HTML).text
    assert len(body_rows(page)) == 25 and all(r[1] == "planned" for r in body_rows(page))


def test_the_tier_switch_changes_the_totals_and_says_how_much_is_lead(web):
    every = web.get(urls.epoch_clusters("json")).json()
    reported = web.get(urls.epoch_clusters("json", {"tier": "reported"})).json()
    assert every["totals"]["accelerators"]["lead"] > 0  # Epoch's derived counts are leads
    assert reported["totals"]["accelerators"]["lead"] == 0
    assert reported["totals"]["accelerators"]["value"] == pytest.approx(
        every["totals"]["accelerators"]["value"] - every["totals"]["accelerators"]["lead"])
    assert reported["count"] < every["count"]
    page = web.get(urls.epoch_clusters(params={"tier": "reported"}), headers=HTML).text
    assert "only figures reported or better" in page and "of which lead" in page


def test_the_lists_page_names_every_edition(web):
    page = web.get(urls.lists(), headers=HTML).text
    assert f'href="{urls.top500_list("2025-06")}"' in page and f'href="{urls.top500_list("2024-11")}"' in page
    assert f'href="{urls.epoch_clusters()}"' in page
    chosen = web.get(urls.top500_editions() + "?edition=2024-11")
    assert chosen.status_code == 303 and chosen.headers["location"] == urls.top500_list("2024-11")


def test_the_server_precomputes_its_generations_lists_and_figures_in_the_background(web):
    prepared = web.app.state.service.prepared
    assert prepared.wait(600), "the background precompute did not finish"
    assert set(prepared.timings) == {"chart renderer", "page templates", "home page", "system index", "search index",
                                     "records of one machine",
                                     "preamble", "TOP500 figures",
                                     "newest TOP500 edition", "newest TOP500 edition's statistics",
                                     "Epoch AI clusters", "sites, organisations and parts lists", "charts",
                                     "older TOP500 editions", "older TOP500 editions' statistics",
                                     "ready-made queries' answers", "home page's structured data"}
    assert prepared.charts("lead") is prepared.charts("lead")  # drawn once, in the background
    # the entity pages' tables read the generation's system index, made once
    assert web.app.state.service.views.system_index() is prepared.system_index()
    assert prepared.edition_names() == ["2025-06", "2024-11"]
    # the lists pages read the editions there: the rows of the canned query they stand for
    text = canned_query(session_project(), "top500-edition-names").bind()
    assert [row["edition"].value for row in prepared.store.query(text, prefixes=False)] == prepared.edition_names()
    # What a visitor gets is what the background made (the same rows, not computed again).
    assert prepared.edition("2024-11") is prepared.edition("2024-11")
    served = web.get(urls.top500_list("2024-11", "json")).json()["rows"]
    assert [row["system"] for row in served] == [row["system"] for row in prepared.edition("2024-11")]
    # The sites list too (1.4 s on a first visit of the full graph when its query ran on the request).
    sites = web.get(urls.entity_list("sites", "json")).json()["rows"]
    assert sorted(row["site"] for row in sites) == sorted(row["site"] for row in prepared.canned_rows("sites-list"))


def test_a_source_cited_by_thousands_of_claims_lists_the_first_and_links_to_all(web):
    # A TOP500 edition is the source of every claim of its 500 entries: its page once listed them all and
    # took minutes to answer. The count is the store's, the rows listed the first the store gives (a LIMIT
    # without ORDER BY: Oxigraph's order is by a hash of the IRI, the same on each visit).
    store = web.app.state.service.store
    [row] = list(store.query("""SELECT ?source (COUNT(?claim) AS ?n) WHERE {
        ?claim <http://www.w3.org/ns/prov#hadPrimarySource> ?source } GROUP BY ?source ORDER BY DESC(?n) LIMIT 1"""))
    source, total = row["source"].value, int(row["n"].value)
    assert total > CITED_SHOWN
    first = [r["c"].value for r in store.query(f"""SELECT ?c WHERE {{
        ?c <http://www.w3.org/ns/prov#hadPrimarySource> <{source}> }} LIMIT {CITED_SHOWN}""")]
    response = web.get(urls.page_for_iri(source), headers=HTML)
    assert response.status_code == 200, response.text
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.text)))
    assert f"{total:,} claims cite this source; the first {CITED_SHOWN:,} are listed here" in text
    listed = {urllib.parse.unquote(m) for m in re.findall(r'href="/page/claim/([^"]+)"', response.text)}
    assert listed == {claim.rsplit("/", 1)[-1] for claim in first}
    link = re.search(r'<a href="([^"]+)">All [\d,]+ in the query editor</a>', response.text).group(1)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(html.unescape(link)).query)["query"][0]
    assert source in query and "hadPrimarySource" in query


def test_filters_show_how_many_rows_each_choice_leaves(web):
    page = web.get(urls.top500_list("2025-06"), headers=HTML).text
    document = web.get(urls.top500_list("2025-06", "json")).json()
    germany = sum(1 for row in document["rows"] if row.get("country") == "DE")
    assert f'<option value="DE">DE ({germany})</option>' in page
    assert document["facets"]["country"]["DE"] == germany
    # A facet counts what the other filters leave: Germany's systems by today's vendor.
    chosen = web.get(urls.top500_list("2025-06", "json", {"country": "DE"})).json()
    by_vendor = chosen["facets"]["parents"]
    assert sum(by_vendor.values()) >= chosen["count"] and max(by_vendor.values()) <= chosen["count"]
    assert chosen["facets"]["country"]["US"] > 0  # the country facet itself still counts every country


def test_numeric_range_filters_bound_a_column(web):
    every = web.get(urls.top500_list("2025-06", "json")).json()["rows"]
    bounded = web.get(urls.top500_list("2025-06", "json", {"min_rmaxTflops": "10000", "max_rmaxTflops": "100000"}))
    assert bounded.status_code == 200, bounded.text
    rows = bounded.json()["rows"]
    assert rows and all(10000 <= row["rmaxTflops"] <= 100000 for row in rows)
    assert len(rows) == sum(1 for row in every if 10000 <= row["rmaxTflops"] <= 100000)
    page = web.get(urls.top500_list("2025-06", params={"min_rmaxTflops": "10000", "per": "25"}), headers=HTML).text
    assert 'name="min_rmaxTflops" value="10000"' in page and "min_rmaxTflops=10000" in html.unescape(page)
    # The list's Year: the entries installed or upgraded from 2024 on, as many as the file's Year column has.
    recent = web.get(urls.top500_list("2025-06", "json", {"min_year": "2024"})).json()["rows"]
    sheet = load_workbook(TOP500 / "TOP500_202506.xlsx", read_only=True).active.iter_rows(values_only=True)
    year = list(next(sheet)).index("Year")
    assert len(recent) == sum(1 for row in sheet if row[0] is not None and int(row[year]) >= 2024) > 0
    # A date's year bounds Epoch's "operational since".
    recent = web.get(urls.epoch_clusters("json", {"min_since": "2024"})).json()["rows"]
    assert recent and all(int(str(row["since"])[:4]) >= 2024 for row in recent)
    assert web.get(urls.top500_list("2025-06", "json", {"min_cores": "many"})).status_code == 400


def test_epoch_clusters_are_sorted_largest_first_by_default(web):
    rows = web.get(urls.epoch_clusters("json")).json()["rows"]
    sizes = [row["h100Equivalents"] for row in rows if row.get("h100Equivalents") is not None]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) > 100


def test_the_lists_page_names_the_editions_the_data_lacks(web):
    views = web.app.state.service.views
    page = views.lists_index([{"edition": "2023-06"}, {"edition": "2022-06"}]).render()
    assert 'href="https://top500.org/lists/top500/2022/11/"' in page and "2022-11 on top500.org" in page
    # The website's store holds two editions with none between them: nothing to name.
    assert 'id="absent-editions"' not in web.get(urls.lists(), headers=HTML).text
