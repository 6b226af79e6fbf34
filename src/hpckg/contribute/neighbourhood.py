"""What a contribution touches in a built store, read with a few SPARQL queries instead of copying the store.

A draft is reviewed in a small in-memory graph: the ontology and shapes, the draft, and the part of the
built store (embedded or a SPARQL server, hpckg.store) that the checks and the derivation rules can see
from the draft's nodes:

- every entity, claim and source the draft names (its triples, in the graphs that state them);
- the claims about those entities and their components (conflicts, duplicates, best claims, totals);
- the systems whose claims point at a named site, organisation chain or machine record (site totals,
  the ^hpc:site and roll-up paths of the sourcing shapes, records of one machine);
- the source checks of the named sources;
- then, hop by hop, the entities those triples name (operators, their parents, parts, sources, editions),
  up to HOPS steps from the draft.

The derived graph is never read: the rules run again on the small graph. What the small graph lacks (a
total over a site reached at the last hop) affects it with and without the draft alike, so the review's
comparison with the graph before the draft (context.GraphContext.baseline) leaves it out. The cost
follows the size of the draft's neighbourhood, not the size of the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox

from hpckg.errors import InputError
from hpckg.names import name_keys, strip_qualifier
from hpckg.namespaces import DERIVED_GRAPH, ID, hpc
from hpckg.store import AnyStore, Store
from hpckg.terms import RDF_TYPE, RDFS_LABEL, SKOS_ALT_LABEL

HOPS = 4  # steps from the draft's nodes along the triples pulled in
BATCH = 300  # IRIs per VALUES block
PROV_USED = "http://www.w3.org/ns/prov#used"
# Claim properties whose value is the node a derivation or a shape reaches backwards: the systems at a
# site (site totals, ^hpc:site in the sourcing shapes), records of one machine, organisations whose roll-up
# runs through this one.
BACKWARD = tuple(hpc(p) for p in ("site", "sameMachineAs", "acquiredBy", "renamedTo", "parentOrganisation"))

_QUADS = "SELECT ?s ?p ?o ?g WHERE {{ VALUES ?x {{ {values} }} GRAPH ?g {{ {pattern} }} }}"
# The node's own triples, and those of a blank node it points at (one level).
_SUBJECT = "{ ?x ?p ?o BIND (?x AS ?s) } UNION { ?x ?q ?s . FILTER (isBlank(?s)) ?s ?p ?o }"


def _entity(term: ox.Term) -> bool:
    return isinstance(term, ox.NamedNode) and term.value.startswith(ID)


def _batches(iris: Iterable[str]) -> Iterator[str]:
    ordered = sorted(iris)
    for start in range(0, len(ordered), BATCH):
        yield " ".join(f"<{iri}>" for iri in ordered[start:start + BATCH])


class TooBroad(InputError):
    """The draft touches more of the store than the caller allows (the site's Contribute page)."""


class Neighbourhood:
    """Reads the quads around a set of nodes from a built store, leaving out some graphs (the draft's own
    files as they were built, the derived graph). `limit`: the most quads to read, for a caller that must
    bound a review's cost (TooBroad past it); None reads all."""

    def __init__(self, store: AnyStore, skip_graphs: Iterable[str], *, limit: int | None = None):
        self.store = store
        self.skip = set(skip_graphs) | {DERIVED_GRAPH}
        self.limit = limit
        self.queries = 0

    def _select(self, pattern: str, iris: Iterable[str]) -> list[ox.Quad]:
        found = []
        for values in _batches(iris):
            self.queries += 1
            reading = self.store.reading() if isinstance(self.store, Store) else contextlib.nullcontext()
            with reading:
                for row in self.store.query(_QUADS.format(values=values, pattern=pattern), union=False,
                                            prefixes=False):
                    graph = row["g"]
                    if graph.value in self.skip:
                        continue
                    found.append(ox.Quad(row["s"], row["p"], row["o"], graph))
        return found

    def described(self, iris: Iterable[str]) -> list[ox.Quad]:
        """Every triple with one of the nodes as subject (and its blank nodes' triples)."""
        return self._select(_SUBJECT, iris)

    def attached(self, iris: Iterable[str]) -> list[ox.Quad]:
        """The triples of the claims about the nodes and of their components."""
        pattern = f"{{ ?s <{hpc('about')}> ?x }} UNION {{ ?s <{hpc('componentOf')}> ?x }} ?s ?p ?o"
        return self._select(pattern, iris)

    def pointing(self, iris: Iterable[str]) -> list[ox.Quad]:
        """The triples of the claims whose value is one of the nodes on a BACKWARD property, and of the
        source checks that used one of them."""
        backward = ", ".join(f"<{p}>" for p in BACKWARD)
        pattern = (f"{{ ?s <{hpc('value')}> ?x . ?s <{hpc('property')}> ?bp . FILTER (?bp IN ({backward})) }} "
                   f"UNION {{ ?s <{PROV_USED}> ?x }} ?s ?p ?o")
        return self._select(pattern, iris)

    def gather(self, seeds: Iterable[str], hops: int = HOPS) -> set[ox.Quad]:
        """The quads around the seed IRIs (entity IRIs), HOPS steps out."""
        quads: set[ox.Quad] = set()
        seen: set[str] = set()
        frontier = {iri for iri in seeds if iri.startswith(ID)}
        for hop in range(hops + 1):
            frontier -= seen
            if not frontier:
                break
            seen |= frontier
            found = self.described(frontier) + self.attached(frontier)
            if hop == 0:
                # Claims pointing back at the draft's nodes bring their subjects (the systems at a site)
                # in as nodes of the next hop, so their components and claims are read too.
                pointing = self.pointing(frontier)
                found += pointing
                found += self.described({q.object.value for q in pointing if q.predicate.value == hpc("about")})
            # Components (and claims) pulled in are nodes too: their own claims come with the next hop.
            following: set[str] = set()
            for quad in found:
                if quad not in quads:
                    quads.add(quad)
                    if _entity(quad.subject):
                        following.add(quad.subject.value)
                    if _entity(quad.object):
                        following.add(quad.object.value)
            if self.limit is not None and len(quads) > self.limit:
                raise TooBroad(f"the draft touches more than {self.limit:,} triples of the graph (through "
                               f"{len(seen):,} entities); review it with `hpckg check` in a checkout instead")
            frontier = following
        return quads


_SYSTEM_TYPES = f"SELECT ?s ?g WHERE {{ GRAPH ?g {{ ?s <{RDF_TYPE}> <{hpc('System')}> }} }}"
_NAMES = (f"SELECT ?s ?name WHERE {{ ?s <{RDF_TYPE}> <{hpc('System')}> . "
          f"?s <{RDFS_LABEL}>|<{SKOS_ALT_LABEL}>|<{hpc('slug')}> ?name }}")
_ASCII_JUNK = re.compile(r"[^a-z0-9]")


def _keys(name: str) -> set[str]:
    """names.name_keys, without its Unicode work for plain ASCII names (most of a big store's): for those,
    the skeleton and the accent folding change nothing, so the key is the lowercased letters and digits."""
    if not name.isascii():
        return name_keys(name)
    keys = {_ASCII_JUNK.sub("", name.lower()), _ASCII_JUNK.sub("", strip_qualifier(name).lower())}
    keys.discard("")
    return keys or name_keys(name)


class SystemNames:
    """The systems of one store generation by the keys of their names (labels, alternative labels, slugs):
    what a new system's name is compared with. Built with one scan of the store's systems, then answered
    by index look-ups (SQLite), so it is built once per store generation: `hpckg check` keeps it in the
    project's cache folder (cached), `hpckg serve` in memory."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._lock = threading.Lock()

    @classmethod
    def build(cls, store: AnyStore, path: Path | None = None) -> SystemNames:
        """Scan the store into a new index, in memory or written to `path` (atomically: a temporary file
        renamed over it)."""
        reading = store.reading() if isinstance(store, Store) else contextlib.nullcontext()
        with reading:
            typed = [(row["s"].value, row["g"].value) for row in store.query(_SYSTEM_TYPES, union=False,
                                                                               prefixes=False)]
            named = [(row["s"].value, row["name"].value) for row in store.query(_NAMES, prefixes=False)
                     if isinstance(row["name"], ox.Literal)]
        temporary = path.with_name(f"{path.name}.{os.getpid()}.partial") if path is not None else None
        db = sqlite3.connect(str(temporary) if temporary else ":memory:", check_same_thread=False)
        db.execute("CREATE TABLE typed (iri TEXT, graph TEXT)")
        db.execute("CREATE TABLE names (key TEXT, iri TEXT)")
        db.executemany("INSERT INTO typed VALUES (?, ?)", typed)
        db.executemany("INSERT INTO names VALUES (?, ?)",
                       {(key, iri) for iri, name in named for key in _keys(name)})
        db.execute("CREATE INDEX names_key ON names (key)")
        db.execute("CREATE INDEX typed_iri ON typed (iri)")
        db.commit()
        if temporary is not None and path is not None:
            db.close()
            os.replace(temporary, path)
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        return cls(db)

    def matches(self, names: Iterable[str], skip_graphs: Iterable[str] = ()) -> set[str]:
        """The systems typed in a graph outside skip_graphs with a name sharing a key with one of `names`."""
        keys = sorted(set().union(*(name_keys(n) for n in names)))
        if not keys:
            return set()
        skip = sorted(set(skip_graphs) | {DERIVED_GRAPH})
        query = (f"SELECT DISTINCT n.iri FROM names n JOIN typed t ON t.iri = n.iri WHERE n.key IN "
                 f"({', '.join('?' * len(keys))}) AND t.graph NOT IN ({', '.join('?' * len(skip))})")
        with self._lock:
            return {row[0] for row in self.db.execute(query, [*keys, *skip])}


def cached_system_names(store: AnyStore, folder: Path) -> SystemNames:
    """The SystemNames of the store's current generation, from `folder` when an earlier check built it
    there, else built now and kept there (in memory only when the folder cannot be written)."""
    if isinstance(store, Store):
        identity = f"{Path(store.generation or '').resolve()}"
    else:
        identity = f"{store.location}#{store.generation()}"
    path = folder / (hashlib.sha256(identity.encode("utf-8")).hexdigest()[:24] + ".sqlite")
    if path.is_file():
        try:
            return SystemNames(sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False))
        except sqlite3.Error:
            pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.sqlite"):  # indexes of generations since replaced
            old.unlink(missing_ok=True)
        return SystemNames.build(store, path)
    except OSError:
        return SystemNames.build(store)


def typed_in(store: AnyStore, namespace: str, cls: str) -> set[str]:
    """The nodes under `namespace` typed `cls` or a subclass of it (for did-you-mean on an undefined one)."""
    query = (f"SELECT DISTINCT ?s WHERE {{ ?t <http://www.w3.org/2000/01/rdf-schema#subClassOf>* <{cls}> . "
             f"?s <{RDF_TYPE}> ?t . FILTER (STRSTARTS(STR(?s), \"{namespace}\")) }}")
    reading = store.reading() if isinstance(store, Store) else contextlib.nullcontext()
    with reading:
        return {row["s"].value for row in store.query(query, prefixes=False)}


__all__ = ["BACKWARD", "HOPS", "Neighbourhood", "TooBroad", "SystemNames", "cached_system_names", "typed_in"]
