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
from collections.abc import Iterable, Iterator

import pyoxigraph as ox

from hpckg.errors import InputError
from hpckg.namespaces import DERIVED_GRAPH, ID, hpc
from hpckg.store import AnyStore, Store
from hpckg.systemnames import SystemNames, cached_system_names
from hpckg.terms import RDF_TYPE

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


def typed_in(store: AnyStore, namespace: str, cls: str) -> set[str]:
    """The nodes under `namespace` typed `cls` or a subclass of it (for did-you-mean on an undefined one)."""
    query = (f"SELECT DISTINCT ?s WHERE {{ ?t <http://www.w3.org/2000/01/rdf-schema#subClassOf>* <{cls}> . "
             f"?s <{RDF_TYPE}> ?t . FILTER (STRSTARTS(STR(?s), \"{namespace}\")) }}")
    reading = store.reading() if isinstance(store, Store) else contextlib.nullcontext()
    with reading:
        return {row["s"].value for row in store.query(query, prefixes=False)}


__all__ = ["BACKWARD", "HOPS", "Neighbourhood", "TooBroad", "SystemNames", "cached_system_names", "typed_in"]
