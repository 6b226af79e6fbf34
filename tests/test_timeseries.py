"""Issue 9: a TOP500-style system file (one machine across five list editions, every claim at normal rank)
and an Epoch AI-style row (no source URL, Likely certainty, no named owner) build, validate and give the
right plain triples, totals, page header and timeline.

Both fixtures go through a real `build()` into an on-disk Oxigraph store, with the curated data beside them;
totals are checked as what the fixtures add to the curated data's (whatever systems data/ttl/ holds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hpckg.build import build
from hpckg.namespaces import ID, PREFIXES
from hpckg.page.read import system_page
from hpckg.query import bind_parameters
from hpckg.store import Store

from conftest import session_project

FIXTURES = Path(__file__).parent / "fixtures" / "timeseries"
TOP500 = FIXTURES / "top500-style.ttl"
EPOCH = FIXTURES / "epoch-style.ttl"
QUERIES = Path(__file__).resolve().parents[1] / "queries"
SYS = ID + "system/"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    path = tmp_path_factory.mktemp("timeseries") / "store"
    summary = build(session_project(), store_path=path, extra=[TOP500, EPOCH])
    assert summary.report is not None and summary.report.conforms, summary.report
    built = Store(path, read_only=True)
    yield built
    built.close()


def short(value: str) -> str:
    for prefix, namespace in sorted(PREFIXES.items(), key=lambda item: -len(item[1])):
        if value.startswith(namespace):
            return f"{prefix}:{value[len(namespace):]}"
    return value


def plain(store: Store, subject: str, prop: str) -> list[str]:
    return sorted(short(r["v"].value) for r in store.query(f"SELECT ?v WHERE {{ {subject} {prop} ?v }}"))


def run(store: Store, name: str, *, include_all: bool = False) -> list[dict[str, str]]:
    text = (QUERIES / f"{name}.rq").read_text(encoding="utf-8")
    if include_all:
        text = bind_parameters(text, {"include_all": "true"}, session_project().ontology_dir)
    result = store.query(text)
    names = [v.value for v in result.variables]
    return [{n: short(row[n].value) for n in names if row[n] is not None} for row in result]


# --- TOP500-style ---------------------------------------------------------------------------------------

def test_top500_plain_triples_are_the_current_values(store):
    """One value per property, the current one: latest edition's rank and Rmax, the site after the move,
    the name after the rename, the status after decommissioning."""
    s = "sys:t5-blue-star"
    assert plain(store, s, "hpc:listRank") == ["15"]
    assert plain(store, s, "hpc:rmax") == ["18.2"]
    assert plain(store, s, "hpc:rpeak") == ["21"]
    assert plain(store, s, "hpc:site") == ["site:t5-site-b"]
    assert plain(store, s, "hpc:name") == ["Blue Star II"]
    assert plain(store, s, "hpc:status") == ["status:decommissioned"]
    assert plain(store, s, "hpc:top500SystemId") == ["179999"]
    assert plain(store, "cmp:t5-blue-star-accelerator", "hpc:quantity") == ["2000"]
    # each plain triple comes from exactly one hpc:BestClaim
    rows = list(store.query("""SELECT ?p (COUNT(?c) AS ?n) WHERE {
        ?c a hpc:BestClaim ; hpc:about sys:t5-blue-star ; hpc:property ?p } GROUP BY ?p"""))
    assert rows and all(int(r["n"].value) == 1 for r in rows), [(r["p"], r["n"]) for r in rows]


def test_top500_edition_entries_keep_their_edition(store):
    rows = run_select(store, """SELECT ?edition ?rank ?date WHERE {
        ?c hpc:about sys:t5-blue-star ; hpc:property hpc:listRank ; hpc:value ?rank ; hpc:edition ?edition ;
           hpc:pointInTime ?date . ?edition hpc:editionOf ds:top500 } ORDER BY ?date""")
    assert [(r["rank"], r["date"]) for r in rows] == [
        ("12", "2018-06"), ("9", "2018-11"), ("7", "2019-06"), ("7", "2019-11"), ("15", "2020-06")]


def run_select(store: Store, sparql: str) -> list[dict[str, str]]:
    result = store.query(sparql)
    names = [v.value for v in result.variables]
    return [{n: short(row[n].value) for n in names if row[n] is not None} for row in result]


# The store holds the curated data beside the fixtures, and data/ttl/ may hold systems in any country (a
# planned US system, an operational Japanese one). So a total is read as what the fixtures add to it: the
# answer on this store minus the same query's answer on the curated data alone (the session's seed_store).

COUNTED = ("accelerators", "systems", "verified", "reported", "lead", "claims")
TIERS = {"tier:lead": 1, "tier:reported": 2, "tier:verified": 3}


def by_country(store: Store, include_all: bool) -> dict[str | None, dict[str, str]]:
    return {r.get("country"): r for r in run(store, "accelerators-by-country", include_all=include_all)}


def added_by_fixtures(store: Store, seed_store: Store, *, include_all: bool = False) -> dict[str | None, dict]:
    """Per country, what the fixtures add to each count of accelerators-by-country, for the countries whose
    row they change."""
    after, before = by_country(store, include_all), by_country(seed_store, include_all)
    added = {}
    for country in after.keys() | before.keys():
        new, old = after.get(country, {}), before.get(country, {})
        delta = {n: int(new.get(n, 0)) - int(old.get(n, 0)) for n in COUNTED}
        if any(delta.values()) or new.get("weakestTier") != old.get("weakestTier"):
            added[country] = delta
    return added


def test_top500_decommissioned_system_is_in_no_total_unless_asked(store, seed_store):
    assert not run_select(store, "SELECT ?c WHERE { ?c hpc:about site:t5-site-a ; hpc:property hpc:acceleratorCount }")
    assert not run_select(store, "SELECT ?c WHERE { ?c hpc:about site:t5-site-b ; hpc:property hpc:acceleratorCount }")
    added = added_by_fixtures(store, seed_store)
    # only the Epoch-style row (no country) adds to a total: neither of Blue Star's countries, JP now, US in 2018
    assert set(added) == {None}, added
    assert "country:JP" not in added and "country:US" not in added
    operators = {r.get("operator"): r for r in run(store, "accelerators-by-operator")}
    assert "orgn:t5-lab" not in operators


def test_top500_counted_once_at_its_current_site_with_its_current_quantity_when_asked(store, seed_store):
    added = added_by_fixtures(store, seed_store, include_all=True)
    assert set(added) == {"country:JP", None}, added
    assert "country:US" not in added, "the 2018 site no longer counts"
    japan = added["country:JP"]
    assert (japan["accelerators"], japan["systems"], japan["reported"], japan["verified"], japan["lead"]) == (
        2000, 1, 2000, 0, 0)
    # the row's weakest tier is reported, or the curated Japanese systems' weakest tier if that is weaker
    curated = by_country(seed_store, True).get("country:JP")
    weakest = min(["tier:reported"] + ([curated["weakestTier"]] if curated else []), key=TIERS.__getitem__)
    assert by_country(store, True)["country:JP"]["weakestTier"] == weakest
    operators = {r.get("operator"): r for r in run(store, "accelerators-by-operator", include_all=True)}
    assert operators["orgn:t5-lab"]["accelerators"] == "2000"


def test_top500_page_header_and_timeline(store):
    page = system_page(store, SYS + "t5-blue-star")
    assert (page.status.text, page.status.as_of) == ("decommissioned", "2021-03")
    assert page.operator.text == "Example National Lab"
    rmax = next(row for row in page.performance if row.label == "Rmax")
    assert (rmax.figure.display, rmax.figure.as_of) == ("18.2 TFlop/s", "2020-06")
    events = [(e.date, e.label) for e in page.timeline]
    for expected in [("2018-06", "list rank: 12 (TOP500 June 2018)"),
                     ("2019-06", "Rmax: 18.2 TFlop/s (TOP500 June 2019)"),
                     ("2019-03", "site Example Lab, Building A ends"), ("2019-06", "site → Example Lab, Kobe annex"),
                     ("2020-01", "name → Blue Star II"), ("2021-03", "Decommissioned"),
                     ("2021-03", "status → decommissioned")]:
        assert expected in events, (expected, events)
    assert events == sorted(events)


def test_top500_integrator_was_acquired_and_rolls_up_to_hpe(store):
    page = system_page(store, SYS + "t5-blue-star")
    integrator = next(c for c in page.components if c.role.text == "Integrator")
    assert integrator.supplier and integrator.supplier.text == "Cray"
    assert integrator.supplier_parent and integrator.supplier_parent.href == ID + "org/hpe"


def test_top500_references_keep_the_locator(store):
    rows = run_select(store, """SELECT ?locator ?retrieved WHERE {
        claim:t5-blue-star-rank-2019-06 hpc:reference ?r . ?r hpc:statedIn src:top500-2019-06 ;
        hpc:locator ?locator ; hpc:retrieved ?retrieved }""")
    assert rows == [{"locator": "June 2019 list, rank 7", "retrieved": "2026-11-29"}]


# --- Epoch-style ----------------------------------------------------------------------------------------

def test_epoch_row_without_owner_validates_and_makes_no_operator_triple(store):
    assert plain(store, "sys:ep-anon-cluster", "hpc:operator") == []
    assert plain(store, "sys:ep-anon-cluster", "hpc:country") == []
    assert run_select(store, """SELECT ?c WHERE { ?c a hpc:SomeValueClaim , hpc:BestClaim ;
        hpc:about sys:ep-anon-cluster ; hpc:property hpc:operator }""")
    page = system_page(store, SYS + "ep-anon-cluster")
    assert page.operator.text == "not named" and page.operator.tier and page.operator.tier.label == "lead"
    assert plain(store, "sys:ep-anon-cluster", "hpc:epochClusterName") == ["Anonymous 10k H100 cluster"]


def test_epoch_certainty_is_kept_next_to_the_mapped_tier(store):
    rows = run_select(store, """SELECT ?tier ?certainty WHERE {
        claim:ep-anon-cluster-accelerator-quantity hpc:tier ?tier ; hpc:reference/hpc:sourceCertainty ?certainty }""")
    assert rows == [{"tier": "tier:lead", "certainty": "Likely"}]
    # the Unlikely figure is kept, deprecated with its reason, and is never the value
    assert plain(store, "cmp:ep-anon-cluster-accelerator", "hpc:quantity") == ["10000"]
    assert run_select(store, """SELECT ?r WHERE { claim:ep-anon-cluster-accelerator-quantity-unlikely
        hpc:rank rank:deprecated ; hpc:deprecationReason ?r }""") == [{"r": "deprecationreason:unlikely"}]


def test_epoch_duplicate_records_are_linked_not_merged_and_count_once(store, seed_store):
    assert plain(store, "sys:ep-anon-cluster", "hpc:sameMachineAs") == ["sys:ep-anon-cluster-dup"]
    assert not run_select(store, "SELECT ?x WHERE { sys:ep-anon-cluster owl:sameAs ?x }")
    unnamed = added_by_fixtures(store, seed_store)[None]
    assert (unnamed["accelerators"], unnamed["systems"], unnamed["lead"]) == (10000, 1, 10000)


def test_external_ids_link_through_their_formatter_url(store):
    from hpckg.page.html import render_html
    from hpckg.page.markdown import render_markdown
    page = system_page(store, SYS + "t5-blue-star")
    row = next(r for r in page.facts if r.label == "TOP500 system ID")
    assert (row.figure.text, row.figure.url) == ("179999", "https://www.top500.org/system/179999")
    assert '<a href="https://www.top500.org/system/179999">179999</a>' in render_html(page)
    assert "179999 <https://www.top500.org/system/179999>" in render_markdown(page)
    epoch = system_page(store, SYS + "ep-anon-cluster")
    name = next(r for r in epoch.facts if r.label == "Epoch AI cluster name")
    assert name.figure.url is None, "Epoch's dataset has no per-record URL"
