"""The website's charts over a store with real TOP500 and Epoch AI imports, in-process through Starlette's
TestClient: each chart is an inline SVG (nothing fetched, no script) with a text alternative and its data as
a table that agrees with the raw edition files and the queries."""

from __future__ import annotations

import html
import re

import pytest

from hpckg.query import canned_query
from hpckg.serve import lists, urls
from hpckg.serve.analytics import QUERIES

from conftest import session_project

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def web(website_client):
    return website_client


def figure(page: str, chart_id: str) -> str:
    found = re.search(rf'<figure class="chart" id="{chart_id}">(.*?)</figure>', page, re.S)
    assert found, f"no chart {chart_id}"
    return found.group(1)


def data_rows(chart: str) -> list[list[str]]:
    body = re.search(r"<tbody>(.*?)</tbody>", chart, re.S).group(1)
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_the_charts_page_draws_three_charts_each_with_its_text_and_data(web):
    page = web.get(urls.charts(), headers=HTML).text
    for chart_id in ("performance-development", "share-by-country", "share-by-vendor"):
        chart = figure(page, chart_id)
        svg = re.search(r"<svg [^>]*>", chart).group(0)
        assert 'role="img"' in svg and 'aria-label="' in svg
        assert "<script" not in chart and "http://" not in chart.replace('xmlns="http://www.w3.org/2000/svg"', "") \
            .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "")
        assert [row[0] for row in data_rows(chart)] == ["2024-11", "2025-06"]
    development = data_rows(figure(page, "performance-development"))
    assert development[1][2] == "1.742 EFlop/s"  # El Capitan's Rmax (1,742,000 TFlop/s), #1 of June 2025
    assert development[1][3] == "2.435 PFlop/s"  # the #500 of June 2025 in its file
    shares = data_rows(figure(page, "share-by-country"))
    for row in shares:
        assert sum(float(cell) for cell in row[1:]) == pytest.approx(100, abs=0.5)  # each to 0.1 %
    assert "United States" in figure(page, "share-by-country")
    assert "Hewlett Packard Enterprise" in figure(page, "share-by-vendor")


def test_a_system_page_charts_its_rank_and_rmax_per_edition(web):
    page = web.get(urls.page("system", "top500-180047"), headers=HTML).text
    chart = figure(page, "system-history")
    assert data_rows(chart) == [["2024-11", "2", "1.353", "reported"], ["2025-06", "2", "1.353", "reported"]]
    assert "<th scope=\"col\">Rmax (EFlop/s)</th>" in chart  # 1,353,000 TFlop/s
    assert "Frontier was listed in 2 TOP500 editions" in html.unescape(chart)
    # Issue 35: the drawing was most of the page's first visit (Vega holds the interpreter while it draws, so a
    # thread beside the page's reads saved nothing): the chart is an image drawn on its own request.
    image = re.search(r'<img src="([^"]+)" alt="(Frontier was listed[^"]+)"', chart)
    assert image and html.unescape(image.group(1)) == urls.system_chart("top500-180047")
    drawn = web.get(urls.system_chart("top500-180047"))
    assert drawn.status_code == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    assert drawn.text.startswith("<svg") and "prefers-color-scheme: dark" in drawn.text
    assert ">Rank</text>" in drawn.text and ">Rmax (EFlop/s)</text>" in drawn.text
    # A system never listed in the TOP500 has no such chart.
    assert 'id="system-history"' not in web.get(urls.page("system", "kalos"), headers=HTML).text
    assert web.get(urls.system_chart("kalos")).status_code == 404
    assert web.get(urls.system_chart("no-such-machine")).status_code == 404


@pytest.mark.parametrize("name", QUERIES)
def test_the_precomputed_chart_figures_equal_their_querys_answer_on_the_endpoint(web, name):
    """The charts' figures are computed once per store generation from flat reads (hpckg.serve.analytics); the
    canned query each chart links to, run on the endpoint, answers the same rows."""
    prepared = web.app.state.service.prepared
    figures = prepared.top500_figures()[name]
    query = canned_query(session_project(), name)
    answer = web.get(urls.sparql(query.bind()), headers={"Accept": "application/sparql-results+json"})
    assert answer.status_code == 200, answer.text
    live = lists.rows_from_results(answer.json())
    assert len(live) >= 2 and sorted(map(repr, figures)) == sorted(map(repr, live))
    # The chart links to that query.
    assert urls.query_editor(query.bind()) in html.unescape(web.get(urls.charts(), headers=HTML).text)


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


@pytest.mark.parametrize("chart_id", ["accelerators-by-country", "accelerators-by-owner"])
def test_epoch_accelerators_over_time_and_the_tier_switch_leaving_leads_out(web, chart_id):
    every = figure(web.get(urls.charts(), headers=HTML).text, chart_id)
    assert "<svg" in every and 'role="img"' in every and "<script" not in every
    table = data_rows(every)
    years = [row[0] for row in table]
    assert years == sorted(years) and len(years) > 5
    # Cumulative: each year's total is at least the year before's; the categories add up to the total.
    totals = [number(row[-2]) for row in table]
    assert totals == sorted(totals)
    for row in table:
        assert sum(number(cell) for cell in row[1:-2]) == pytest.approx(number(row[-2]))
    # The last year's figures are Epoch's clusters as the list serves them: every cluster with a first
    # operational date and an accelerator count, and the part of it resting on a lead.
    clusters = web.get(urls.epoch_clusters("json")).json()["rows"]
    dated = [r for r in clusters if r.get("since") and "accelerators" in r and r.get("acceleratorsTier")]
    lead = sum(r["accelerators"] for r in dated if r["acceleratorsTier"] == "lead")
    assert number(table[-1][-2]) == pytest.approx(sum(r["accelerators"] for r in dated))
    assert number(table[-1][-1]) == pytest.approx(lead) and lead > 0
    # ?tier=reported leaves the leads out: the totals drop by exactly the lead amount, the lead column is zero.
    reported = figure(web.get(urls.charts() + "?tier=reported", headers=HTML).text, chart_id)
    last = data_rows(reported)[-1]
    assert number(last[-2]) == pytest.approx(number(table[-1][-2]) - lead)
    assert number(last[-1]) == 0
    assert "Only counts reported or better" in html.unescape(reported)
    assert web.get(urls.charts() + "?tier=sure", headers=HTML).status_code == 400
