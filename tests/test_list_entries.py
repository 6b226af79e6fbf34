"""List entries (issue 38): queries/rules/14-list-entries.rq gives one hpc:ListEntry per system and list
edition, carrying that edition's figures on the entry properties the ontology maps to claim properties
(hpc:entryValueOf, hpc:entryComponentRole), derived from exactly those claims, with their weakest tier.

The rule runs on the real Oxigraph store over a small fixture (tests/fixtures/entries/), then through a real
build of the time-series fixture (one machine across five editions)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from hpckg.build import load_files
from hpckg.namespaces import ID, ONTOLOGY, PREFIXES
from hpckg.store import Store

from conftest import session_project

FIXTURE = Path(__file__).parent / "fixtures" / "entries" / "two-editions.ttl"
ENTRY = ID + "entry/"
PROV = "http://www.w3.org/ns/prov#"


def ontology_with(*files: Path) -> Store:
    """An in-memory store of the ontology and `files`, each in its named graph, as the build loads them."""
    project = session_project()
    store = Store(None)
    load_files(store, [*sorted(project.ontology_dir.glob("*.ttl")), *files], project)
    return store


@pytest.fixture(scope="module")
def entries() -> dict[str, dict[str, set[str]]]:
    """The triples the rule makes, per entry IRI: {predicate: {values}} (IRIs and literals by their text)."""
    project = session_project()
    store = ontology_with(FIXTURE)
    made: dict[str, dict[str, set[str]]] = {}
    for rule in ("14-list-entries", "15-list-entry-tier"):  # 15 reads what 14 made, as the build runs them
        triples = list(store.query((project.rules_dir / f"{rule}.rq").read_text(encoding="utf-8")))
        store.load_quads(ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples)
        for triple in triples:
            made.setdefault(triple.subject.value, {}).setdefault(triple.predicate.value, set()).add(
                triple.object.value)
    return made


def test_one_entry_per_system_and_edition(entries):
    assert set(entries) == {ENTRY + "le-2020-06-le-one", ENTRY + "le-2020-11-le-one"}
    for iri, edition in ((ENTRY + "le-2020-06-le-one", "le-2020-06"), (ENTRY + "le-2020-11-le-one", "le-2020-11")):
        entry = entries[iri]
        assert entry[PREFIXES["rdf"] + "type"] == {ONTOLOGY + "ListEntry"}
        assert entry[ONTOLOGY + "entryOf"] == {ID + "system/le-one"}
        assert entry[ONTOLOGY + "entryIn"] == {ID + "dataset/" + edition}
        assert entry[PROV + "wasGeneratedBy"] == {ID + "activity/derive-14-list-entries"}


def test_each_edition_carries_its_own_figures(entries):
    june, november = entries[ENTRY + "le-2020-06-le-one"], entries[ENTRY + "le-2020-11-le-one"]
    assert june[ONTOLOGY + "entryRank"] == {"3"}, "the deprecated rank 99 is left out"
    assert june[ONTOLOGY + "entryRmax"] == {"10.5"}
    assert november[ONTOLOGY + "entryRank"] == {"5"}
    assert november[ONTOLOGY + "entryRmax"] == {"11"}  # xsd:decimal 11.0, canonical
    # a value the list repeats is one claim naming both editions: each entry carries it
    assert june[ONTOLOGY + "entryName"] == november[ONTOLOGY + "entryName"] == {"One"}
    # component claims reach the entry through the component's role
    assert june[ONTOLOGY + "entryVendor"] == {ID + "org/le-maker"}
    assert ONTOLOGY + "entryVendor" not in november, "the supplier claim names June only"
    assert november[ONTOLOGY + "entryAccelerator"] == {ID + "part/le-gpu"}
    assert ONTOLOGY + "entryCountry" not in june, "a machine-generated claim is left out"


def test_an_entry_is_derived_from_the_claims_it_carries_and_has_their_weakest_tier(entries):
    claim = ID + "claim/"
    june, november = entries[ENTRY + "le-2020-06-le-one"], entries[ENTRY + "le-2020-11-le-one"]
    assert june[PROV + "wasDerivedFrom"] == {claim + c for c in ("le-rank-1", "le-rmax-1", "le-name", "le-vendor")}
    assert november[PROV + "wasDerivedFrom"] == {
        claim + c for c in ("le-rank-2", "le-rmax-2", "le-name", "le-accelerator")}
    assert june[ONTOLOGY + "entryTier"] == {PREFIXES["tier"] + "reported"}
    assert november[ONTOLOGY + "entryTier"] == {PREFIXES["tier"] + "lead"}, "its Rmax is a lead"


def test_every_entry_property_names_a_claim_property():
    """The ontology is the rule's only map: each hpc:entry… property reads one claim property (and, for
    component claims, one role), and each is typed and documented like the claim property it mirrors."""
    store = ontology_with()
    rows = list(store.query("""SELECT ?entry ?of ?label ?role WHERE {
        ?entry hpc:entryValueOf ?of ; rdfs:label ?label ; rdfs:domain hpc:ListEntry .
        ?of a/rdfs:subClassOf* hpc:ClaimProperty .
        OPTIONAL { ?entry hpc:entryComponentRole ?role } }"""))
    mapped = {row["entry"].value for row in rows}
    declared = {row["p"].value for row in store.query("SELECT ?p WHERE { ?p rdfs:domain hpc:ListEntry }")}
    declared -= {ONTOLOGY + n for n in ("entryOf", "entryIn", "entryTier")}
    assert mapped == declared and len(mapped) >= 15
    assert all(isinstance(row["role"], ox.NamedNode) for row in rows
               if row["of"].value in (ONTOLOGY + "supplierAtBuild", ONTOLOGY + "partModel"))


@pytest.mark.imports
def test_on_real_imports_every_edition_claim_is_on_its_entry_and_nothing_else_is():
    """Two real TOP500 editions and Epoch AI's data (the website tests' store): each claim that names an
    edition, on a property the entries carry, about a system (or its component of the property's role) gives
    exactly one entry value, derived from it, and every entry value comes from such a claim. The canned
    queries rewritten on the entries answered the same rows as over the claims (compared on the full import);
    this holds the shape they rely on."""
    import stores

    store = Store(stores.website().store, read_only=True)
    pairs = """
        { ?claim hpc:edition ?edition ; hpc:property ?property ; hpc:about ?system ; hpc:value ?value .
          ?entryProperty hpc:entryValueOf ?property FILTER NOT EXISTS { ?entryProperty hpc:entryComponentRole ?r }
          ?system a hpc:System }
        UNION
        { ?claim hpc:edition ?edition ; hpc:property ?property ; hpc:about ?component ; hpc:value ?value .
          ?entryProperty hpc:entryValueOf ?property ; hpc:entryComponentRole ?role .
          ?component hpc:role ?role ; hpc:componentOf ?system }"""
    [claims] = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {pairs} }}")
    [missing] = store.query(f"""SELECT (COUNT(*) AS ?n) WHERE {{ {pairs}
        FILTER NOT EXISTS {{ ?entry hpc:entryOf ?system ; hpc:entryIn ?edition ; ?entryProperty ?value ;
                                    prov:wasDerivedFrom ?claim }} }}""")
    [carried] = store.query("""SELECT (COUNT(*) AS ?n) WHERE {
        ?entry a hpc:ListEntry ; prov:wasDerivedFrom ?claim . ?claim hpc:property ?property .
        ?entryProperty hpc:entryValueOf ?property . ?entry ?entryProperty ?value . ?claim hpc:value ?value }""")
    [entries] = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?entry a hpc:ListEntry ; hpc:entryTier ?tier }")
    store.close()
    assert int(claims["n"].value) > 10_000
    assert int(missing["n"].value) == 0
    assert int(carried["n"].value) == int(claims["n"].value)
    assert int(entries["n"].value) == 1_000, "two editions of 500 entries, each with its tier"


@pytest.mark.imports
def test_the_sparql_pages_entry_examples_agree_with_the_editions_statistics():
    """The query editor's examples on list entries (serve/views.py) answer on real imports, and the one per
    country gives what the canned top500-edition-by-country gives for the same edition."""
    import stores
    from hpckg.query import canned_query
    from hpckg.serve.views import BUILTIN_EXAMPLES

    store = Store(stores.website().store, read_only=True)
    try:
        examples = {name: text for name, text in BUILTIN_EXAMPLES.items() if "hpc:entry" in text}
        assert len(examples) >= 2
        answers = {name: list(store.query(text)) for name, text in examples.items()}
        [by_country] = [rows for name, rows in answers.items() if "country" in name]
        from_entries = {row["country"].value: (int(row["systems"].value), row["rmaxTflops"].value)
                        for row in by_country}
        canned = store.query(canned_query(session_project(), "top500-edition-by-country").bind({"edition": "2025-06"}))
        from_statistics = {row["key"].value: (int(row["systems"].value), row["rmaxTflops"].value) for row in canned
                           if row["key"].value != "not given"}
    finally:
        store.close()
    assert from_entries == from_statistics and sum(n for n, _ in from_entries.values()) == 500
