"""What the server says about one entity: its RDF description, its claims (with their sources), labels,
and the plain JSON summary behind the `.json` twin. All queries here are fixed, fast lookups on one IRI;
they run in the server process on its own read-only store handle."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TYPE_CHECKING

import pyoxigraph as ox

from hpckg.claims import iri_ref, label, read_claims
from hpckg.namespaces import DERIVED_GRAPH
from hpckg.page.entities import BOUND_SYMBOLS  # noqa: F401  (compare.py reads it from here)
from hpckg.serve import urls

if TYPE_CHECKING:
    from hpckg.store import GraphStore


def describe(store: GraphStore, iri: str) -> list[ox.Triple]:
    """An entity's description: its own triples, the claims about it (and about its components), the
    sources of those claims, and the input claims of its derived claims with their sources."""
    e = iri_ref(iri)
    return list(store.query(f"""
        CONSTRUCT {{ ?s ?p ?o }} WHERE {{
          {{ BIND({e} AS ?s) ?s ?p ?o }}
          UNION {{ ?s hpc:componentOf {e} ; ?p ?o }}
          UNION {{ ?s hpc:about {e} ; ?p ?o }}
          UNION {{ ?cmp hpc:componentOf {e} . ?s hpc:about ?cmp ; ?p ?o }}
          UNION {{ ?c hpc:about {e} . ?c (prov:hadPrimarySource|prov:wasDerivedFrom/prov:hadPrimarySource) ?s .
                   ?s ?p ?o }}
          UNION {{ ?c hpc:about {e} . ?c prov:wasDerivedFrom ?s . ?s ?p ?o }}
        }}"""))


def own_triples(store: GraphStore, iri: str) -> list[ox.Triple]:
    """The entity's own triples (its types, names and direct values): what its page embeds as JSON-LD. The whole
    description (its claims and their sources, `describe`) is the .jsonld twin the page links to: embedded, it
    was 215 KB of Summit's 309 KB page and a tenth of a second of its first visit on the full graph."""
    e = iri_ref(iri)
    return list(store.query(f"CONSTRUCT {{ {e} ?p ?o }} WHERE {{ {e} ?p ?o }}"))


def summary(store: GraphStore, iri: str, base_iri: str) -> dict:
    """The `.json` twin: a plain JSON summary of an entity (no RDF knowledge needed to read it)."""
    kind, slug = urls.split_entity_iri(iri, base_iri) or ("", "")
    types = [row["t"].value for row in store.query(f"SELECT ?t WHERE {{ {iri_ref(iri)} a ?t }}")]
    own = read_claims(store, about=[iri])
    facts: dict[str, list] = {}
    for row in store.query(f"""SELECT ?p ?o WHERE {{ GRAPH <{DERIVED_GRAPH}> {{ {iri_ref(iri)} ?p ?o }}
                                FILTER(?p != rdf:type) }}"""):
        facts.setdefault(row["p"].value.rsplit("#", 1)[-1], []).append(_plain(row["o"]))
    return {
        "iri": iri, "kind": kind, "slug": slug, "label": label(store, iri), "types": types,
        "facts": facts,
        "claims": [{"iri": c.iri, "about": c.about, "property": c.property,
                    "value": json_value(c.value), "bounds": {k: json_value(v) for k, v in c.bounds.items()},
                    "tier": c.tier, "rank": c.rank, "asOf": json_value(c.as_of), "sources": list(c.sources),
                    "derivedFrom": list(c.derived_from)} for c in own],
        "links": {"html": urls.page(kind, slug), **urls.twins(kind, slug)},
    }


def json_value(value: object) -> object:
    """A claim's Python value (hpckg.values) as JSON: numbers as numbers, IRIs, dates and text as strings."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and "." not in str(value) else float(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _plain(term: ox.NamedNode | ox.Literal | ox.BlankNode) -> object:
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value.rsplit("#", 1)[-1]
        if datatype in ("integer", "int", "long", "nonNegativeInteger", "positiveInteger"):
            return int(term.value)
        if datatype in ("decimal", "double", "float"):
            return float(term.value)
        if datatype == "boolean":
            return term.value == "true"
    return term.value
