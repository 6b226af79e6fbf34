"""The compare page over a live `hpckg serve` (a real process on a loopback port, driven with httpx) of a
store with two real TOP500 editions and Epoch AI's clusters: the figures side by side checked against the
editions' spreadsheets, tier badges linking to claims that exist, leads counted and fenced, the CSV and JSON
twins, the SPARQL behind it, the chart with its data, and the errors for too few, too many or unknown
systems."""

from __future__ import annotations

import csv
import html
import io
import re
import urllib.parse

import httpx
import pytest
from openpyxl import load_workbook

from hpckg.serve import urls
from stores import TOP500

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}
EL_CAPITAN, FRONTIER = "top500-180307", "top500-180047"  # System IDs of the spreadsheets


@pytest.fixture(scope="module")
def web(website_server):
    with httpx.Client(base_url=website_server.url, timeout=120) as client:
        yield client


def listed(edition_file: str) -> dict[str, dict[str, object]]:
    """Each system of a TOP500 spreadsheet by its System ID: the row as a dict of the file's headings."""
    sheet = load_workbook(TOP500 / edition_file, read_only=True).active
    rows = sheet.iter_rows(values_only=True)
    header = [str(h) for h in next(rows)]
    return {f"top500-{row[header.index('System ID')]}": dict(zip(header, row, strict=True)) for row in rows}


def number(text: str) -> float:
    return float(text.replace(",", ""))


def row(document: dict, fact: str) -> dict:
    return next(r for r in document["rows"] if r["fact"] == fact)


def test_two_systems_side_by_side_match_the_latest_edition(web):
    latest, earlier = listed("TOP500_202506.xlsx"), listed("TOP500_202411.xlsx")
    document = web.get(urls.compare([EL_CAPITAN, FRONTIER], "json")).json()
    assert [s["slug"] for s in document["systems"]] == [EL_CAPITAN, FRONTIER]
    assert [s["name"] for s in document["systems"]] == [latest[EL_CAPITAN]["Name"], latest[FRONTIER]["Name"]]
    for fact, heading in (("Rmax (TFlop/s)", "Rmax [TFlop/s]"), ("Rpeak (TFlop/s)", "Rpeak [TFlop/s]"),
                          ("Cores", "Total Cores"), ("Power (kW)", "Power (kW)")):
        values = row(document, fact)["values"]
        for i, system in enumerate((EL_CAPITAN, FRONTIER)):
            [entry] = values[i]
            assert abs(number(entry["value"]) - float(latest[system][heading])) < 0.01, (fact, system)
            assert entry["tier"] == "reported" and entry["claim"].startswith("https://w3id.org/hpckg/id/claim/")
    for i, system in enumerate((EL_CAPITAN, FRONTIER)):
        ranks = [int(edition[system]["Rank"]) for edition in (earlier, latest)]
        assert row(document, "Best rank")["values"][i][0]["value"] == str(min(ranks))
        assert row(document, "First listed")["values"][i][0]["value"] == "2024-11"
        assert row(document, "Last listed")["values"][i][0]["value"] == "2025-06"
        accelerators = " ".join(e["value"] for e in row(document, "Accelerator")["values"][i])
        assert str(latest[system]["Accelerator/Co-Processor"]) in accelerators
    # a row no system has a figure for (Accelerators: the lists give accelerator cores, not a count) is left out
    assert all(any(cell for cell in r["values"]) for r in document["rows"]), [r["fact"] for r in document["rows"]
                                                                                if not any(r["values"])]
    assert "Accelerators" not in {r["fact"] for r in document["rows"]}


def test_every_badge_links_to_a_claim_the_server_knows(web):
    page = web.get(urls.compare([EL_CAPITAN, FRONTIER]), headers=HTML)
    assert page.status_code == 200, page.text
    badges = re.findall(r'<a class="badge tier-(\w+)" href="([^"]+)" title="the claim behind this figure">', page.text)
    assert len(badges) > 20
    claims = {html.unescape(href) for _, href in badges}
    for href in sorted(claims)[:8]:
        claim = web.get(href.replace("/page/", "/id/") + ".json")
        assert claim.status_code == 200, href
    document = web.get(urls.compare([EL_CAPITAN, FRONTIER], "json")).json()
    assert document["figures"] == len(badges) and document["leads"] == 0


