"""`hpckg import top500`: seven real editions (1993-06 XML, 2011-11 as XML and XLS, 2014-11 XML, 2015-06 and
2015-11 XLS without System IDs, 2019-06 XLS, 2025-06 XLSX) from ../shared/data imported through the real
command into a project copy and built once; the tests then read the built graph, and compare it with the raw
files read independently (tests/test_top500_files.py's readers)."""

from __future__ import annotations

import csv
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

import stores
from hpckg.importers.run import expand
from hpckg.importers.top500 import select

from conftest import ROOT, SHARED, checkout_names, run_hpckg, text

pytestmark = pytest.mark.imports

DATA = SHARED / "data" / "top500"
FILES = ("TOP500_199306.xml", "TOP500_201111.xml", "TOP500_201111.xls", "TOP500_201411.xml", "TOP500_201506.xls",
         "TOP500_201511.xls", "TOP500_201906.xls", "TOP500_202506.xlsx")
EDITIONS = ("1993-06", "2011-11", "2014-11", "2015-06", "2015-11", "2019-06", "2025-06")
GRAPH = "https://w3id.org/hpckg/graph/import/top500/"


@pytest.fixture(scope="module")
def built() -> dict:
    """A project copy with the editions imported from one folder and built, with validation (tests/stores.py:
    the factory fails the fixture when either command does)."""
    made = stores.built(stores.Inputs(editions=FILES))
    return {"project": made.project, "import": made.imports["top500"], "build": made.build}


def query(project: Path, sparql: str) -> list[list[str]]:
    completed = run_hpckg("query", "-e", sparql, "--format", "csv", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    return list(csv.reader(out.splitlines()))[1:]


def test_a_folder_gives_one_file_per_edition_and_both_formats_of_2011_11_become_one_graph(built):
    out, _ = built["import"]
    lines = out.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("imported")] == [
        "TOP500_199306.xml", "TOP500_201111.xml", "TOP500_201411.xml", "TOP500_201506.xls", "TOP500_201511.xls",
        "TOP500_201906.xls", "TOP500_202506.xlsx"]
    assert "TOP500_201111.xls" not in out


def test_select_keeps_the_xml_where_an_edition_is_also_a_spreadsheet(tmp_path):
    for name in FILES:
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in select(sorted(tmp_path.iterdir()))] == [
        "TOP500_199306.xml", "TOP500_201111.xml", "TOP500_201411.xml", "TOP500_201506.xls", "TOP500_201511.xls",
        "TOP500_201906.xls", "TOP500_202506.xlsx"]
    assert [p.name for p in expand("top500", [tmp_path])] == [p.name for p in select(sorted(tmp_path.iterdir()))]


def test_the_build_validates_with_no_violations(built):
    out, _ = built["build"]
    assert "violations: 0" in out and "(8 machine-written graphs)" in out


def test_every_edition_has_500_ranked_entries_each_citing_its_edition(built):
    rows = query(built["project"], """
        SELECT ?edition (COUNT(DISTINCT ?system) AS ?n) (COUNT(DISTINCT ?rank) AS ?ranks) WHERE {
          ?c a hpc:Claim ; hpc:about ?system ; hpc:property hpc:listRank ; hpc:value ?rank ;
             hpc:edition ?e ; prov:hadPrimarySource ?source ; hpc:reference/hpc:statedIn ?source .
          ?e a hpc:ListEdition ; hpc:editionOf ds:top500 ; hpc:slug ?edition .
          ?source a hpc:Source ; dcterms:publisher orgn:top500 .
        } GROUP BY ?edition ORDER BY ?edition""")
    assert rows == [[f"top500-{edition}", "500", "500"] for edition in EDITIONS]


def test_rank_1_of_june_2025_is_el_capitan_with_its_rmax_as_a_claim_of_that_edition(built):
    rows = query(built["project"], """
        SELECT ?system ?name ?rmax ?when ?locator ?url WHERE {
          ?r hpc:about ?system ; hpc:property hpc:listRank ; hpc:value 1 ; hpc:edition ds:top500-2025-06 .
          ?n hpc:about ?system ; hpc:property hpc:name ; hpc:value ?name ; hpc:edition ds:top500-2025-06 .
          ?c hpc:about ?system ; hpc:property hpc:rmax ; hpc:value ?rmax ; hpc:edition ds:top500-2025-06 ;
             hpc:pointInTime ?when ; hpc:tier tier:reported ; hpc:basis basis:imported ;
             prov:hadPrimarySource src:top500-2025-06 ; hpc:reference/hpc:locator ?locator .
          src:top500-2025-06 schema:url ?url .
        }""")
    assert rows == [["https://w3id.org/hpckg/id/system/top500-180307", "El Capitan", "1742000", "2025-06",
                     "TOP500_202506.xlsx row 2", "https://top500.org/lists/top500/2025/06/"]]
    ids = query(built["project"], """
        SELECT ?id WHERE { ?c hpc:about sys:top500-180307 ; hpc:property hpc:top500SystemId ; hpc:value ?id }""")
    assert ids == [["180307"]]


