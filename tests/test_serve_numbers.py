"""Issue 35's numbers as a visitor reads them on the website over real imports (stores.website(): TOP500
2024-11 and 2025-06, Epoch AI's hardware and clusters) and on a real 1993 edition file: figures in the unit of
their magnitude with four significant digits, a list's columns in one unit chosen by the edition, one spelling
of each unit, thousands separators in query results, exact values kept in titles and the twins."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import rdflib

from hpckg.importers.top500_files import read_entries
from hpckg.serve import lists, urls

from conftest import SHARED

HTML = {"Accept": "text/html"}
ONTOLOGY = Path(__file__).resolve().parent.parent / "ontology" / "hpckg.ttl"


def visible(page: str) -> str:
    """The text a reader sees: no tags, no scripts (the JSON-LD keeps the exact values)."""
    return html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"(?s)<script.*?</script>", "", page)))


def table_rows(page: str) -> list[list[str]]:
    """The rows of the page's list table, cell by cell as (attributes, visible text)."""
    body = re.search(r'<table class="list" id="list">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    body = re.sub(r'(?s)\s*<small class="also">.*?</small>', "", body)
    return [[visible(cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_ontology_spells_each_rate_unit_one_way():
    graph = rdflib.Graph().parse(ONTOLOGY)
    units = {str(o) for o in graph.objects(None, rdflib.URIRef("https://w3id.org/hpckg/ontology#unit"))}
    assert {u for u in units if "flop" in u.casefold()} == {"TFlop/s"}, units


def test_the_1993_list_reads_in_gflops_and_todays_in_pflops():
    """top500.org shows 1993's list in GFlop/s: 59.7 for the CM-5/1024, not 0.06 (or 0.00) TFlop/s."""
    def rows(name: str) -> list[dict[str, object]]:
        return [{"rank": e.rank, "name": e.computer, "rmaxTflops": float(e.rmax_tflops),
                 "rpeakTflops": float(e.rpeak_tflops), "cores": e.cores}
                for e in read_entries(SHARED / "data" / "top500" / name)]

    old = lists.select(lists.TOP500, rows("TOP500_199306.xml"), {})
    rmax, rpeak = lists.TOP500.column("rmaxTflops"), lists.TOP500.column("rpeakTflops")
    assert (old.heading(rmax), old.heading(rpeak)) == ("Rmax (GFlop/s)", "Rpeak (GFlop/s)")
    assert old.cell(rmax, old.rows[0]["rmaxTflops"]) == "59.70"
    assert all(float(old.cell(rmax, row["rmaxTflops"])) > 0.1 for row in old.selected)  # no 0.00 at the bottom
    new = lists.select(lists.TOP500, rows("TOP500_202506.xlsx"), {"page": "5"})
    assert new.heading(rmax) == "Rmax (PFlop/s)"  # on every page of the edition, from all its rows
    assert new.heading(lists.TOP500.column("cores")) == "Cores"


@pytest.mark.imports
def test_a_top500_list_shows_each_column_in_one_unit_and_keeps_the_exact_value(website_client):
    page = website_client.get(urls.top500_list("2025-06"), headers=HTML).text
    headings = [visible(h).strip() for h in re.findall(r'<th scope="col"[^>]*>(.*?)</th>', page, re.S)]
    assert "Rmax (PFlop/s)" in headings and "Rpeak (PFlop/s)" in headings
    first = table_rows(page)[0]
    assert first[1] == "El Capitan" and first[7].split()[0] == "1,742.00" and first[8] == "2,746.38"
    assert 'title="2746376.09"' in page  # the exact Rpeak, as the file gives it
    csv = website_client.get(urls.top500_list("2025-06", "csv")).text
    assert "2746376.09" in csv  # the twins stay exact
    assert "Rmax: 13.84 EFlop/s" in visible(page)  # the total, in the unit of its magnitude


@pytest.mark.imports
def test_system_pages_show_figures_with_four_significant_digits(website_client):
    el_capitan = visible(website_client.get(urls.page("system", "top500-180307"), headers=HTML).text)
    for shown in ("1.742 EFlop/s", "2.746 EFlop/s", "58.89 GF/W", "29,581 kW"):
        assert shown in el_capitan
    assert "2,746,376.09" not in el_capitan and "58.8891" not in el_capitan
    colossus = visible(website_client.get(urls.page("system", "epoch-xai-colossus-memphis-phase-2"),
                                          headers=HTML).text)
    assert "200,000 H100e" in colossus and "200,000.0" not in colossus


@pytest.mark.imports
def test_query_result_tables_have_thousands_separators_and_exact_titles(website_client):
    page = website_client.get(urls.canned("top500-editions"), headers=HTML).text
    cells = re.findall(r'<td class="num"( title="[^"]*")?>([^<]*)</td>', page)
    numbers = [text for _, text in cells]
    assert numbers and all(re.fullmatch(r"-?\d{1,3}(,\d{3})*(\.\d+)?", n) for n in numbers), numbers
    assert any("," in n for n in numbers)  # 1,742,000 (El Capitan's Rmax in TFlop/s), not 1742000
    assert "TFLOP/s" not in visible(website_client.get(urls.charts(), headers=HTML).text)
