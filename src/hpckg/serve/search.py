"""Search: systems, sites, organisations, parts and countries found by any of their names, accent-, case-
and punctuation-insensitive (hpckg.names.name_key), ranked exact > prefix > word > context > close and typed.

What people type: "frontier" (a name), "summit ornl" (a name word and the initials of the machine's site),
"frontier hpe" (and its vendor), "germany" (a country), "fugako" (a typo). So a system is also found by the
words of its context (site, operator, country, vendor at build) when at least one word of the search is in
its name, names of two or more words are found by their initials ("ornl"), and a word the index does not
hold is replaced by the index's nearest words (edit distance, rapidfuzz) before searching again; those
hits are "close" matches and `suggest` gives the text searched instead.

The index is built in memory from one store generation (a few SPARQL queries) and then answers each search
with dictionary look-ups and binary searches over sorted keys: no query per search. Views owns one index per
store generation, so a new build is searched after the server follows it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from hpckg.names import INITIALS_SKIP, name_key
from hpckg.namespaces import shorten
from hpckg.page.machine import OneMachine, machine_pages

if TYPE_CHECKING:
    from hpckg.store import GraphStore

# The kinds a search finds: class -> (kind word shown, its order among equal matches).
KINDS = {"System": ("system", 0), "Site": ("site", 1), "Datacenter": ("site", 1), "Organisation": ("organisation", 2),
         "PartModel": ("part", 3), "Country": ("country", 4)}
MATCH_ORDER = {"exact": 0, "prefix": 1, "word": 2, "context": 3, "close": 4}
MAX_QUERY = 200  # characters of a search looked at
SUGGESTED = 3  # records a "did you mean" names

PREFIXES = """
PREFIX hpc:  <https://w3id.org/hpckg/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
"""
# Three simple queries joined in Python: one pattern joining types with names and name claims took seconds.
ENTITIES_QUERY = PREFIXES + """SELECT ?entity ?class ?label WHERE {
  VALUES ?class { hpc:System hpc:Site hpc:Datacenter hpc:Organisation hpc:PartModel hpc:Country }
  ?entity a ?class . OPTIONAL { ?entity rdfs:label ?label } }"""
ALIASES_QUERY = PREFIXES + "SELECT ?entity ?name WHERE { ?entity skos:altLabel ?name }"
NAME_CLAIMS_QUERY = PREFIXES + """SELECT ?entity ?name WHERE {
  ?claim hpc:property hpc:name ; hpc:about ?entity ; hpc:value ?name }"""
TRUTHY_NAME_QUERY = PREFIXES + "SELECT ?entity (MIN(STR(?n)) AS ?name) WHERE { ?entity hpc:name ?n } GROUP BY ?entity"
# A system's context: what its site, operator and country are (their names come from ENTITIES_QUERY and
# ALIASES_QUERY), and who built it. Two queries: one joining both took minutes on the full graph.
CONTEXT_QUERY = PREFIXES + "SELECT ?system ?other WHERE { ?system hpc:site|hpc:operator|hpc:country ?other }"
VENDOR_QUERY = PREFIXES + """PREFIX role: <https://w3id.org/hpckg/vocab/role/>
SELECT ?system ?other WHERE { ?part hpc:role role:integrator ; hpc:componentOf ?system ; hpc:supplierAtBuild ?other }"""


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

    def __init__(self, named: list[tuple[Entity, str]], machines: dict[str, OneMachine] | None = None,
                 context: list[tuple[str, str]] = ()):
        """`named`: (entity, one of its names) pairs; `machines`: the one-machine pages; `context`: (system
        IRI, a name of its site, operator, country or vendor) pairs."""
        # One machine, one result: a record found by any of its names stands for its machine's page.
        self.machines = machines or {}
        self.named, self.context = list(named), list(context)  # what to_json keeps
        self.entities: list[Entity] = []
        self.names: list[str] = []  # parallel to entities: one (entity, name) pair per position
        self.by_key: dict[str, list[int]] = {}
        self.by_word: dict[str, set[int]] = {}  # a name's words, matched from their beginning
        self.by_initials: dict[str, set[int]] = {}  # a name's initials, matched whole
        # Each distinct name analysed once: the full graph's 86,807 context pairs have 3,007 names, its 38,132
        # names 16,153 (reading the index back took 2.7 s, most of it analysing the same names again).
        analysed: dict[str, tuple[str, list[str], list[str]]] = {}

        def analyse(name: str) -> tuple[str, list[str], list[str]]:
            found = analysed.get(name)
            if found is None:
                found = analysed[name] = (name_key(name), words(name), initials(name))
            return found
        for entity, name in dict.fromkeys(named):
            key, name_words, name_initials = analyse(name)
            if not key:
                continue
            position = len(self.names)
            self.entities.append(entity)
            self.names.append(name)
            self.by_key.setdefault(key, []).append(position)
            for word in name_words:
                for spelling in spellings(word):
                    self.by_word.setdefault(spelling, set()).add(position)
            for word in name_initials:
                self.by_initials.setdefault(word, set()).add(position)
        self.by_context_word: dict[str, set[str]] = {}  # word -> the systems whose context has it
        self.context_initials: dict[str, set[str]] = {}
        for iri, name in dict.fromkeys(context):
            _, name_words, name_initials = analyse(name)
            for word in name_words:
                for spelling in spellings(word):
                    self.by_context_word.setdefault(spelling, set()).add(iri)
            for word in name_initials:
                self.context_initials.setdefault(word, set()).add(iri)
        self.keys = sorted(self.by_key)
        self.words = sorted(self.by_word)
        self.context_words = sorted(self.by_context_word)
        # Every word a search can match, for the nearest words to one it cannot
        self.vocabulary = sorted(set(self.words) | set(self.context_words))
        self.by_iri = {entity.iri: entity for entity in self.entities}

    def also(self, iri: str) -> tuple[str, ...]:
        """The machine's other records, as "Epoch AI as Jupiter, Jülich"."""
        machine = self.machines.get(iri)
        if machine is None:
            return ()
        return tuple(f"{dataset} as {self.by_iri[other].label if other in self.by_iri else other.rsplit('/', 1)[-1]}"
                     for other, dataset in machine.others(iri))

    @classmethod
    def from_store(cls, store: GraphStore, machines: dict[str, OneMachine] | None = None) -> SearchIndex:
        """The index of a store's names; `machines`: its records of one machine, when already read."""
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
        names_of: dict[str, list[str]] = {}
        for entity, name in named:
            names_of.setdefault(entity.iri, []).append(name)
        context = [(row["system"].value, name) for query in (CONTEXT_QUERY, VENDOR_QUERY)
                   for row in store.query(query) for name in names_of.get(row["other"].value, ())]
        named = [(Entity(e.iri, e.kind, shown.get(e.iri, e.label)), name) for e, name in named]
        return cls(named, machine_pages(store) if machines is None else machines, context)

    def to_json(self) -> dict:
        """What the index is built from, as JSON (kept on disk per store generation: hpckg.serve.diskcache)."""
        return {"named": [[e.iri, e.kind, e.label, name] for e, name in self.named],
                "context": [list(pair) for pair in self.context]}

    @classmethod
    def from_json(cls, data: dict, machines: dict[str, OneMachine] | None = None) -> SearchIndex:
        return cls([(Entity(iri, kind, label), name) for iri, kind, label, name in data["named"]], machines,
                   [(iri, name) for iri, name in data["context"]])

    def __len__(self) -> int:
        return len(self.names)

    def search(self, text: str, limit: int = 20, kinds: set[str] | None = None) -> list[Hit]:
        """The entities a search text names, best first: the whole key equal to a name's key, then a prefix
        of one, then every word of the text starting a word of the name (or being its initials), then every
        word in the name or the system's context with one at least in the name. When some word of the text
        is in no name and no context, the text with that word replaced by its nearest words is searched
        instead, and every hit is a "close" match. One hit per entity, by its best match; among equal
        matches, systems first, then shorter names, then alphabetically."""
        hits = self._search(text[:MAX_QUERY])
        if hits is None:
            nearest = self._nearest(words(text[:MAX_QUERY]))
            hits = self._search(text[:MAX_QUERY], nearest) or []
            hits = [Hit(h.entity, h.name, "close", h.also) for h in hits]
        # a name whose words match only in its qualifier ("T3E (Forschungszentrum Juelich (FZJ))", an editors'
        # "Name (Site)") matches by the site's words, as context does: "Jülich" lists the organisation before
        # the twenty machines it ran
        hits = [Hit(h.entity, h.name, "context", h.also) if h.match == "word" and qualifier_only(text, h.name)
                else h for h in hits if kinds is None or h.entity.kind in kinds]
        hits.sort(key=lambda h: (MATCH_ORDER[h.match], _kind_order(h.entity.kind), len(h.name),
                                 h.name.casefold()))
        return hits[:limit]

    def close_names(self, text: str, classes: set[str]) -> str:
        """The records of `classes` (ontology class IRIs) this search finds for a name no record has, as
        "orgn:x (Label) or ...": a scaffold's or the Contribute form's "did you mean"; '' when none."""
        kinds = {KINDS[local][0] for local in (c.rsplit("#", 1)[-1] for c in classes) if local in KINDS}
        hits = self.search(text, SUGGESTED, kinds)
        return " or ".join(f"{shorten(h.entity.iri)} ({h.entity.label})" for h in hits)

    def suggest(self, text: str) -> str | None:
        """The text `search` looked for instead of `text` (its unknown words replaced by the nearest known
        word), or None when every word of it is known."""
        text = text[:MAX_QUERY]
        query_words = words(text)
        if self._search(text) is not None or not query_words:
            return None
        nearest = self._nearest(query_words)
        return " ".join(nearest[word][0] if nearest.get(word) else word for word in query_words)

    def _known(self, word: str) -> bool:
        return (word in self.by_initials or word in self.context_initials
                or any(True for _ in _prefixed(self.vocabulary, word, None, keys_only=True)))

    def _nearest(self, query_words: list[str]) -> dict[str, list[str]]:
        """For each word the index does not hold (as a word or a word's beginning): the index's words at the
        smallest edit distance found (1 for words of 4-5 letters, up to 2 from 6), most used first."""
        nearest: dict[str, list[str]] = {}
        for word in query_words:
            if self._known(word) or len(word) < 4:
                continue
            found = process.extract(word, self.vocabulary, scorer=DamerauLevenshtein.distance,
                                    score_cutoff=1 if len(word) < 6 else 2, limit=20)
            if found:
                best = min(distance for _, distance, _ in found)
                closest = [choice for choice, distance, _ in found if distance == best]
                nearest[word] = sorted(closest, key=lambda w: -len(self.by_word.get(w, ())) - len(
                    self.by_context_word.get(w, ())))
        return nearest

    def _search(self, text: str, nearest: dict[str, list[str]] | None = None) -> list[Hit] | None:
        """The hits of `text`, or None when a word of it is unknown and `nearest` does not replace it."""
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

        if nearest is None:
            add(self.by_key.get(key, ()), "exact")
            add(_prefixed(self.keys, key, self.by_key), "prefix")
        query_words = words(text)
        # Per word of the text (or its nearest words): the name positions and the systems its context holds
        in_names: list[set[int]] = []
        in_context: list[set[str]] = []
        for word in query_words:
            positions: set[int] = set()
            systems: set[str] = set()
            for spelling in (nearest or {}).get(word) or spellings(word):
                for matching in _prefixed(self.words, spelling, self.by_word, flatten=False):
                    positions |= matching
                for matching in _prefixed(self.context_words, spelling, self.by_context_word, flatten=False):
                    systems |= matching
                positions |= self.by_initials.get(spelling, set())
                systems |= self.context_initials.get(spelling, set())
            if not positions and not systems and not found:
                return None
            in_names.append(positions)
            in_context.append(systems)
        if not query_words:
            return list(found.values())
        add(sorted(set.intersection(*in_names)), "word")
        # Across name and context: every word in one of the record's names or in its context, one in a name
        by_record: list[set[str]] = [{self.entities[p].iri for p in positions} for positions in in_names]
        named_somewhere = set().union(*by_record)
        first_position = {}
        for positions in in_names:
            for position in sorted(positions):
                first_position.setdefault(self.entities[position].iri, position)
        either = list(zip(by_record, in_context, strict=True))
        across = [iri for iri in named_somewhere if all(iri in names or iri in systems for names, systems in either)]
        add(sorted(first_position[iri] for iri in across), "context")
        return list(found.values())