def test_a_system_in_two_editions_is_one_system_with_two_ranks_and_its_latest_rmax_is_truthy(built):
    # TX-GAIA (System ID 179603): rank 51 with 3902 TFlop/s in June 2019, rank 241 with 5161 in June 2025.
    ranks = query(built["project"], """
        SELECT ?edition ?rank ?rmax WHERE {
          ?c hpc:about sys:top500-179603 ; hpc:property hpc:listRank ; hpc:value ?rank ; hpc:edition ?e .
          ?m hpc:about sys:top500-179603 ; hpc:property hpc:rmax ; hpc:value ?rmax ; hpc:edition ?e .
          ?e hpc:slug ?edition } ORDER BY ?edition""")
    assert ranks == [["top500-2019-06", "51", "3902"], ["top500-2025-06", "241", "5161"]]
    systems = query(built["project"], """
        SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?c hpc:property hpc:top500SystemId ; hpc:value "179603" ;
          hpc:about ?s }""")
    assert systems == [["1"]]
    truthy = query(built["project"], "SELECT ?rmax WHERE { sys:top500-179603 hpc:rmax ?rmax }")
    assert truthy == [["5161"]]


def test_claim_iris_come_from_what_they_state_so_reimporting_gives_the_same_graph(built, tmp_path):
    project = built["project"]
    before = (project / ".hpckg" / "graphs" / "import" / "top500" / "2019-06.nq").read_text(encoding="utf-8")
    assert "<https://w3id.org/hpckg/id/claim/top500-179603-list-rank-2019-06>" in before
    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(DATA / "TOP500_201906.xls", again / "TOP500_201906.xls")
    # Importing the same file again is a no-op that keeps the graph (and so its claim IRIs) as they were.
    completed = run_hpckg("import", "top500", str(again), cwd=project)
    assert completed.returncode == 0 and text(completed)[0].startswith("unchanged TOP500_201906.xls")


def test_a_file_without_system_ids_alone_gives_first_listed_slugs(tmp_path):
    from hpckg.importers.top500 import read
    from hpckg.importers.top500_files import read_entries

    shutil.copy(DATA / "TOP500_201506.xls", tmp_path / "TOP500_201506.xls")
    path = tmp_path / "TOP500_201506.xls"
    assert read_entries(path)[0].system_id is None
    subjects = {q.subject.value for q in read(path, GRAPH + "2015-06", names=checkout_names())}
    assert "https://w3id.org/hpckg/id/system/top500-2015-06-rank-1" in subjects
    assert "https://w3id.org/hpckg/id/claim/top500-2015-06-rank-1-rmax-2015-06" in subjects


def test_the_previous_rank_chain_ties_2015_entries_to_their_system_ids(built):
    # Tianhe-2 (System ID 177999) was number 1 in November 2014 (XML, with IDs) and in June and November 2015
    # (spreadsheets without IDs): one system, three ranks, the link's basis in the rank claim's note.
    rows = query(built["project"], """
        SELECT ?edition ?rank ?note WHERE {
          ?c hpc:about sys:top500-177999 ; hpc:property hpc:listRank ; hpc:value ?rank ; hpc:edition ?e .
          ?e hpc:slug ?edition . OPTIONAL { ?c skos:note ?note } } ORDER BY ?edition""")
    assert [row[:2] for row in rows][:3] == [["top500-2014-11", "1"], ["top500-2015-06", "1"], ["top500-2015-11", "1"]]
    assert rows[0][2] == ""
    # The note says which entry the link went through and what the two agree on.
    everything = "agreeing on site, computer, cores, Rmax and country"
    assert f"previous rank (2014-11 rank 1, {everything})" in rows[1][2]
    assert f"previous rank (2015-06 rank 1, {everything})" in rows[2][2]


