"""What the server says about one entity: its RDF description, its claims (with their sources), labels,
and the plain JSON summary behind the `.json` twin. All queries here are fixed, fast lookups on one IRI;
they run in the server process on its own read-only store handle."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pyoxigraph as ox

from hpckg.claims import iri_ref, label
from hpckg.namespaces import DERIVED_GRAPH
from hpckg.serve import urls

BOUND_SYMBOLS = {"minExclusive": ">", "minInclusive": "≥", "maxExclusive": "<", "maxInclusive": "≤"}


def describe(store, iri: str) -> list[ox.Triple]:
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


@dataclass
class Claim:
    """One claim about an entity, as a page shows it."""

    iri: str
    about: str
    property: str
    value: ox.NamedNode | ox.Literal | None = None
    bounds: dict[str, str] = field(default_factory=dict)
    tier: str | None = None
    rank: str | None = None
    as_of: str | None = None
    note: str | None = None
    sources: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    derived: bool = False

    @property
    def value_text(self) -> str:
        if self.value is not None:
            return self.value.value
        return " and ".join(f"{BOUND_SYMBOLS[k]} {v}" for k, v in self.bounds.items())


def claims(store, about: Iterable[str] | None = None, *, iris: Iterable[str] | None = None) -> list[Claim]:
    """Claims about the given entities, or the given claims themselves, sorted by property."""
    if iris is not None:
        select = "VALUES ?c { " + " ".join(iri_ref(i) for i in iris) + " } ?c hpc:about ?about ."
    else:
        select = ("VALUES ?about { " + " ".join(iri_ref(i) for i in about or ()) + " } "
                  "?c hpc:about ?about .")
    rows = store.query(f"""
        SELECT ?c ?about ?p ?v ?bk ?bv ?tier ?rank ?asOf ?note ?src ?input ?derived WHERE {{
          {select} ?c hpc:property ?p .
          OPTIONAL {{ ?c hpc:value ?v }}
          OPTIONAL {{ VALUES ?bk {{ hpc:minExclusive hpc:minInclusive hpc:maxExclusive hpc:maxInclusive }}
                     ?c ?bk ?bv }}
          OPTIONAL {{ ?c hpc:tier ?tier }} OPTIONAL {{ ?c hpc:rank ?rank }}
          OPTIONAL {{ ?c hpc:asOf ?asOf }} OPTIONAL {{ ?c skos:note ?note }}
          OPTIONAL {{ ?c prov:hadPrimarySource ?src }}
          OPTIONAL {{ ?c prov:wasDerivedFrom ?input }}
          BIND(EXISTS {{ ?c a hpc:DerivedClaim }} AS ?derived)
        }}""")
    found: dict[str, Claim] = {}
    for row in rows:
        iri = row["c"].value
        claim = found.get(iri)
        if claim is None:
            claim = found[iri] = Claim(iri, row["about"].value, row["p"].value, row["v"],
                                       derived=row["derived"].value == "true")
        for key, attr in (("tier", "tier"), ("rank", "rank"), ("asOf", "as_of"), ("note", "note")):
            if row[key] is not None and getattr(claim, attr) is None:
                setattr(claim, attr, row[key].value)
        if row["bk"] is not None:
            claim.bounds[row["bk"].value.rsplit("#", 1)[-1]] = row["bv"].value
        for key, target in (("src", claim.sources), ("input", claim.inputs)):
            if row[key] is not None and row[key].value not in target:
                target.append(row[key].value)
    return sorted(found.values(), key=lambda c: (c.about, c.property, c.iri))


def summary(store, iri: str, base_iri: str) -> dict:
    """The `.json` twin: a plain JSON summary of an entity (no RDF knowledge needed to read it)."""
    kind, slug = urls.split_entity_iri(iri, base_iri) or ("", "")
    types = [row["t"].value for row in store.query(f"SELECT ?t WHERE {{ {iri_ref(iri)} a ?t }}")]
    own = claims(store, [iri])
    facts: dict[str, list] = {}
    for row in store.query(f"""SELECT ?p ?o WHERE {{ GRAPH <{DERIVED_GRAPH}> {{ {iri_ref(iri)} ?p ?o }}
                                FILTER(?p != rdf:type) }}"""):
        facts.setdefault(row["p"].value.rsplit("#", 1)[-1], []).append(_plain(row["o"]))
    return {
        "iri": iri, "kind": kind, "slug": slug, "label": label(store, iri), "types": types,
        "facts": facts,
        "claims": [{"iri": c.iri, "about": c.about, "property": c.property,
                    "value": _plain(c.value) if c.value is not None else None, "bounds": c.bounds,
                    "tier": c.tier, "rank": c.rank, "asOf": c.as_of, "sources": c.sources,
                    "derivedFrom": c.inputs} for c in own],
        "links": {"html": urls.page(kind, slug), **urls.twins(kind, slug)},
    }


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
