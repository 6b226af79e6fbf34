"""Rule 40 streamed (queries/rules/40-system-sourcing.rq): each system's claim count, verified claim count and
independent claim count (claims about it and its components, derived claims aside), one system at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pyoxigraph as ox

from hpckg.namespaces import PREFIXES, hpc
from hpckg.rules.reading import (
    CLAIM,
    COMPONENT_OF,
    DERIVED_CLAIM,
    MACHINE_GENERATED,
    SYSTEM,
    TYPE,
    claims_of,
    distinct,
)
from hpckg.store import Store
from hpckg.terms import PROV_HAD_PRIMARY_SOURCE

SOURCE_KIND = ox.NamedNode(hpc("sourceKind"))
AGGREGATOR = ox.NamedNode(PREFIXES["sourcekind"] + "aggregator")
VERIFIED = ox.NamedNode(PREFIXES["tier"] + "verified")
FIELDS = {hpc("tier"): "tier", hpc("basis"): "basis", PROV_HAD_PRIMARY_SOURCE: "source"}
COUNTS = (hpc("claimCount"), hpc("verifiedClaimCount"), hpc("independentClaimCount"))


def sourcing_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 40 constructs: three counts per typed system (0 where it has no claim)."""
    aggregators: dict = {}  # source -> is an aggregator, each source looked up once
    for system in distinct(store, TYPE, SYSTEM):
        entities = [system, *dict.fromkeys(q.subject for q in store.quads_for_pattern(None, COMPONENT_OF, system))]
        claims: dict = {}
        for entity in entities:
            for claim, fields in claims_of(store, entity, FIELDS).items():
                types = fields.get("type", ())
                if CLAIM in types and DERIVED_CLAIM not in types:
                    claims[claim] = fields
        verified = sum(1 for fields in claims.values() if VERIFIED in fields.get("tier", ()))
        independent = sum(1 for fields in claims.values() if independent_claim(store, fields, aggregators))
        for predicate, count in zip(COUNTS, (len(claims), verified, independent), strict=True):
            yield ox.Triple(system, ox.NamedNode(predicate), ox.Literal(count))


def independent_claim(store: Store, fields: dict, aggregators: dict) -> bool:
    """Cites a primary source that is no aggregator, and is not machine-generated."""
    if MACHINE_GENERATED in fields.get("basis", ()):
        return False
    for source in fields.get("source", ()):
        if source not in aggregators:
            aggregators[source] = any(True for _ in store.quads_for_pattern(source, SOURCE_KIND, AGGREGATOR))
        if not aggregators[source]:
            return True
    return False