def test_a_machine_first_listed_without_ids_keeps_one_identity_across_editions(built):
    # Entries new in 2015-06 that are still listed in 2015-11 (and never again in an edition with IDs here)
    # are one system each, keyed by where they were first listed, with two ranks.
    rows = query(built["project"], """
        SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
          ?a hpc:about ?s ; hpc:property hpc:listRank ; hpc:edition ds:top500-2015-06 .
          ?b hpc:about ?s ; hpc:property hpc:listRank ; hpc:edition ds:top500-2015-11 .
          FILTER (STRSTARTS(STR(?s), "https://w3id.org/hpckg/id/system/top500-2015-06-rank-")) }""")
    assert int(rows[0][0]) > 20


def test_a_value_the_list_repeats_is_one_claim_citing_every_edition(built):
    # TX-GAIA's name is listed in June 2019 and June 2025: one claim, two editions, two sources, two references.
    rows = query(built["project"], """
        SELECT ?claim (COUNT(DISTINCT ?e) AS ?editions) (COUNT(DISTINCT ?src) AS ?sources)
               (COUNT(DISTINCT ?ref) AS ?refs) WHERE {
          ?claim hpc:about sys:top500-179603 ; hpc:property hpc:name ; hpc:edition ?e ;
                 prov:hadPrimarySource ?src ; hpc:reference ?ref } GROUP BY ?claim""")
    assert len(rows) == 1 and rows[0][1:] == ["2", "2", "2"]


def test_xml_and_spreadsheet_of_one_edition_give_the_same_claims(tmp_path):
    from hpckg.importers.top500 import read

    for name in ("TOP500_201111.xml", "TOP500_201111.xls"):
        shutil.copy(DATA / name, tmp_path / name)
    value = "https://w3id.org/hpckg/ontology#value"

    def claims(path: Path) -> dict[str, set]:
        found: dict[str, set] = {}
        for quad in read(path, GRAPH + "2011-11", names=checkout_names()):
            if quad.predicate.value == value:
                found.setdefault(quad.subject.value, set()).add(quad.object)
        return found

    from_xml, from_sheet = claims(tmp_path / "TOP500_201111.xml"), claims(tmp_path / "TOP500_201111.xls")
    assert len(from_xml) > 6000 and from_xml == from_sheet


def test_top500_editions_matches_the_raw_files(built):
    from test_top500_files import raw_rmax_sum_tflops

    completed = run_hpckg("query", "top500-editions", "--format", "csv", cwd=built["project"])
    out, err = text(completed)
    assert completed.returncode == 0, err
    header, *rows = list(csv.reader(out.splitlines()))
    assert header == ["edition", "entries", "rmaxSumTflops", "topSystem", "topRmaxTflops"]
    assert [row[0] for row in rows] == list(EDITIONS)
    by_edition = {row[0]: row for row in rows}
    for edition in EDITIONS:
        # Of an edition published as XML and spreadsheet, the figures are the spreadsheet's (merge_twins).
        raw = DATA / max((name for name in FILES if name[7:13] == edition.replace("-", "")),
                         key=lambda name: name.endswith((".xls", ".xlsx")))
        assert by_edition[edition][1] == "500"
        assert Decimal(by_edition[edition][2]) == raw_rmax_sum_tflops(raw), edition
    assert by_edition["1993-06"][3:] == ["CM-5/1024", "0.0597"]
    assert by_edition["2025-06"][3:] == ["El Capitan", "1742000"]


def test_manufacturer_country_and_parts_are_entities_today_s_queries_see(built):
    project = built["project"]
    rows = query(project, """
        SELECT ?supplier ?parent ?country ?cpu WHERE {
          ?integrator hpc:componentOf sys:top500-180307 ; hpc:role role:integrator ; hpc:supplierAtBuild ?supplier .
          ?supplier hpc:rollsUpTo ?parent .
          sys:top500-180307 hpc:country ?country .
          ?cpuComponent hpc:componentOf sys:top500-180307 ; hpc:role role:cpu ; hpc:partModel ?part .
          ?part rdfs:label ?cpu }""")
    assert rows == [["https://w3id.org/hpckg/id/org/hpe", "https://w3id.org/hpckg/id/org/hpe",
                     "https://w3id.org/hpckg/id/country/US", "AMD 4th Gen EPYC 24C 1.8GHz"]]
    # "SGI" in 2011 was SGI International, which rolls up to HPE today.
    rows = query(project, """
        SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {
          ?c hpc:role role:integrator ; hpc:supplierAtBuild orgn:sgi ; hpc:componentOf ?s .
          ?r hpc:about ?s ; hpc:property hpc:listRank ; hpc:edition ds:top500-2011-11 . }""")
    assert int(rows[0][0]) > 0


