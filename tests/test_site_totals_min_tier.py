"""Leaving leads out of the site totals: accelerators-by-site and acme-total take min_tier as
accelerators-by-country does. In a copy of the project with a system added at the Acme datacenter whose
site rests on a lead, the default totals count it (and name the derived claim), min_tier=reported leaves
it out and recomputes the total and weakest tier from the derived claim's other inputs; through the CLI
and the web (?min_tier=). Orion has no country claim: accelerators-by-country counts it in its site's country,
as surely as the weaker of the site claim and the site's country claim; Vega's site and country are stated
directly, with no claim behind them, and count nowhere."""

from __future__ import annotations

import json

import httpx
import pytest

from hpckg.query import canned_query
from hpckg.serve import urls
from serve_live import start_server

from conftest import copy_project, query_rows, run_hpckg, session_project, text

ORION_QUANTITY = 1000
VEGA_QUANTITY = 777
ORION = f"""@prefix hpc:     <https://w3id.org/hpckg/ontology#> .
@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .
@prefix prov:    <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix schema:  <https://schema.org/> .
@prefix sys:     <https://w3id.org/hpckg/id/system/> .
@prefix site:    <https://w3id.org/hpckg/id/site/> .
@prefix orgn:    <https://w3id.org/hpckg/id/org/> .
@prefix part:    <https://w3id.org/hpckg/id/part/> .
@prefix cmp:     <https://w3id.org/hpckg/id/component/> .
@prefix src:     <https://w3id.org/hpckg/id/source/> .
@prefix claim:   <https://w3id.org/hpckg/id/claim/> .
@prefix chg:     <https://w3id.org/hpckg/id/change/> .
@prefix tier:    <https://w3id.org/hpckg/vocab/tier/> .
@prefix basis:   <https://w3id.org/hpckg/vocab/basis/> .
@prefix rank:    <https://w3id.org/hpckg/vocab/rank/> .
@prefix role:    <https://w3id.org/hpckg/vocab/role/> .
@prefix sourcekind: <https://w3id.org/hpckg/vocab/source-kind/> .

sys:orion a hpc:System ; rdfs:label "Orion (test)"@en ; hpc:slug "orion" .

claim:orion-operator a hpc:Claim ;
    hpc:about sys:orion ; hpc:property hpc:operator ; hpc:value orgn:shanghai-ai-lab ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank rank:preferred ; prov:hadPrimarySource src:orion-news .

claim:orion-site a hpc:Claim ;
    hpc:about sys:orion ; hpc:property hpc:site ; hpc:value site:acme ;
    hpc:tier tier:lead ; hpc:basis basis:reported ; hpc:rank rank:preferred ; prov:hadPrimarySource src:orion-news .

cmp:orion-accelerator a hpc:Component ;
    hpc:componentOf sys:orion ; hpc:role role:accelerator ; rdfs:label "Orion accelerators"@en .

claim:orion-accelerator-quantity a hpc:Claim ;
    hpc:about cmp:orion-accelerator ; hpc:property hpc:quantity ; hpc:value {ORION_QUANTITY} ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank rank:preferred ; prov:hadPrimarySource src:orion-news .

src:orion-news a hpc:Source ; dcterms:title "Orion news"@en ; schema:url <https://news.example.org/orion> ;
    hpc:sourceKind sourcekind:news-article ; hpc:slug "orion-news" .

sys:vega a hpc:System ; rdfs:label "Vega (test)"@en ; hpc:slug "vega" ; hpc:site site:vega-hall .
site:vega-hall a hpc:Site ; rdfs:label "Vega hall (test)"@en ; hpc:country <https://w3id.org/hpckg/id/country/FR> .

cmp:vega-accelerator a hpc:Component ;
    hpc:componentOf sys:vega ; hpc:role role:accelerator ; rdfs:label "Vega accelerators"@en .

claim:vega-accelerator-quantity a hpc:Claim ;
    hpc:about cmp:vega-accelerator ; hpc:property hpc:quantity ; hpc:value {VEGA_QUANTITY} ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank rank:preferred ; prov:hadPrimarySource src:orion-news .

chg:orion-2026-11-30 a hpc:ChangeEntry ; hpc:changedEntity sys:orion ;
    dcterms:date "2026-11-30"^^xsd:date ; rdfs:comment "Orion added (test)"@en .
"""
ACME = "https://w3id.org/hpckg/id/site/acme"
DERIVED = "https://w3id.org/hpckg/id/claim/acme-accelerator-count-derived"
ORION_IRI = "https://w3id.org/hpckg/id/system/orion"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("leads") / "p")
    (project / "data" / "ttl" / "systems" / "orion.ttl").write_text(ORION, encoding="utf-8")
    built = run_hpckg("build", "--no-pages", "--quiet", "--no-validate", cwd=project)
    assert built.returncode == 0, text(built)
    return project


