"""The claims toolkit: a small system written through the builder conforms to shapes/, and every claim the
builder makes reads back identically through the one reader."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest

from hpckg.build import load_files, materialise
from hpckg.claims import (
    claim_iri,
    claim_quads,
    entity_quads,
    find_iri,
    label,
    labels,
    line_of,
    make_claim,
    read_claims,
    shorten,
    source_check_quads,
    source_quads,
)
from hpckg.namespaces import entity, graph_for, hpc
from hpckg.store import Store
from hpckg.validate import validate
from hpckg.values import AnyUri, Iri, Text, Year, YearMonth, parse_date, term, value_of

from conftest import session_project

GRAPH = graph_for("imported/example.nq")
SYSTEM, ORG, CMP = entity("system", "zeta"), entity("org", "zeta-lab"), entity("component", "zeta-accelerator")


def small_system() -> tuple[list[ox.Quad], list]:
    """Zeta: a system, its operator, one component, the operator's paper and an independent article."""
    quads = entity_quads("system", "zeta", label="Zeta (Zeta Lab)", alt_labels=["Zeta cluster"], graph=GRAPH)
    quads += entity_quads("org", "zeta-lab", label="Zeta Lab", graph=GRAPH)
    quads += entity_quads("org", "daily-news", label="Daily News", graph=GRAPH)
    quads += entity_quads("part", "gpu-z", label="GPU Z", graph=GRAPH)
    quads += entity_quads("component", "zeta-accelerator", label="Zeta accelerators", component_of="zeta",
                          role="accelerator", graph=GRAPH)
    quads += source_quads("zeta-paper", title="Zeta, by its operator", kind="paper", creators=["zeta-lab"],
                          url="https://arxiv.org/abs/0000.00001", arxiv_id="0000.00001", issued="2024-03-11",
                          graph=GRAPH)
    quads += source_quads("zeta-news", title="Zeta switched on", kind="news-article", creators=["daily-news"],
                          url="https://news.example/zeta", issued=YearMonth(2024, 4), graph=GRAPH)
    quads += entity_quads("software", "zeta-verify", label="zeta verify", graph=GRAPH)
    quads += source_check_quads("zeta-paper-2026-10-09", source="zeta-paper", system="zeta",
                                result="names-system-part-count", ended="2026-10-09", software="zeta-verify",
                                checked_by="zeta verify", terms_found=["GPU Z"], count_found=1024, graph=GRAPH)
    claims = [
        make_claim(SYSTEM, "operator", Iri(ORG), tier="reported", sources="zeta-paper", basis="operator-stated",
                   rank="preferred", as_of="2024-03"),
        make_claim(CMP, "partModel", Iri(entity("part", "gpu-z")), tier="reported", sources=["zeta-paper"],
                   basis="reported"),
        make_claim(CMP, "quantity", 1024, tier="reported", sources=["zeta-paper", "zeta-news"],
                   basis="reported", as_of=dt.date(2024, 3, 11), note="As counted in the paper's table 1."),
        make_claim(CMP, "nodeCount", 128, tier="reported", sources=["zeta-paper"], basis="reported"),
        make_claim(CMP, "perNode", 8, tier="reported", sources=["zeta-paper"], basis="reported"),
        make_claim(CMP, "quantity", None, tier="lead", sources=["zeta-news"], bounds={"minExclusive": 1000},
                   basis="reported", rank="deprecated", qualifier="zeta-news", as_of=Year(2024),
                   superseded_by=[claim_iri(CMP, "quantity")]),
    ]
    for claim in claims:
        quads += claim_quads(claim, graph=GRAPH)
    return quads, claims


def world(quads: list[ox.Quad]) -> Store:
    store = Store(None)
    here = session_project()
    load_files(store, sorted(here.ontology_dir.glob("*.ttl")) + sorted(here.shapes_dir.glob("*.ttl")), here)
    store.load_quads(quads)
    materialise(store, rules_dir=session_project().rules_dir)
    return store


def test_builder_made_system_conforms_to_the_shapes() -> None:
    quads, _ = small_system()
    assert {q.graph_name for q in quads} == {ox.NamedNode(GRAPH)}
    report = validate(world(quads), project=session_project())
    assert report.conforms and not report.violations, report.to_text()


def test_builder_made_claims_read_back_identically() -> None:
    quads, claims = small_system()
    store = world(quads)
    read = read_claims(store, iris=[c.iri for c in claims])
    # the build marks each entity's best claims (rule 10): the one field the builder does not write
    assert any(c.best for c in read) and not any(c.best for c in claims)
    assert [dataclasses.replace(c, best=False) for c in read] == sorted(
        claims, key=lambda c: (c.about, c.property, c.iri))
    assert {c.iri for c in read_claims(store, about=[CMP])} == {c.iri for c in claims if c.about == CMP}
    bound = read_claims(store, iris=[claim_iri(CMP, "quantity", "zeta-news")])[0]
    assert bound.value is None and bound.bounds == {"minExclusive": 1000} and bound.deprecated


