"""Issue 9: the builder's qualifiers, references, some/no value, external IDs, same-machine links and list
editions. A small Epoch-like import written only through hpckg.claims conforms to the shapes, reads back, and
gives the plain triples the model promises."""

from __future__ import annotations

import pytest

from hpckg.claims import (
    Reference,
    claim_quads,
    entity_quads,
    external_id_claim,
    list_edition_quads,
    make_claim,
    no_value_claim,
    read_claims,
    same_machine_claim,
    some_value_claim,
    source_quads,
)
from hpckg.namespaces import entity, graph_for
from hpckg.validate import validate
from hpckg.values import Iri, YearMonth
from test_claims import world

from conftest import session_project

GRAPH = graph_for("imported/qualifiers.nq")
SYSTEM, OTHER = entity("system", "omega"), entity("system", "omega-dup")
CMP = entity("component", "omega-accelerator")


def imported() -> tuple[list, list]:
    quads = entity_quads("system", "omega", label="Omega", graph=GRAPH)
    quads += entity_quads("system", "omega-dup", label="Omega (second row)", graph=GRAPH)
    quads += entity_quads("org", "list-keeper", label="List keeper", graph=GRAPH)
    quads += entity_quads("component", "omega-accelerator", label="Omega accelerators", component_of="omega",
                          role="accelerator", graph=GRAPH)
    quads += entity_quads("component", "omega-dup-accelerator", label="Second row accelerators",
                          component_of="omega-dup", role="accelerator", graph=GRAPH)
    quads += entity_quads("dataset", "the-list", label="The list", graph=GRAPH)
    quads += list_edition_quads("the-list-2019-06", label="The list, June 2019", edition_of="the-list",
                                issued="2019-06", graph=GRAPH)
    quads += list_edition_quads("the-list-2019-11", label="The list, November 2019", edition_of="the-list",
                                issued="2019-11", graph=GRAPH)
    quads += source_quads("the-list-release", title="The list", kind="dataset-release", publisher="list-keeper",
                          url="https://list.example/", issued="2019-11", graph=GRAPH)
    row = Reference("the-list-release", locator="row 42", retrieved="2026-11-29", quote="10,000 GPUs",
                    certainty="Likely")
    claims = [
        some_value_claim(SYSTEM, "operator", tier="lead", references=[row], basis="imported",
                         note="Owner not named."),
        no_value_claim(OTHER, "operator", tier="lead", sources="the-list-release", basis="imported"),
        external_id_claim(SYSTEM, "epochClusterName", "Omega cluster", tier="lead", references=[row]),
        same_machine_claim("omega", "omega-dup", tier="lead", sources="the-list-release"),
        make_claim(SYSTEM, "listRank", 9, tier="reported", sources="the-list-release", point_in_time="2019-06",
                   edition="the-list-2019-06", qualifier="2019-06"),
        make_claim(SYSTEM, "listRank", 4, tier="reported", sources="the-list-release",
                   point_in_time=YearMonth(2019, 11), edition="the-list-2019-11", qualifier="2019-11"),
        make_claim(SYSTEM, "name", "Omega", tier="reported", sources="the-list-release", start="2019-06",
                   end="2019-11", qualifier="omega"),
        make_claim(SYSTEM, "name", "Omega II", tier="reported", sources="the-list-release", start="2019-11",
                   qualifier="omega-ii"),
        make_claim(CMP, "quantity", 10000, tier="lead", references=[row], as_of="2019-11"),
        make_claim(CMP, "quantity", 50000, tier="lead", sources="the-list-release", rank="deprecated",
                   deprecation_reason="unlikely", qualifier="unlikely"),
        make_claim(entity("component", "omega-dup-accelerator"), "quantity", 10000, tier="lead",
                   sources="the-list-release"),
    ]
    for claim in claims:
        quads += claim_quads(claim, graph=GRAPH)
    return quads, claims


def test_builder_made_import_conforms_and_reads_back() -> None:
    quads, claims = imported()
    store = world(quads)
    report = validate(store, project=session_project())
    assert report.conforms, report.to_text()
    back = {c.iri: c for c in read_claims(store, iris=[c.iri for c in claims])}
    for claim in claims:
        # the builder writes no references back and no best mark (the build's rule 10 adds it)
        assert back[claim.iri] == claim.__class__(**{**claim.__dict__, "references": (),
                                                      "best": back[claim.iri].best}), claim.iri
    assert any(c.best for c in back.values())
    assert back[claims[0].iri].unknown == "some-value" and back[claims[1].iri].unknown == "no-value"


def test_builder_made_import_gives_the_right_plain_triples() -> None:
    store = world(imported()[0])

    def plain(prop: str, subject: str = SYSTEM) -> list[str]:
        return sorted(r["v"].value for r in store.query(f"SELECT ?v WHERE {{ <{subject}> hpc:{prop} ?v }}"))

    assert plain("operator") == [] and plain("operator", OTHER) == []
    assert plain("listRank") == ["4"] and plain("name") == ["Omega II"]
    assert plain("quantity", CMP) == ["10000"]
    assert plain("sameMachineAs") == [OTHER]
    assert plain("epochClusterName") == ["Omega cluster"]
    reference = list(store.query("""SELECT ?locator ?certainty ?quote WHERE {
        ?c hpc:about ?cmp ; hpc:property hpc:quantity ; hpc:reference ?r .
        ?r hpc:statedIn src:the-list-release ; hpc:locator ?locator ; hpc:sourceCertainty ?certainty ;
           hpc:quote ?quote }"""))
    assert [(r["locator"].value, r["certainty"].value, r["quote"].value) for r in reference] == [
        ("row 42", "Likely", "10,000 GPUs")]


def test_builder_refuses_contradictions() -> None:
    with pytest.raises(ValueError, match="no value and no bounds"):
        make_claim(SYSTEM, "operator", Iri(OTHER), tier="lead", sources="x", unknown="some-value")
    with pytest.raises(ValueError, match="some-value"):
        make_claim(SYSTEM, "operator", tier="lead", sources="x", unknown="perhaps")
    with pytest.raises(ValueError, match="external-identifier"):
        external_id_claim(SYSTEM, "operator", "x", tier="lead", sources="x")