def test_reading_a_file_twice_mints_the_same_iris():
    from hpckg.importers.top500 import read

    path = DATA / "TOP500_199306.xml"
    names = checkout_names()
    assert set(read(path, GRAPH + "1993-06", names=names)) == set(read(path, GRAPH + "1993-06", names=names))


def test_every_query_about_the_top500_answers_on_imported_editions(built):
    from hpckg.project import discover
    from hpckg.query import canned_queries

    about = [q.name for q in canned_queries(discover(explicit=ROOT)) if q.needs == ("top500",)]
    assert {"top500-editions", "performance-share-by-country", "performance-share-by-vendor",
            "rmax-changes"} <= set(about)
    for name in about:
        completed = run_hpckg("query", name, "--format", "csv", cwd=built["project"])
        out, err = text(completed)
        assert completed.returncode == 0, err
        assert len(out.splitlines()) > 1, f"{name} answered no rows"


def test_shares_per_edition_add_up_to_the_whole_edition(built):
    for name in ("performance-share-by-country", "performance-share-by-vendor"):
        completed = run_hpckg("query", name, "--format", "csv", cwd=built["project"])
        header, *rows = list(csv.reader(text(completed)[0].splitlines()))
        share = header.index("sharePercent")
        totals: dict[str, Decimal] = {}
        for row in rows:
            totals[row[0]] = totals.get(row[0], Decimal(0)) + Decimal(row[share])
        # Rounded to 0.01 % per row; self-made systems have no vendor.
        assert all(Decimal("95") < total < Decimal("100.5") for total in totals.values()), (name, totals)


def raw_cores_and_ids(path: Path) -> tuple[int, set[str]]:
    """The sum of cores and the System IDs of a file, read straight from it (not through the reader)."""
    import xml.etree.ElementTree as ET

    import openpyxl
    import xlrd

    if path.suffix == ".xml":
        ns = "{http://www.top500.org/xml/top500/1.0}"
        sites = list(ET.parse(path).getroot().iter(ns + "site"))
        return (sum(int(float(s.findtext(ns + "number-of-processors"))) for s in sites),
                {s.findtext(ns + "system-id") for s in sites if s.findtext(ns + "system-id")})
    if path.suffix == ".xls":
        sheet = xlrd.open_workbook(str(path)).sheet_by_index(0)
        header = [str(h) for h in sheet.row_values(0)]
        rows = [sheet.row_values(r) for r in range(1, sheet.nrows)]
    else:
        table = list(openpyxl.load_workbook(str(path), read_only=True).worksheets[0].iter_rows(values_only=True))
        header, rows = [str(h) for h in table[0]], [list(r) for r in table[1:] if any(c is not None for c in r)]
    cores = header.index("Total Cores")
    ids = header.index("System ID") if "System ID" in header else None
    return (sum(int(row[cores]) for row in rows),
            {str(int(row[ids])) for row in rows if ids is not None and row[ids] not in (None, "")})


def test_cores_and_distinct_systems_per_edition_match_the_raw_files(built):
    rows = query(built["project"], """
        SELECT ?edition (SUM(?cores) AS ?total) (COUNT(DISTINCT ?s) AS ?systems) WHERE {
          ?c hpc:property hpc:cores ; hpc:value ?cores ; hpc:about ?s ; hpc:edition ?e . ?e hpc:slug ?edition
        } GROUP BY ?edition""")
    by_edition = {row[0].removeprefix("top500-"): row for row in rows}
    for name in ("TOP500_199306.xml", "TOP500_201411.xml", "TOP500_201906.xls", "TOP500_202506.xlsx"):
        cores, ids = raw_cores_and_ids(DATA / name)
        edition = f"{name[7:11]}-{name[11:13]}"
        assert int(by_edition[edition][1]) == cores, edition
        assert int(by_edition[edition][2]) == len(ids) == 500, edition
        systems = query(built["project"], f"""
            SELECT (COUNT(DISTINCT ?id) AS ?n) WHERE {{
              ?r hpc:property hpc:listRank ; hpc:edition ds:top500-{edition} ; hpc:about ?s .
              ?i hpc:about ?s ; hpc:property hpc:top500SystemId ; hpc:value ?id }}""")
        assert int(systems[0][0]) == len(ids), edition