def words(name: str) -> list[str]:
    """The keys of a name's words: 'JUWELS Booster-Module' -> ['juwels', 'booster', 'module']."""
    return [k for k in (name_key(w) for w in re.split(r"[\s\-_/,;:()\[\].]+", name)) if k]


_TRANSLITERATED = re.compile(r"([aou])e")


def spellings(word: str) -> list[str]:
    """A word's key and, where it may be a German transliteration, the key of its umlaut: name_key folds
    'Jülich' to 'julich', while the TOP500 writes 'Juelich' ('juelich' -> also 'julich'). Words of five letters
    or more only ('blue', 'goes' are not transliterations)."""
    folded = _TRANSLITERATED.sub(r"\1", word) if len(word) >= 5 else word
    return [word] if folded == word else [word, folded]


_QUALIFIED = re.compile(r"^(.*?\S)\s*\(.*\)\s*$")


def qualifier_only(text: str, name: str) -> bool:
    """Whether no word of `text` starts a word of `name` outside its trailing parenthesised qualifier."""
    base = _QUALIFIED.match(name)
    if base is None:
        return False
    base_words = [spelling for word in words(base.group(1)) for spelling in spellings(word)]
    return not any(b.startswith(s) for word in words(text) for s in spellings(word) for b in base_words)


def initials(name: str) -> list[str]:
    """The initials of each part of a name that has two words or more, small words left out:
    'DOE/SC/Oak Ridge National Laboratory' -> ['ornl'], 'Lawrence Livermore National Laboratory' -> ['llnl']."""
    found = []
    for part in re.split(r"[/,;:()\[\]]+", name):
        kept = [word for word in words(part) if word not in INITIALS_SKIP]
        if len(kept) >= 2:
            found.append("".join(word[0] for word in kept))
    return found


def _prefixed(keys: list[str], prefix: str, index: dict | None, *, flatten: bool = True, keys_only: bool = False):
    """The index entries of every sorted key starting with prefix (a binary search, then a walk)."""
    start = bisect.bisect_left(keys, prefix)
    for key in keys[start:]:
        if not key.startswith(prefix):
            break
        if keys_only:
            yield key
        elif flatten:
            yield from index[key]
        else:
            yield index[key]


def _kind_order(kind: str) -> int:
    return next(order for word, order in KINDS.values() if word == kind)
