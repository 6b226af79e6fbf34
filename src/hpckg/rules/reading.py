"""What the streamed rules read: an entity's claims with the predicates a rule needs, and the entities in the
order an index gives them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from functools import cache

import pyoxigraph as ox

from hpckg.namespaces import PREFIXES, hpc
from hpckg.store import Store
from hpckg.terms import DCTERMS_ISSUED, PROV_WAS_GENERATED_BY, RDF_TYPE

# The terms several rules read, named once.
ABOUT = ox.NamedNode(hpc("about"))
TYPE = ox.NamedNode(RDF_TYPE)
CLAIM = ox.NamedNode(hpc("Claim"))
BEST_CLAIM = ox.NamedNode(hpc("BestClaim"))
DERIVED_CLAIM = ox.NamedNode(hpc("DerivedClaim"))
SYSTEM = ox.NamedNode(hpc("System"))
COMPONENT_OF = ox.NamedNode(hpc("componentOf"))
ROLE = ox.NamedNode(hpc("role"))
TIER_RANK = ox.NamedNode(hpc("tierRank"))
ISSUED = ox.NamedNode(DCTERMS_ISSUED)
DEPRECATED = ox.NamedNode(PREFIXES["rank"] + "deprecated")
MACHINE_GENERATED = ox.NamedNode(PREFIXES["basis"] + "machine-generated")
DERIVED = ox.NamedNode(PREFIXES["basis"] + "derived")
XSD = PREFIXES["xsd"]
TRUE = ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean"))


@cache
def claims_text(link: str, predicates: tuple[str, ...]) -> str:
    # One query per entity: Oxigraph finds the entity's claims in one seek and each claim's triples in one
    # more, and decodes only the triples the FILTER keeps (41 us a claim on the full build's store, against
    # 63 us for the same reads through quads_for_pattern, which decodes every triple of the claim).
    listed = ", ".join(f"<{predicate}>" for predicate in predicates)
    return (f"SELECT ?entity ?claim ?predicate ?object WHERE {{ ?claim <{link}> ?entity ; "
            f"?predicate ?object FILTER (?predicate IN ({listed})) }}")


def claims_of(store: Store, entity, names: dict[str, str], *, link: ox.NamedNode = ABOUT
              ) -> dict[object, dict[str, set]]:
    """Every claim about an entity (with `link` hpc:value, every claim naming it as its value), in every graph
    (a contribution may rank a claim another file made): per claim, the values of the predicates `names` maps
    (IRI -> field name), and its types under "type"."""
    predicates = (TYPE.value, *names)
    fields = {TYPE.value: "type", **names}
    claims: dict[object, dict[str, set]] = {}
    for _, claim, predicate, value in store.query_bound(claims_text(link.value, predicates), {"entity": entity}):
        claims.setdefault(claim, {}).setdefault(fields[predicate.value], set()).add(value)
    return claims


def distinct(store: Store, predicate: ox.NamedNode, object=None) -> Iterator:
    """Each distinct object of a predicate's triples, or with `object` given each distinct subject of the
    triples (?, predicate, object), once, in the order of the index (which lists a term's triples together,
    once per graph they are in)."""
    seen: set = set()
    for quad in store.quads_for_pattern(None, predicate, object):
        term = quad.object if object is None else quad.subject
        if term not in seen:
            seen.add(term)
            yield term


def tier_ranks(store: Store) -> dict:
    """Each tier's hpc:tierRank, as a number (the rules compare and take the least)."""
    return {quad.subject: number(quad.object) for quad in store.quads_for_pattern(None, TIER_RANK, None)}


def optional(fields: dict[str, set], name: str) -> list:
    return list(fields.get(name, ())) or [None]


def editions_issued(store: Store, fields: dict[str, set], issued: dict) -> list[tuple]:
    """(edition, its dcterms:issued) for each of a claim's editions and each of its dates, as the rules'
    OPTIONAL { ?claim hpc:edition ?edition . ?edition dcterms:issued ?issued } gives them: [(None, None)]
    where no edition has a date."""
    return [(edition, when) for edition in fields.get("edition", ())
            for when in issued_of(store, edition, issued)] or [(None, None)]


def issued_of(store: Store, edition, issued: dict) -> list[str]:
    if edition not in issued:
        issued[edition] = [q.object.value for q in store.quads_for_pattern(edition, ISSUED, None)]
    return issued[edition]


def number(term) -> Decimal | int:
    try:
        return int(term.value)
    except ValueError:
        return Decimal(term.value)


def live(fields: dict[str, set]) -> bool:
    """Some row of a claim's rank and basis passes the rules' FILTER (not deprecated, not machine-generated):
    a claim ranked both deprecated and normal still counts, as a SPARQL join gives one row per rank."""
    return (any(rank != DEPRECATED for rank in optional(fields, "rank"))
            and any(basis != MACHINE_GENERATED for basis in optional(fields, "basis")))


def once(triples: Iterable[ox.Triple]) -> Iterator[ox.Triple]:
    """Each of one entity's triples once (the rule's rows repeat them: the build counts what a rule gives)."""
    given: set[ox.Triple] = set()
    for triple in triples:
        if triple not in given:
            given.add(triple)
            yield triple


def derived_claim(claim: ox.NamedNode, *, about, property: ox.NamedNode, tier, rank: ox.NamedNode,
                  activity: ox.NamedNode) -> list[ox.Triple]:
    """What every derived claim a rule makes states: a hpc:Claim and hpc:DerivedClaim about an entity on a
    property, of a tier, basis derived, with its rank, generated by the rule's activity."""
    return [ox.Triple(claim, TYPE, CLAIM), ox.Triple(claim, TYPE, DERIVED_CLAIM), ox.Triple(claim, ABOUT, about),
            ox.Triple(claim, ox.NamedNode(hpc("property")), property),
            ox.Triple(claim, ox.NamedNode(hpc("tier")), tier), ox.Triple(claim, ox.NamedNode(hpc("basis")), DERIVED),
            ox.Triple(claim, ox.NamedNode(hpc("rank")), rank),
            ox.Triple(claim, ox.NamedNode(PROV_WAS_GENERATED_BY), activity)]
