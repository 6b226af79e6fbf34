"""Statistics per TOP500 edition (hpckg.serve.statistics) over the website's store (two real editions and
Epoch AI), in-process: each share table counts what the edition's own file says, the Green500 and HPCG
rankings order its columns, every table has its tier, CSV/JSON twins and the SPARQL behind it (which answers
the same rows), and an edition top500.org has but the configured files lack is said plainly."""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import re
import urllib.parse
from collections import Counter
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from hpckg.serve import statistics, urls
from stores import TOP500

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def web(website_client):
    return website_client


def file_column(edition_file: str, *headers: str) -> list[tuple]:
    """The cells of some columns of a TOP500 spreadsheet, one tuple per row, read with openpyxl."""
    rows = load_workbook(TOP500 / edition_file, read_only=True).active.iter_rows(values_only=True)
    header = [str(h) for h in next(rows)]
    index = [header.index(h) for h in headers]
    return [tuple(row[i] for i in index) for row in rows if row[0] is not None]


def test_an_editions_share_by_country_counts_its_files_country_column(web):
    response = web.get(urls.statistics_table("2025-06", "country", "json"))
    assert response.status_code == 200, response.text
    table = response.json()
    cells = file_column("TOP500_202506.xlsx", "Country", "Rmax [TFlop/s]")
    entries, rmax = Counter(c for c, _ in cells), Counter()
    for country, value in cells:
        rmax[country] += Decimal(str(value))
    assert sorted(row["systems"] for row in table["rows"]) == sorted(entries.values())
    assert sum(row["systems"] for row in table["rows"]) == 500
    us = next(row for row in table["rows"] if row["label"] == "United States")
    assert us["systems"] == entries["United States"]
    assert abs(Decimal(str(us["rmaxTflops"])) - rmax["United States"]) < Decimal("0.01")
    assert us["sharePercent"] == round(float(rmax["United States"] / sum(rmax.values()) * 100), 2)
    assert table["rows"][0]["label"] == rmax.most_common(1)[0][0]  # largest Rmax first
    assert table["tier"] == "reported"  # every TOP500 figure is read from the list's own file


def test_segment_family_and_accelerator_tables_count_every_entry_once(web):
    for name, column in (("segment", "Segment"), ("accelerator", "Accelerator/Co-Processor"),
                         ("processor-family", "Processor Technology"), ("interconnect-family", "Interconnect Family")):
        rows = web.get(urls.statistics_table("2025-06", name, "json")).json()["rows"]
        named = Counter(c for (c,) in file_column("TOP500_202506.xlsx", column) if c not in (None, "None", ""))
        assert sum(r["systems"] for r in rows) == 500
        assert sorted(r["systems"] for r in rows if r["key"] != "not given") == sorted(named.values()), name


def test_the_green500_and_hpcg_rankings_order_the_files_columns(web):
    for name, column, key in (("green500", "Energy Efficiency [GFlops/Watts]", "gflopsPerWatt"),
                              ("hpcg", "HPCG [TFlop/s]", "hpcgTflops")):
        rows = web.get(urls.statistics_table("2025-06", name, "json")).json()["rows"]
        figures = [v for (v,) in file_column("TOP500_202506.xlsx", column) if v not in (None, "", 0)]
        assert len(rows) == len(figures), name
        assert [r[key] for r in rows] == sorted((float(v) for v in figures), reverse=True)
        assert rows[0]["position"] == 1 and rows[0]["claim"].startswith("https://w3id.org/hpckg/id/claim/")


def test_the_edition_page_shows_every_table_with_its_tier_twins_and_query(web):
    response = web.get(urls.edition_statistics("2025-06"), headers=HTML)
    assert response.status_code == 200, response.text
    page = response.text
    for table in statistics.TABLES.values():
        section = re.search(rf'<section id="{table.name}".*?</section>', page, re.S).group(0)
        assert 'class="badge tier-reported"' in section, table.name
        assert f'href="{urls.statistics_table("2025-06", table.name, "csv")}"' in section
        assert f'href="{urls.statistics_table("2025-06", table.name, "json")}"' in section
        assert f"<code>{table.query}</code>" in section
    assert "Hewlett Packard Enterprise" in page and "El Capitan" in page
    assert 'href="https://top500.org/lists/top500/2025/06/"' in page


def test_the_sparql_behind_a_table_answers_its_rows_and_the_csv_twin_holds_them(web):
    page = web.get(urls.statistics_table("2024-11", "vendor-parent"), headers=HTML).text
    link = html.unescape(re.search(r'<a href="([^"]+)" class="sparql-behind">', page).group(1))
    query = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["query"][0]
    assert "VALUES ?edition { <https://w3id.org/hpckg/id/dataset/top500-2024-11> }" in query
    # While the server's background work answered the canned queries in the workers' slow lane, this got 503.
    answered = web.get(urls.sparql(query), headers={"Accept": "application/sparql-results+json"})
    assert answered.status_code == 200 and "results" in answered.json(), (answered.headers, answered.text[:300])
    answer = answered.json()
    served = web.get(urls.statistics_table("2024-11", "vendor-parent", "json")).json()["rows"]
    assert [(b["key"]["value"], int(b["systems"]["value"])) for b in answer["results"]["bindings"]] == \
        [(row["key"], row["systems"]) for row in served]
    table = list(csv.DictReader(io.StringIO(web.get(urls.statistics_table("2024-11", "vendor-parent", "csv")).text)))
    assert [(r["key"], int(r["systems"])) for r in table] == [(row["key"], row["systems"]) for row in served]
    # The same twins by content negotiation on the table's own URL, as the lists answer.
    negotiated = web.get(urls.statistics_table("2024-11", "vendor-parent"), headers={"Accept": "text/csv"})
    assert negotiated.headers["content-type"].startswith("text/csv") and negotiated.text.splitlines()[1:] == \
        web.get(urls.statistics_table("2024-11", "vendor-parent", "csv")).text.splitlines()[1:]
    assert web.get(urls.statistics_table("2024-11", "vendor-parent"),
                   headers={"Accept": "application/json"}).json()["rows"] == served


