"""What the streamed rules read: a claim's own triples, and the entities in the order an index gives them."""

from __future__ import annotations

from collections.abc import Iterator

import pyoxigraph as ox

from hpckg.namespaces import hpc
from hpckg.store import Store
from hpckg.terms import RDF_TYPE

ABOUT = ox.NamedNode(hpc("about"))
TYPE = ox.NamedNode(RDF_TYPE)


def claim_fields(store: Store, claim, names: dict[str, str]) -> tuple[set, dict[str, set]]:
    """A claim's types and the values of the predicates `names` maps (IRI -> field name), from one read of
    its triples in every graph (a contribution may rank a claim another file made)."""
    types: set = set()
    fields: dict[str, set] = {}
    for quad in store.quads_for_pattern(claim, None, None):
        if quad.predicate == TYPE:
            types.add(quad.object)
        elif (name := names.get(quad.predicate.value)) is not None:
            fields.setdefault(name, set()).add(quad.object)
    return types, fields


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


def claims_about(store: Store, entity) -> set:
    """Every claim about an entity, in every graph: one seek of the hpc:about index."""
    return {quad.subject for quad in store.quads_for_pattern(None, ABOUT, entity)}