def test_leads_are_counted_and_fenced(web):
    clusters = web.get(urls.epoch_clusters("json", {"tier": "lead"})).json()["rows"]
    lead = next(r for r in clusters if r.get("acceleratorsTier") == "lead")
    slug = lead["system"].rsplit("/", 1)[1]
    document = web.get(urls.compare([slug, EL_CAPITAN], "json")).json()
    [entry] = row(document, "Accelerators")["values"][0]
    assert entry["tier"] == "lead" and entry["claim"] == lead["acceleratorsClaim"]
    assert number(entry["value"]) == lead["accelerators"]
    assert document["leads"] >= 1
    page = web.get(urls.compare([slug, EL_CAPITAN]), headers=HTML).text
    assert re.search(r'<strong class="lead"><a class="badge tier-lead" href="[^"]+"[^>]*>LEAD: not a citation</a>',
                     page)
    leads = re.search(r'<strong class="lead-count">(\d+)</strong>', page).group(1)
    assert int(leads) == document["leads"]


def test_the_csv_twin_holds_the_table(web):
    table = list(csv.reader(io.StringIO(web.get(urls.compare([EL_CAPITAN, FRONTIER], "csv")).text)))
    document = web.get(urls.compare([EL_CAPITAN, FRONTIER], "json")).json()
    assert table[0] == ["section", "fact", *(f"{s} {what}" for s in (EL_CAPITAN, FRONTIER)
                                              for what in ("value", "tier", "claim"))]
    assert [r[1] for r in table[1:]] == [r["fact"] for r in document["rows"]]
    rmax = next(r for r in table if r[1] == "Rmax (TFlop/s)")
    assert rmax[2] == row(document, "Rmax (TFlop/s)")["values"][0][0]["value"]


def test_the_sparql_behind_it_answers_the_same_systems(web):
    page = web.get(urls.compare([EL_CAPITAN, FRONTIER]), headers=HTML).text
    links = [html.unescape(u) for u in re.findall(r'<a href="([^"]+)" class="sparql-behind">', page)]
    assert len(links) == 4
    query = urllib.parse.parse_qs(urllib.parse.urlparse(links[0]).query)["query"][0]
    assert (f"VALUES ?system {{ <https://w3id.org/hpckg/id/system/{EL_CAPITAN}> "
            f"<https://w3id.org/hpckg/id/system/{FRONTIER}> }}") in query
    answer = web.get(urls.sparql(query), headers={"Accept": "application/sparql-results+json"}).json()
    systems = {b["system"]["value"] for b in answer["results"]["bindings"] if "system" in b}
    assert systems == {f"https://w3id.org/hpckg/id/system/{s}" for s in (EL_CAPITAN, FRONTIER)}