def test_an_edition_top500_org_has_but_the_data_lacks_is_a_page_saying_so(web):
    for path, what in ((urls.top500_list("2022-11"), "list"), (urls.edition_statistics("2022-11"), "statistics")):
        response = web.get(path, headers=HTML)
        assert response.status_code == 404 and response.headers["content-type"].startswith("text/html"), path
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", response.text)).split())
        assert "its file is not among the files this dataset was built from" in text
        assert f"this site has no {what} for it" in text
        assert 'href="https://top500.org/lists/top500/2022/11/"' in response.text
    # A program asking for JSON still gets the JSON error, naming where top500.org has the list.
    answer = web.get(urls.top500_list("2022-11", "json"))
    assert answer.status_code == 404 and "top500.org/lists/top500/2022/11" in answer.json()["error"]["message"]
    # An edition that never was stays a plain 404.
    assert "not in this dataset" not in web.get(urls.top500_list("2022-08"), headers=HTML).text


def test_the_editions_published_and_the_ones_the_data_lacks():
    published = statistics.published_editions(dt.date(2026, 12, 4))
    assert published[0] == "1993-06" and published[-1] == "2026-11" and len(published) == 2 * 34
    assert statistics.published_editions(dt.date(2026, 7, 1))[-1] == "2026-06"
    assert statistics.absent_editions(["2022-06", "2023-06", "2024-06", "2024-11"]) == ["2022-11", "2023-11"]
    assert statistics.absent_editions([]) == []


def test_the_statistics_page_lists_every_edition_over_time(web):
    response = web.get(urls.statistics(), headers=HTML)
    assert response.status_code == 200, response.text
    for edition in ("2025-06", "2024-11"):
        assert f'href="{urls.edition_statistics(edition)}"' in response.text
    rows = web.get(urls.STATISTICS + ".json").json()["editions"]
    assert [row["edition"] for row in rows] == ["2025-06", "2024-11"]
    assert rows[0]["entries"] == 500 and rows[0]["country"][0] == "United States"
    chosen = web.get(urls.statistics() + "?edition=2024-11")
    assert chosen.status_code == 303 and chosen.headers["location"] == urls.edition_statistics("2024-11")


def test_a_share_over_time_has_a_row_per_edition_from_each_editions_table(web):
    assert web.app.state.service.prepared.wait(900), "the background precompute did not finish"
    document = web.get(urls.statistics_trend("country", "json")).json()
    assert document["pending"] == []
    for edition in ("2025-06", "2024-11"):
        per_edition = web.get(urls.statistics_table(edition, "country", "json")).json()["rows"]
        assert [{k: v for k, v in row.items() if k != "edition"} for row in document["rows"]
                if row["edition"] == edition] == per_edition
    page = web.get(urls.statistics_trend("country", measure="systems"), headers=HTML)
    assert page.status_code == 200, page.text
    rows = re.findall(r'<tr><th scope="row"><a href="[^"]+">(\d{4}-\d{2})</a></th>(.*?)</tr>', page.text, re.S)
    assert [edition for edition, _ in rows] == ["2025-06", "2024-11"]
    cells = [int(c.replace(",", "") or 0) for c in re.findall(r'<td class="num">([^<]*)</td>', rows[0][1])]
    assert sum(cells) == 500  # the leading countries' systems and the others'
    assert web.get(urls.statistics_trend("green500")).status_code == 404  # a ranking has no shares over time
    assert web.get(urls.statistics_trend("country", measure="nonsense")).status_code == 400


def test_an_edition_the_data_lacks_keeps_its_row_over_time():
    rows = {"2022-06": [{"key": "US", "label": "United States", "sharePercent": 60.0},
                        {"key": "JP", "label": "Japan", "sharePercent": 40.0}],
            "2023-06": [{"key": "US", "label": "United States", "sharePercent": 55.0}]}
    result = statistics.trend(statistics.TABLES["country"], rows, "sharePercent", [], ["2022-11"])
    assert [edition for edition, _, _ in result.rows] == ["2023-06", "2022-11", "2022-06"]
    assert result.rows[1][1] is None and result.categories[0] == ("US", "United States")
    page = statistics.trend_page(result, lambda name, params: "/query", lambda iri: iri).render()
    assert 'href="https://top500.org/lists/top500/2022/11/"' in page


def test_a_column_the_editions_file_lacks_is_said_not_counted_as_one_row_of_not_given():
    rows = [{"key": statistics.NOT_GIVEN, "label": "not given", "systems": 500, "weakestTier": "reported"}]
    view = statistics.table_view("1999-06", statistics.TABLES["segment"], rows, lambda name, params: "/query")
    assert view["rows"] == []
    page = statistics.edition_page("1999-06", {"segment": rows}, ["1999-06"], lambda name, params: "/query",
                                   lambda iri: iri).render()
    section = re.search(r'<section id="segment".*?</section>', page, re.S).group(0)
    assert "This edition's file has no such column" in section and "<table" not in section