def test_imported_figures_round_trip_through_export(built, tmp_path):
    import pyoxigraph as ox

    out = tmp_path / "dump.nq"
    completed = run_hpckg("export", "--format", "nq", "--out", str(out), cwd=built["project"])
    assert completed.returncode == 0, text(completed)
    claim = ox.NamedNode("https://w3id.org/hpckg/id/claim/top500-180307-rmax-2025-06")
    value = ox.NamedNode("https://w3id.org/hpckg/ontology#value")
    values = {q.object.value for q in ox.parse(path=str(out), format=ox.RdfFormat.N_QUADS)
              if q.subject == claim and q.predicate == value}
    assert values == {"1742000"}


def test_every_system_is_labelled_by_its_latest_name_else_the_list_s_description_of_it(built):
    """No "TOP500 system N" titles where the list has text: the display label (queries/rules/12-display-label.rq)
    is the latest name the list gave, else the latest Computer description, and each system has one."""
    from hpckg.importers.top500 import merged_entries
    from hpckg.importers.top500_identity import identities_for

    latest: dict[str, tuple[str, str | None, str]] = {}  # System ID -> (edition, name, computer)
    folder = built["project"] / "top500"  # the files as imported (2014-11 without its spreadsheet twin)
    for path in select(folder / name for name in FILES):  # oldest first
        identities = identities_for(path)
        for entry in merged_entries(path):
            identity = identities.of(entry, path)
            if identity is not None and not identity.synthetic:
                known = latest.get(identity.system_id)
                # An edition without a name keeps the name of an earlier one (the truthy name is the latest
                # name claim), so only a later name or description replaces what is known.
                latest[identity.system_id] = (entry.edition, entry.name or (known[1] if known else None),
                                              entry.computer)
    rows = query(built["project"], """
        SELECT ?system (COUNT(?label) AS ?labels) (SAMPLE(?label) AS ?one) WHERE {
          ?system a hpc:System ; hpc:slug ?slug FILTER (STRSTARTS(?slug, "top500-"))
          ?system rdfs:label ?label } GROUP BY ?system""")
    labels = {row[0].rsplit("/top500-", 1)[-1]: (int(row[1]), row[2]) for row in rows}
    assert labels, "no TOP500 systems"
    assert {n for n, _ in labels.values()} == {1}
    placeholders = [label for _, label in labels.values() if label.startswith("TOP500 ")]
    assert placeholders == []
    compared = 0
    for system_id, (_, name, computer) in latest.items():
        if system_id in labels:
            assert labels[system_id][1] == (name or computer), system_id
            compared += 1
    assert compared > 1000
    # The K computer and 1993's first number one, to which the lists give no name.
    assert labels["177232"][1].startswith("K computer, SPARC64")  # the list gives it no name
    first = query(built["project"], """
        SELECT ?label WHERE { ?r hpc:about ?s ; hpc:property hpc:listRank ; hpc:value 1 ;
                                 hpc:edition ds:top500-1993-06 . ?s rdfs:label ?label }""")
    assert first == [["CM-5/1024"]]


def test_an_edition_lists_names_and_sites_as_that_edition_printed_them(built):
    """The rows of /lists/top500/EDITION (hpckg.serve.editions) against the raw file of each edition: the name
    the entry had then (else its Computer text) and the site's words of that edition (hpc:statedAs)."""
    from hpckg.importers.top500 import merged_entries
    from hpckg.serve.editions import edition_rows
    from hpckg.store import Store

    made = stores.built(stores.Inputs(editions=FILES))
    store = Store(made.store, read_only=True)
    for path in select(made.project / "top500" / name for name in FILES):
        edition = path.name[7:11] + "-" + path.name[11:13]
        raw = {entry.rank: entry for entry in merged_entries(path)}
        rows = edition_rows(store, edition)
        assert len(rows) == 500, edition
        for row in rows:
            entry = raw[row["rank"]]
            assert row["name"] == (entry.name or entry.computer), (edition, row["rank"])
            assert row["siteLabel"] == entry.site, (edition, row["rank"])


