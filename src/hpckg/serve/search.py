"""Search: systems, sites, organisations and parts found by any of their names, accent-, case- and
punctuation-insensitive (hpckg.names.name_key), ranked exact > prefix > word and typed.

The index is built in memory from one store generation (labels, alternative labels and name claims, one
SPARQL query) and then answers each search with dictionary look-ups and binary searches over sorted keys:
no query per search. Views owns one index per store generation, so a new build is searched after the server
follows it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hpckg.names import name_key
from hpckg.page.machine import OneMachine, machine_pages

if TYPE_CHECKING:
    from hpckg.store import GraphStore

# The kinds a search finds: class -> (kind word shown, its order among equal matches).
KINDS = {"System": ("system", 0), "Site": ("site", 1), "Datacenter": ("site", 1), "Organisation": ("organisation", 2),
         "PartModel": ("part", 3)}
MATCH_ORDER = {"exact": 0, "prefix": 1, "word": 2}
MAX_QUERY = 200  # characters of a search looked at

PREFIXES = """
PREFIX hpc:  <https://w3id.org/hpckg/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
"""
# Three simple queries joined in Python: one pattern joining types with names and name claims took seconds.
ENTITIES_QUERY = PREFIXES + """SELECT ?entity ?class ?label WHERE {
  VALUES ?class { hpc:System hpc:Site hpc:Datacenter hpc:Organisation hpc:PartModel }
  ?entity a ?class . OPTIONAL { ?entity rdfs:label ?label } }"""
ALIASES_QUERY = PREFIXES + "SELECT ?entity ?name WHERE { ?entity skos:altLabel ?name }"
NAME_CLAIMS_QUERY = PREFIXES + """SELECT ?entity ?name WHERE {
  ?claim hpc:property hpc:name ; hpc:about ?entity ; hpc:value ?name }"""
TRUTHY_NAME_QUERY = PREFIXES + "SELECT ?entity (MIN(STR(?n)) AS ?name) WHERE { ?entity hpc:name ?n } GROUP BY ?entity"


@dataclass(frozen=True)
class Entity:
    iri: str
    kind: str
    label: str


@dataclass(frozen=True)
class Hit:
    """A search result: the entity, the name it matched by and how (exact, prefix or word), and for a machine
    several datasets list, its other records ("Epoch AI as Jupiter, Jülich")."""

    entity: Entity
    name: str
    match: str
    also: tuple[str, ...] = ()


class SearchIndex:
    """Every name of every findable entity under its key, its words' keys, and sorted keys for prefixes."""

    def __init__(self, named: list[tuple[Entity, str]], machines: dict[str, OneMachine] | None = None):
        # One machine, one result: a record found by any of its names stands for its machine's page.
        self.machines = machines or {}
        self.entities: list[Entity] = []
        self.names: list[str] = []  # parallel to entities: one (entity, name) pair per position
        self.by_key: dict[str, list[int]] = {}
        self.by_word: dict[str, set[int]] = {}
        for entity, name in dict.fromkeys(named):
            key = name_key(name)
            if not key:
                continue
            position = len(self.names)
            self.entities.append(entity)
            self.names.append(name)
            self.by_key.setdefault(key, []).append(position)
            for word in words(name):
                self.by_word.setdefault(word, set()).add(position)
        self.keys = sorted(self.by_key)
        self.words = sorted(self.by_word)
        self.by_iri = {entity.iri: entity for entity in self.entities}

    def also(self, iri: str) -> tuple[str, ...]:
        """The machine's other records, as "Epoch AI as Jupiter, Jülich"."""
        machine = self.machines.get(iri)
        if machine is None:
            return ()
        return tuple(f"{dataset} as {self.by_iri[other].label if other in self.by_iri else other.rsplit('/', 1)[-1]}"
                     for other, dataset in machine.others(iri))

    @classmethod
    def from_store(cls, store: GraphStore) -> SearchIndex:
        entities: dict[str, Entity] = {}
        named: list[tuple[Entity, str]] = []
        for row in store.query(ENTITIES_QUERY):
            iri = row["entity"].value
            kind, _ = KINDS[row["class"].value.rsplit("#", 1)[-1]]
            label = row["label"].value if row["label"] is not None else iri
            entity = entities.setdefault(iri, Entity(iri, kind, label))
            if row["label"] is not None:
                named.append((entity, label))
        # Every name a source gave finds the entity (a machine renamed is found by its old name too); it is
        # shown by its truthy name, the latest, else its label (an editors' "Name (Operator)").
        for query in (NAME_CLAIMS_QUERY, ALIASES_QUERY):
            for row in store.query(query):
                entity = entities.get(row["entity"].value)
                if entity is not None:
                    named.append((entity, row["name"].value))
        shown = {row["entity"].value: row["name"].value for row in store.query(TRUTHY_NAME_QUERY)}
        named = [(Entity(e.iri, e.kind, shown.get(e.iri, e.label)), name) for e, name in named]
        return cls(named, machine_pages(store))

    def __len__(self) -> int:
        return len(self.names)

    def search(self, text: str, limit: int = 20) -> list[Hit]:
        """The entities a search text names, best first: the whole key equal to a name's key, then a prefix
        of one, then every word of the text starting a word of the name. One hit per entity, by its best
        match; among equal matches, systems first, then shorter names, then alphabetically."""
        text = text[:MAX_QUERY]
        key = name_key(text)
        if not key:
            return []
        found: dict[str, Hit] = {}

        def add(positions, match: str) -> None:
            for position in positions:
                entity = self.entities[position]
                machine = self.machines.get(entity.iri)
                if machine is not None:
                    entity = self.by_iri.get(machine.page, entity)
                if entity.iri not in found:
                    found[entity.iri] = Hit(entity, self.names[position], match, self.also(entity.iri))

        add(self.by_key.get(key, ()), "exact")
        add(_prefixed(self.keys, key, self.by_key), "prefix")
        query_words = words(text)
        if query_words:
            candidates: set[int] | None = None
            for word in query_words:
                matching: set[int] = set()
                for positions in _prefixed(self.words, word, self.by_word, flatten=False):
                    matching |= positions
                candidates = matching if candidates is None else candidates & matching
                if not candidates:
                    break
            add(sorted(candidates or ()), "word")
        hits = sorted(found.values(), key=lambda h: (MATCH_ORDER[h.match], _kind_order(h.entity.kind),
                                                    len(h.name), h.name.casefold()))
        return hits[:limit]


def words(name: str) -> list[str]:
    """The keys of a name's words: 'JUWELS Booster-Module' -> ['juwels', 'booster', 'module']."""
    return [k for k in (name_key(w) for w in re.split(r"[\s\-_/,;:()\[\].]+", name)) if k]


def _prefixed(keys: list[str], prefix: str, index: dict, *, flatten: bool = True):
    """The index entries of every sorted key starting with prefix (a binary search, then a walk)."""
    start = bisect.bisect_left(keys, prefix)
    for key in keys[start:]:
        if not key.startswith(prefix):
            break
        if flatten:
            yield from index[key]
        else:
            yield index[key]


def _kind_order(kind: str) -> int:
    return next(order for word, order in KINDS.values() if word == kind)
