"""What an entity page's table of systems shows of each system, read for the whole graph at once: its Rmax and
accelerator count (to sort by size), display name, operators, sites and countries, its last and best TOP500
rank, and its Rmax and countries in the newest TOP500 edition (a country page's share of it); and which systems
each organisation operated or supplied and each part model is in, as any claim says (the organisation and part
pages' tables).

Read per page, a country page of 5,700 systems took 1.2-1.6 s on the full graph (the systems' sizes and sites,
then each shown system's claims for its ranks: RocksDB seeks per system); read once for every system it is five
flat scans, about 3 s, which the server does once per store generation in the background and keeps on disk
(hpckg.serve.precompute). A page then asks the graph only which systems are its own, or, for an organisation or a
part, reads them here too: asked per page, IBM's 3,140 supplied systems took 0.4-0.8 s of lookups per claim.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from hpckg.claims import iri_ref

if TYPE_CHECKING:
    from hpckg.store import GraphStore

# The store prepends the project's prefixes. Flat UNIONs, one index scan per branch: starting from
# `?s a hpc:System` and looking up each branch per system took 32 s instead of 1 s on the full graph.
FACTS_QUERY = """SELECT ?s ?k ?v WHERE {
  { ?s a hpc:System BIND("a" AS ?k) BIND("" AS ?v) } UNION { ?s hpc:rmax ?v BIND("rmax" AS ?k) }
  UNION { ?s hpc:acceleratorCount ?v BIND("accelerators" AS ?k) } UNION { ?s hpc:name ?v BIND("name" AS ?k) }
  UNION { ?s rdfs:label ?v BIND("label" AS ?k) } UNION { ?s hpc:operator ?v BIND("operator" AS ?k) }
  UNION { ?s hpc:site ?v BIND("site" AS ?k) } UNION { ?s hpc:country ?v BIND("country" AS ?k) } }"""
# Every TOP500 rank a system had: the last edition's and the best one are kept.
RANKS_QUERY = """SELECT ?s ?rank ?when WHERE {
  ?c hpc:property hpc:listRank ; hpc:about ?s ; hpc:value ?rank ; hpc:pointInTime ?when }"""
NEWEST_EDITION_QUERY = """SELECT ?e ?issued WHERE { ?e a hpc:ListEdition ; dcterms:issued ?issued }
  ORDER BY DESC(?issued) LIMIT 1"""
# The newest edition's Rmax and country claims, as that edition gave them (not the systems' truthy values);
# the two properties as a FILTER: as a VALUES Oxigraph took 0.85 s instead of 0.28 s on the full graph.
NEWEST_ENTRIES_QUERY = """SELECT ?s ?k ?v WHERE {
  ?c hpc:edition ?edition ; hpc:property ?property . FILTER (?property IN (hpc:rmax, hpc:country))
  ?c hpc:about ?s ; hpc:value ?v . BIND (IF(?property = hpc:rmax, "rmax", "country") AS ?k) }"""
# Which systems an entity is claimed of, by any claim (deprecated ones too, as the pages always showed them):
# operator claims are about the system, supplier and part-model claims about one of its components. One branch
# per property: with the three as a FILTER Oxigraph read every claim's property first.
CLAIMED_QUERY = """SELECT ?s ?k ?v WHERE {
  { ?c hpc:property hpc:operator ; hpc:about ?s ; hpc:value ?v BIND("operator" AS ?k) }
  UNION { ?c hpc:property hpc:supplierAtBuild ; hpc:about ?cmp ; hpc:value ?v . ?cmp hpc:componentOf ?s
          BIND("supplierAtBuild" AS ?k) }
  UNION { ?c hpc:property hpc:partModel ; hpc:about ?cmp ; hpc:value ?v . ?cmp hpc:componentOf ?s
          BIND("partModel" AS ?k) } }"""
CLAIMED = ("operator", "supplierAtBuild", "partModel")


@dataclass
class SystemFacts:
    """One system as a table row shows it. Multi-valued properties keep every value, sorted."""

    name: str | None = None  # its hpc:name (the greatest if several), else its label (the least)
    rmax: Decimal | None = None
    accelerators: int | None = None
    operators: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    listed: str | None = None  # the last TOP500 edition (YYYY-MM) it is listed in
    rank: int | None = None  # its rank there
    best_rank: int | None = None
    newest_rmax: Decimal | None = None  # its Rmax in the newest TOP500 edition, if listed there
    newest_countries: tuple[str, ...] = ()  # the countries that edition gives it

    def to_json(self) -> list:
        return [self.name, _text(self.rmax), self.accelerators, list(self.operators), list(self.sites),
                list(self.countries), self.listed, self.rank, self.best_rank, _text(self.newest_rmax),
                list(self.newest_countries)]

    @classmethod
    def from_json(cls, row: list) -> SystemFacts:
        (name, rmax, accelerators, operators, sites, countries, listed, rank, best_rank, newest_rmax,
         newest_countries) = row
        return cls(name, _decimal(rmax), accelerators, tuple(operators), tuple(sites), tuple(countries), listed,
                   rank, best_rank, _decimal(newest_rmax), tuple(newest_countries))


@dataclass
class SystemIndex:
    """Every system's SystemFacts, and the newest TOP500 edition (YYYY-MM, None without TOP500 data)."""

    systems: dict[str, SystemFacts] = field(default_factory=dict)
    newest_edition: str | None = None
    # CLAIMED property -> entity IRI -> the systems a claim of that property names it for (sorted; an operator
    # claim's subject may also be a site, kept too: the organisation page lists the sites it operates)
    claimed: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def get(self, iri: str) -> SystemFacts | None:
        return self.systems.get(iri)

    def claimed_of(self, property: str, iri: str) -> tuple[str, ...]:
        """The systems a claim of `property` (one of CLAIMED) names `iri` for: an organisation's operated or
        supplied systems, a part model's."""
        if property not in CLAIMED:
            raise ValueError(f"the index keeps {', '.join(CLAIMED)}, not {property!r}")
        return self.claimed.get(property, {}).get(iri, ())

    def to_json(self) -> dict:
        return {"newest_edition": self.newest_edition,
                "systems": {iri: facts.to_json() for iri, facts in self.systems.items()},
                "claimed": {k: {iri: list(found) for iri, found in by.items()} for k, by in self.claimed.items()}}

    @classmethod
    def from_json(cls, data: dict) -> SystemIndex:
        return cls({iri: SystemFacts.from_json(row) for iri, row in data["systems"].items()},
                   data["newest_edition"],
                   {k: {iri: tuple(found) for iri, found in by.items()} for k, by in data["claimed"].items()})

    @classmethod
    def read(cls, store: GraphStore) -> SystemIndex:
        values: dict[str, dict[str, list[str]]] = {}
        for s, k, v in _rows(store, FACTS_QUERY, "s", "k", "v"):
            values.setdefault(s, {}).setdefault(k, []).append(v)
        systems = {iri: _facts(found) for iri, found in values.items() if "a" in found}
        for s, rank_text, when in _rows(store, RANKS_QUERY, "s", "rank", "when"):
            facts = systems.get(s)
            if facts is None:
                continue
            rank, month = int(rank_text), when[:7]
            # the last edition's rank; of two ranks in one edition (a record listed twice), the better
            if facts.listed is None or month > facts.listed or (month == facts.listed and rank < (facts.rank or rank)):
                facts.listed, facts.rank = month, rank
            facts.best_rank = rank if facts.best_rank is None else min(facts.best_rank, rank)
        claimed: dict[str, dict[str, set[str]]] = {k: {} for k in CLAIMED}
        for s, k, v in _rows(store, CLAIMED_QUERY, "s", "k", "v"):
            claimed[k].setdefault(v, set()).add(s)
        index = cls(systems, claimed={k: {iri: tuple(sorted(found)) for iri, found in sorted(by.items())}
                                      for k, by in claimed.items()})
        newest = list(_rows(store, NEWEST_EDITION_QUERY, "e", "issued"))
        if newest:
            edition, issued = newest[0]
            index.newest_edition = issued[:7]
            countries: dict[str, list[str]] = {}
            query = NEWEST_ENTRIES_QUERY.replace("?edition", iri_ref(edition))
            for s, k, v in _rows(store, query, "s", "k", "v"):
                facts = systems.get(s)
                if facts is None:
                    continue
                if k == "rmax":
                    facts.newest_rmax = Decimal(v)
                else:
                    countries.setdefault(s, []).append(v)
            for s, found in countries.items():
                systems[s].newest_countries = tuple(sorted(set(found)))
        return index


def _facts(found: dict[str, list[str]]) -> SystemFacts:
    names, labels = found.get("name"), found.get("label")
    return SystemFacts(
        name=max(names) if names else min(labels) if labels else None,
        rmax=max((Decimal(v) for v in found.get("rmax", ())), default=None),
        accelerators=max((int(Decimal(v)) for v in found.get("accelerators", ())), default=None),
        operators=_sorted(found.get("operator", ())), sites=_sorted(found.get("site", ())),
        countries=_sorted(found.get("country", ())))


def _rows(store: GraphStore, query: str, *names: str) -> Iterable[tuple[str, ...]]:
    for row in store.query(query):
        if all(row[name] is not None for name in names):
            yield tuple(row[name].value for name in names)


def _sorted(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(values)))


def _text(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _decimal(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)