def test_one_chart_draws_both_histories_with_its_data(web):
    latest, earlier = listed("TOP500_202506.xlsx"), listed("TOP500_202411.xlsx")
    page = web.get(urls.compare([EL_CAPITAN, FRONTIER]), headers=HTML).text
    figure = re.search(r'<figure class="chart" id="compare-history">(.*?)</figure>', page, re.S).group(1)
    # Issue 35: drawing the chart was most of the page's first visit (80-200 ms of Vega, 263 ms in all): it is an
    # image drawn on its own request, which the browser makes as it reads the page
    image = re.search(r'<img src="([^"]+)" alt="(Line charts of rank and Rmax[^"]+)"', figure)
    assert image and "El Capitan" in image.group(2) and "Frontier" in image.group(2)
    assert html.unescape(image.group(1)) == urls.compare([EL_CAPITAN, FRONTIER], format="svg")
    drawn = web.get(html.unescape(image.group(1)))
    assert drawn.status_code == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    assert drawn.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    # tagged and kept like its page: a browser holding it revalidates for a 304
    assert drawn.headers["etag"] and "max-age" in drawn.headers["cache-control"]
    assert web.get(html.unescape(image.group(1)), headers={"If-None-Match": drawn.headers["etag"]}).status_code == 304
    svg = drawn.text
    assert svg.startswith("<svg") and "prefers-color-scheme: dark" in svg  # its own colours, light and dark
    assert re.search(r">El Capitan</text>", svg) and re.search(r">Frontier</text>", svg)  # the legend
    assert re.search(r">Rank</text>", svg) and re.search(r">Rmax \(log scale\)</text>", svg)  # both panels
    data = re.search(r'<tbody>(.*?)</tbody>', figure, re.S).group(1)
    cells = {r[0]: r[1:] for r in ([html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
                                   for tr in re.findall(r"<tr>(.*?)</tr>", data, re.S))}
    assert set(cells) == {"2024-11", "2025-06"}
    for edition, rows in (("2024-11", earlier), ("2025-06", latest)):
        assert cells[edition][0] == str(rows[EL_CAPITAN]["Rank"]) and cells[edition][2] == str(rows[FRONTIER]["Rank"])


@pytest.mark.parametrize("systems, status, words", [
    ([EL_CAPITAN], 400, "Only one system chosen"),
    ([EL_CAPITAN, FRONTIER, "kalos", "seren", "bytedance-megascale"], 400, "compare at most 4"),
    ([EL_CAPITAN, "no-such-machine"], 404, "no-such-machine"),
    ([EL_CAPITAN, "not a slug!"], 400, "is not a system"),
])
def test_too_few_too_many_or_unknown_systems_are_clear_errors(web, systems, status, words):
    page = web.get(urls.compare(systems), headers=HTML)
    assert page.status_code == status and words in html.unescape(page.text)
    assert '<form method="get" action="/compare"' in page.text  # the way on is on the error page
    twin = web.get(urls.compare(systems, "json"))
    assert twin.status_code == status and words in twin.json()["error"]["message"]
    chart = web.get(urls.compare(systems, "svg"))  # the chart's image says the same, as JSON
    assert chart.status_code == status and words in chart.json()["error"]["message"]


def test_systems_never_listed_have_no_chart(web):
    page = web.get(urls.compare(["kalos", "seren"]), headers=HTML)
    assert page.status_code == 200 and "Kalos" in page.text and 'id="compare-history"' not in page.text
    chart = web.get(urls.compare(["kalos", "seren"], "svg"))
    assert chart.status_code == 404 and "no chart" in chart.json()["error"]["message"]


def test_choosing_systems_by_search_without_typing_an_iri(web):
    start = web.get(urls.compare(), headers=HTML)
    assert start.status_code == 200 and "Choose two to four systems" in start.text
    system = web.get(urls.page("system", EL_CAPITAN), headers=HTML).text
    add = html.unescape(re.search(r'id="add-to-compare"><a href="([^"]+)"', system).group(1))
    assert add == urls.compare([EL_CAPITAN])
    found = web.get(add + "&q=frontier", headers=HTML)
    assert found.status_code == 200
    more = html.unescape(re.search(r'<a class="add" href="([^"]+)">add to compare</a>', found.text).group(1))
    assert more == urls.compare([EL_CAPITAN, FRONTIER])
    assert web.get(more, headers=HTML).status_code == 200


def test_each_systems_list_editions_are_one_line_of_its_sources(web):
    # Issue 35 (seen in the compare screenshot): Fugaku's sources were nine list items, one per TOP500 edition;
    # as on a system page, the editions are one line ("TOP500 lists, 2 editions 2024-11 … 2025-06"), each linked
    page = web.get(urls.compare([EL_CAPITAN, FRONTIER]), headers=HTML).text
    sources = re.search(r'<table class="compare" id="compare-sources">(.*?)</table>', page, re.S).group(1)
    cells = re.findall(r"<td>(.*?)</td>", sources, re.S)
    assert len(cells) == 2
    for cell in cells:
        line = html.unescape(re.search(r"<li>(TOP500 lists, .*?)</li>", cell, re.S).group(1))
        assert line.startswith("TOP500 lists, 2 editions 2024-11 … 2025-06: ")
        edition = r'<a class="edition" href="https://top500.org/lists/top500/[^"]+">'
        assert re.search(edition + "2024-11</a> · " + edition + "2025-06</a>", line)  # each edition still linked
        assert "claims" in line and "tier-reported" in line
        assert "TOP500 list, June 2025" not in cell  # not listed again one by one
    document = web.get(urls.compare([EL_CAPITAN, FRONTIER], "json")).json()
    assert len(document["sources"][0]) >= 2  # the twins keep one entry per source

