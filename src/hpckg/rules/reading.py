"""What the streamed rules read: an entity's claims with the predicates a rule needs, and the entities in the
order an index gives them."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pyoxigraph as ox

from hpckg.namespaces import hpc
from hpckg.store import Store
from hpckg.terms import RDF_TYPE

ABOUT = ox.NamedNode(hpc("about"))
TYPE = ox.NamedNode(RDF_TYPE)


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