def test_the_import_summary_counts_distinct_machines_by_how_they_were_identified(built):
    out, _ = built["import"]
    line = next((line for line in out.splitlines() if line.startswith("TOP500: ")), None)
    assert line is not None, out
    total, by_id, without = (int(n.replace(",", "")) for n in re.findall(r"([\d,]+) (?:distinct|by System|without)",
                                                                          line))
    systems = query(built["project"], """
        SELECT (COUNT(DISTINCT ?s) AS ?all) (COUNT(DISTINCT ?withId) AS ?ids) WHERE {
          ?r hpc:property hpc:listRank ; hpc:about ?s .
          OPTIONAL { ?i hpc:about ?s ; hpc:property hpc:top500SystemId . BIND (?s AS ?withId) } }""")
    assert (total, by_id, without) == (int(systems[0][0]), int(systems[0][1]), int(systems[0][0]) - int(systems[0][1]))
    assert by_id > 0 and without > 0


def test_system_moves_lists_every_system_whose_country_or_site_changes_and_no_derived_link_crosses_a_country(built):
    completed = run_hpckg("query", "system-moves", "--format", "csv", cwd=built["project"])
    out, err = text(completed)
    assert completed.returncode == 0, err
    header, *rows = list(csv.reader(out.splitlines()))
    column = {name: i for i, name in enumerate(header)}
    listed = {(row[column["system"]], row[column["what"]]) for row in rows}
    # Recomputed here from the claims: a system with two country values, or two site records sharing no name.
    values = query(built["project"], """
        SELECT ?s ?p ?v WHERE { VALUES ?p { hpc:site hpc:country }
          ?c hpc:property ?p ; hpc:about ?s ; hpc:value ?v ; hpc:edition/hpc:editionOf ds:top500 }""")
    names = query(built["project"], """
        SELECT ?site ?name WHERE { ?c hpc:property hpc:site ; hpc:value ?site . ?site skos:altLabel ?name }""")
    names_of: dict[str, set[str]] = {}
    for site, name in names:
        names_of.setdefault(site, set()).add(name)
    grouped: dict[tuple[str, str], set[str]] = {}
    for system, prop, value in values:
        grouped.setdefault((system, prop.rsplit("#", 1)[1]), set()).add(value)
    expected = set()
    for (system, what), found in grouped.items():
        pairs = [(a, b) for a in found for b in found if a < b]
        if any(what == "country" or not names_of.get(a, set()) & names_of.get(b, set()) for a, b in pairs):
            expected.add((system, what))
    assert listed == expected
    assert any(what == "site" for _, what in listed)
    # A link the importer derived (its evidence in the rank claim's note) never crosses a change of country.
    assert not [row for row in rows if row[column["what"]] == "country"
                and (row[column["linkBefore"]] or row[column["linkAfter"]])]


def test_one_machine_is_on_one_site_record_across_editions_with_and_without_site_ids(built):
    """2015-06 and 2015-11 give no Site IDs: their entries are tied to the Site ID the machine, or the name in
    its country, has in 2014-11 and 2019-06 (hpckg.importers.top500_sites), not keyed by the name."""
    rows = query(built["project"], """
        SELECT ?s (COUNT(DISTINCT ?site) AS ?n) (GROUP_CONCAT(DISTINCT STR(?site); separator=" ") AS ?sites)
        WHERE { ?c hpc:property hpc:site ; hpc:about ?s ; hpc:value ?site } GROUP BY ?s""")
    on_two = [row for row in rows if int(row[1]) > 1]
    on_an_id_and_a_name = [row for row in on_two if "top500-site-5" in row[2] and any(
        not part.rsplit("-", 1)[-1].isdigit() for part in row[2].split())]
    assert len(on_an_id_and_a_name) <= 5, on_an_id_and_a_name[:10]


def test_sites_are_titled_by_the_name_the_latest_edition_gives_them_once(built):
    rows = query(built["project"], """
        SELECT ?site (COUNT(DISTINCT ?label) AS ?n) (SAMPLE(?label) AS ?one) WHERE {
          ?site a hpc:Site ; rdfs:label ?label . FILTER(STRSTARTS(STR(?site), STR(site:top500-site-)))
        } GROUP BY ?site""")
    assert rows and all(row[1] == "1" for row in rows), [row for row in rows if row[1] != "1"][:5]
    assert not [row for row in rows if row[2].startswith("TOP500 site")]
    [[label]] = query(built["project"], """
        SELECT ?label WHERE { sys:top500-180047 hpc:site ?site . ?site rdfs:label ?label }""")
    assert label == "DOE/SC/Oak Ridge National Laboratory"