def acme(rows: list[dict[str, str]]) -> tuple[set[str], set[str], set[str], set[str]]:
    return ({r["total"] for r in rows}, {r["weakestTier"] for r in rows}, {r["system"] for r in rows},
            {r["derived"] for r in rows})


def test_a_lead_site_claim_is_left_out_of_the_site_total_with_min_tier_reported(project):
    counted = query_rows(project, "acme-total")
    totals, tiers, systems, derived = acme(counted)
    [total] = totals
    assert ORION_IRI in systems and derived == {DERIVED}
    assert tiers == {"https://w3id.org/hpckg/vocab/tier/lead"}  # the derived total rests on Orion's lead
    assert int(total) == sum(int(r["quantity"]) for r in counted)
    without = query_rows(project, "acme-total", "--param", "min_tier=reported")
    totals, tiers, systems, derived = acme(without)
    assert ORION_IRI not in systems and systems and derived == {""}
    assert totals == {str(int(total) - ORION_QUANTITY)}
    assert tiers == {"https://w3id.org/hpckg/vocab/tier/reported"}
    assert query_rows(project, "acme-total", "--param", "min_tier=lead") == counted

    sites = {r["site"]: r for r in query_rows(project, "accelerators-by-site")}
    assert sites[ACME]["accelerators"] == total and sites[ACME]["derived"] == DERIVED
    assert sites[ACME]["leftOut"] == "0"
    reported = {r["site"]: r for r in query_rows(project, "accelerators-by-site", "--param", "min_tier=reported")}
    assert reported[ACME]["accelerators"] == str(int(total) - ORION_QUANTITY)
    assert reported[ACME]["systems"] == str(int(sites[ACME]["systems"]) - 1)
    assert reported[ACME]["leftOut"] == "1" and reported[ACME]["derived"] == ""
    assert reported[ACME]["weakestTier"] == "https://w3id.org/hpckg/vocab/tier/reported"
    # a site whose only system rests on a lead has no row at all without leads
    lead_only = {site for site, r in sites.items() if r["weakestTier"].endswith("/lead") and r["systems"] == "1"}
    assert lead_only and not lead_only & set(reported)


def test_a_system_without_a_country_claim_counts_in_its_sites_country_as_surely_as_the_site_claim(
        project, seed_store):
    china, france = "https://w3id.org/hpckg/id/country/CN", "https://w3id.org/hpckg/id/country/FR"
    before = {r["country"]: r for r in canned_rows(seed_store, "accelerators-by-country")}  # no Orion, no Vega
    countries = {r["country"]: r for r in query_rows(project, "accelerators-by-country")}
    # Orion rests on a lead site claim: counted in China, in its lead column, and left out at min_tier=reported
    assert int(countries[china]["accelerators"]) - int(before[china]["accelerators"]) == ORION_QUANTITY
    assert int(countries[china]["lead"]) - int(before[china]["lead"]) == ORION_QUANTITY
    assert int(countries[china]["systems"]) - int(before[china]["systems"]) == 1
    reported = {r["country"]: r for r in query_rows(project, "accelerators-by-country", "--param", "min_tier=reported")}
    assert reported[china]["accelerators"] == before[china]["reported"]
    # Vega's site and its country are bare triples, no claims: Vega counts in no country, and France has no row
    assert france not in countries
    assert int(countries[""]["accelerators"]) - int(before.get("", {}).get("accelerators", 0)) == VEGA_QUANTITY


def canned_rows(store, name: str) -> list[dict[str, str]]:
    result = store.query(canned_query(session_project(), name).bind({}))
    names = [v.value for v in result.variables]
    return [{n: row[n].value if row[n] is not None else "" for n in names} for row in result]


def test_the_web_takes_min_tier_for_the_site_totals(project):
    live = start_server(project / ".hpckg" / "store", "--workers", "1", "--rate-limit", "0")
    try:
        def rows(name: str, **params: str) -> list[dict[str, str]]:
            answer = httpx.get(live.url + urls.canned(name, "json", params or None), timeout=60)
            assert answer.status_code == 200, answer.text
            document = json.loads(answer.text)
            return [{k: v["value"] for k, v in b.items()} for b in document["results"]["bindings"]]

        assert {r["system"] for r in rows("acme-total")} >= {ORION_IRI}
        without = rows("acme-total", min_tier="reported")
        assert ORION_IRI not in {r["system"] for r in without} and not any("derived" in r for r in without)
        assert {r["total"] for r in without} == {r["total"] for r in query_rows(
            project, "acme-total", "--param", "min_tier=reported")}
        page = httpx.get(live.url + urls.canned("accelerators-by-site", params={"min_tier": "reported"}), timeout=60)
        assert page.status_code == 200 and "<option selected>reported</option>" in page.text
    finally:
        live.stop()