def test_claim_iris_follow_the_decision() -> None:
    assert shorten(claim_iri(CMP, "quantity")) == "claim:zeta-accelerator-quantity"
    assert shorten(claim_iri(SYSTEM, hpc("nodeCount"), "TOP500 June 2024")) == "claim:zeta-node-count-top500-june-2024"
    with pytest.raises(ValueError, match="source"):
        make_claim(SYSTEM, "operator", Iri(ORG), tier="reported", sources=[])
    with pytest.raises(ValueError, match="value or a bound"):
        make_claim(SYSTEM, "quantity", tier="reported", sources=["x"])


@pytest.mark.parametrize(("value", "lexical", "datatype"), [
    (2416, "2416", "integer"), (Decimal("0.552"), "0.552", "decimal"), (Decimal("200"), "200.0", "decimal"),
    (dt.date(2024, 3, 11), "2024-03-11", "date"), (YearMonth(2024, 3), "2024-03", "gYearMonth"),
    (Year(2024), "2024", "gYear"), (AnyUri("https://example.org/x"), "https://example.org/x", "anyURI"),
    (True, "true", "boolean"), ("text", "text", "string"),
])
def test_values_are_typed_and_read_back(value, lexical: str, datatype: str) -> None:
    literal = term(value)
    assert (literal.value, literal.datatype.value.rsplit("#", 1)[-1]) == (lexical, datatype)
    assert value_of(literal) == value and type(value_of(literal)) is type(value)


def test_other_terms_read_back() -> None:
    assert value_of(term(Iri(ORG))) == ORG and isinstance(term(Iri(ORG)), ox.NamedNode)
    assert value_of(term(Text("Rechenzentrum", "de"))) == Text("Rechenzentrum", "de")
    assert parse_date("2024") == Year(2024) and parse_date("2024-03") == YearMonth(2024, 3)
    with pytest.raises(ValueError):
        parse_date("2024-13")


def test_labels_and_lines(tmp_path: Path) -> None:
    store = world(small_system()[0])
    assert labels(store, [SYSTEM, ORG, "https://w3id.org/hpckg/id/system/none"]) == {
        SYSTEM: "Zeta (Zeta Lab)", ORG: "Zeta Lab"}
    assert label(store, "https://w3id.org/hpckg/id/system/none") == "none"
    turtle = ["@prefix sys: <https://w3id.org/hpckg/id/system/> .", "# sys:zeta in a comment",
              "<urn:x> <urn:p> sys:zeta .", "sys:zeta a <urn:System> ."]
    assert find_iri(SYSTEM, turtle) == (4, 3)
    assert find_iri(SYSTEM, turtle, prefixes={"sys": "https://w3id.org/hpckg/id/system/"}) == (4, 3)
    path = tmp_path / "zeta.ttl"
    path.write_text("\n".join(turtle), encoding="utf-8")
    assert line_of(SYSTEM, path) == 4 and line_of(ORG, path) is None


def test_the_pages_read_the_same_claims_with_the_sources_of_what_they_were_derived_from(seed_store):
    """hpckg.page.claims reads the claims through hpckg.claims.read_claims (one model, one reader): for every
    system of the curated graph and its components, the same records, each citing its own primary sources on
    the page, and a derived claim those of every claim it was derived from, followed here claim by claim
    rather than by the page's steps."""
    from hpckg.page import claims as page_claims

    by_iri = {claim.iri: claim for claim in read_claims(seed_store)}

    def cited(iri: str, seen: frozenset = frozenset()) -> set[str]:
        claim = by_iri.get(iri)
        if claim is None or iri in seen:
            return set()
        return set(claim.sources).union(*(cited(i, seen | {iri}) for i in claim.derived_from))

    systems = [row["s"].value for row in seed_store.query("SELECT ?s WHERE { ?s a hpc:System }")]
    best = {row["c"].value for row in seed_store.query("SELECT ?c WHERE { ?c a hpc:BestClaim }")}
    derived = 0
    for system in systems:
        entities = [system, *(row["c"].value for row in seed_store.query(
            f"SELECT ?c WHERE {{ ?c hpc:componentOf <{system}> }}"))]
        grouped, sources = page_claims.read_claims(seed_store, entities)
        shown = {c.iri: c for group in grouped.values() for c in group}
        expected = {c.iri: c for c in read_claims(seed_store, about=entities)}
        assert shown == expected, system  # one claim model: the pages read the reader's records
        for iri, claim in shown.items():
            assert [source.iri for source in sources[iri]] == sorted(cited(iri)), iri
            assert claim.best == (iri in best), iri
            derived += bool(claim.derived_from)
    assert derived >= 5  # the curated graph's derived claims (accelerator counts, peak compute) are among them