def test_frontiers_operator_is_derived_from_its_site(built):
    rows = query(built["project"], """
        SELECT ?label ?tier ?basis ?input WHERE {
          sys:top500-180047 hpc:operator ?organisation . ?organisation rdfs:label ?label .
          ?claim a hpc:BestClaim, hpc:DerivedClaim ; hpc:about sys:top500-180047 ; hpc:property hpc:operator ;
                 hpc:tier ?tier ; hpc:basis ?basis ; prov:wasDerivedFrom ?input .
          ?input hpc:property hpc:site }""")
    assert rows == [["DOE/SC/Oak Ridge National Laboratory", "https://w3id.org/hpckg/vocab/tier/reported",
                     "https://w3id.org/hpckg/vocab/basis/derived",
                     "https://w3id.org/hpckg/id/claim/top500-180047-site-" + rows[0][3].rsplit("-site-", 1)[-1]]]


def test_systems_at_anonymised_sites_keep_their_operator_not_named(built):
    rows = query(built["project"], """
        SELECT ?s ?name ?operator WHERE {
          ?s hpc:site ?site . ?site rdfs:label ?name . FILTER(REGEX(?name, "^Energy Company"))
          OPTIONAL { ?s hpc:operator ?operator }
          ?unnamed hpc:about ?s ; hpc:property hpc:operator ; a hpc:SomeValueClaim, hpc:BestClaim }""")
    assert rows and all(row[2] == "" for row in rows), rows[:5]



def test_every_system_at_a_named_site_has_an_operator(built):
    from hpckg.importers.top500_sites import anonymised

    rows = query(built["project"], """
        SELECT ?s ?name ?operator WHERE { ?s hpc:site ?site . ?site rdfs:label ?name
                                          FILTER(STRSTARTS(STR(?s), STR(sys:top500-)))
                                          OPTIONAL { ?s hpc:operator ?operator } }""")
    named = [row for row in rows if anonymised(row[1]) is None]
    assert len(named) > 1500 and len(rows) > len(named)
    assert [row for row in named if not row[2]] == []


def test_the_lists_processor_and_interconnect_families_are_claims_citing_their_editions(built):
    # The spreadsheets' Processor Technology and Interconnect Family columns, for the statistics per edition;
    # 2011-11 is the XML completed from its spreadsheet twin, 1993-06's XML has no such column.
    rows = query(built["project"], """
        SELECT ?edition ?property (COUNT(DISTINCT ?system) AS ?systems) (COUNT(DISTINCT ?source) AS ?sources) WHERE {
          ?claim hpc:property ?property ; hpc:about ?system ; hpc:edition ?e ; prov:hadPrimarySource ?source ;
                 hpc:tier ?tier ; hpc:basis ?basis .
          FILTER (?property IN (hpc:processorFamily, hpc:interconnectFamily))
          ?e dcterms:issued ?issued . BIND (STR(?issued) AS ?edition) }
        GROUP BY ?edition ?property ORDER BY ?edition ?property""")
    found = {(edition, prop.rsplit("#", 1)[-1]): int(systems) for edition, prop, systems, _ in rows}
    expected = {}
    for edition, file in (("2011-11", "TOP500_201111.xls"), ("2025-06", "TOP500_202506.xlsx")):
        for prop, column in (("processorFamily", "Processor Technology"),
                             ("interconnectFamily", "Interconnect Family")):
            expected[edition, prop] = sum(1 for value in spreadsheet_column(file, column) if value not in (None, ""))
    assert {key: found.get(key) for key in expected} == expected
    assert not any(edition == "1993-06" for edition, _ in found)


def spreadsheet_column(file: str, column: str) -> list[object]:
    """A column's cells in a TOP500 spreadsheet (xlrd for .xls, openpyxl for .xlsx)."""
    path = stores.TOP500 / file
    if path.suffix == ".xls":
        import xlrd

        sheet = xlrd.open_workbook(str(path)).sheet_by_index(0)
        index = sheet.row_values(0).index(column)
        return [sheet.cell_value(row, index) for row in range(1, sheet.nrows)]
    from openpyxl import load_workbook

    rows = load_workbook(path, read_only=True).active.iter_rows(values_only=True)
    index = list(next(rows)).index(column)
    return [row[index] for row in rows if row[0] is not None]
