"""Publish a built, validated graph to a SPARQL server: load it beside the live one, then switch.

1. Graphs left by a killed build (the catalogue graph lists them before they are loaded) are dropped.
2. Each named graph is loaded over the Graph Store Protocol: a graph the live build has into its staging
   graph, <https://w3id.org/hpckg/graph/staging/<generation>/<graph, percent-encoded>>; a graph it has not
   (every graph of the first build) under its own name, which no reader sees until the catalogue lists it.
   A live graph whose content is what the catalogue recorded at its switch (SHA-256 of its N-Triples in
   store order, hpc:sha256) and whose count on the server still matches is kept as it is: not loaded, not
   moved. The server's count of each loaded graph is checked against the local one.
3. On a server with graph groups (Virtuoso), a group <https://w3id.org/hpckg/graph/group/<generation>> is
   made of the build's graphs, for readers to name as their default graph in place of the list of graphs
   when asked to (HPCKG_STORE_GRAPH_GROUP=1, hpckg.servers.graph_group_wanted).
4. One SPARQL Update request switches: MOVE each staging graph onto its graph (the largest first), DROP the
   graphs the previous build had and this one has not, and rewrite the catalogue graph (sd:namedGraph and
   hpc:sha256 of each graph, the graph group, the new generation).

Readers (RemoteStore) query the union of the graphs the catalogue lists, so loaded graphs are never part of
an answer before the switch; a build killed before step 4 leaves the previous graphs and catalogue as they
were. A MOVE costs the server about as much as loading the graph again (docs/external-stores.md), which is
why only graphs a reader can see are staged. What a reader sees during step 4 depends on the server running
one update request as one transaction (README: "A SPARQL server as the store").
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import quote

import pyoxigraph as ox

from hpckg.errors import StoreError
from hpckg.namespaces import GRAPH, hpc
from hpckg.servers import GROUP_CREATE, GROUP_DROP, GROUP_INSERT
from hpckg.store import (
    CATALOGUE_GRAPH,
    GENERATION,
    GRAPH_GROUP,
    NO_GRAPH,
    SD_NAMED_GRAPH,
    STAGED,
    RemoteStore,
    Store,
    pause_point,
)

STAGING = GRAPH + "staging/"
GROUPS = GRAPH + "group/"
DIGEST = hpc("sha256")  # catalogue: <g> hpc:sha256 "hex" for each live graph without blank nodes
DIGEST_BATCH = 50_000  # triples serialised at a time for a digest, so that a graph of millions is never one string


def staging_graph(generation: int, graph: str) -> str:
    return f"{STAGING}{generation}/{quote(graph, safe='')}"


def graph_group(generation: int) -> str:
    return f"{GROUPS}{generation}"


def publish(local: Store, remote: RemoteStore, *, progress: Callable[[str], None] | None = None) -> int:
    """Load every named graph of `local` into `remote` beside the live graphs and switch to them; returns
    the new generation number."""
    previous = remote.live_graphs() or []
    generation = remote.generation() + 1
    discard_staging(remote)
    groups = remote.profile.graph_groups
    if groups:
        # a group a killed build of this generation made, and the one the previous switch replaced (readers
        # have had that build's lifetime to follow the catalogue to its successor)
        for stale in (generation, generation - 2):
            remote.call(GROUP_DROP.format(group=graph_group(stale)))
    graphs = local.named_graphs()
    live = set(previous)
    recorded = published_digests(remote) if live else {}
    # Only a graph with a recorded digest is read before loading; every other one is digested as it loads.
    candidates = {graph: Fingerprint.of(local.quads(graph=graph)) for graph in graphs if graph in recorded}
    kept = unchanged_graphs(remote, {graph: found.count for graph, found in candidates.items()
                                     if found.digest and found.digest == recorded[graph]})
    digests = {graph: candidates[graph].digest for graph in kept}
    # Readers query only the graphs the catalogue lists, so a graph the live build does not have can be loaded
    # under its own name: invisible until the switch lists it, and no MOVE to pay for (at the synthetic 10x, a
    # first publish's 703 MOVEs took longer than loading the graphs). Only a changed live graph needs a
    # staging copy.
    loaded = {graph: staging_graph(generation, graph) if graph in live else graph
              for graph in graphs if graph not in kept}
    fresh = [graph for graph in loaded if graph not in live]
    # Listed before loading so that the next build drops what a killed one left; emptied first in case a graph
    # of that name is on the server without being live (written by something other than an hpckg build).
    if loaded:
        remote.update(" ;\n".join([f"DROP SILENT GRAPH <{graph}>" for graph in fresh]
                                  + [f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{ "
                                     + " ".join(f"<{CATALOGUE_GRAPH}> <{STAGED}> <{g}> ." for g in loaded.values())
                                     + " } }"]))
    expected: dict[str, int] = {}
    for index, graph in enumerate(loaded, start=1):
        found = Fingerprint()
        expected[loaded[graph]] = remote.load_quads(found.passing(local.quads(graph=graph)), graph=loaded[graph])
        digests[graph] = found.digest
        if index == 1:
            pause_point("remote-loading")
        if progress and (index % 20 == 0 or index == len(loaded)):
            progress(f"loaded {index}/{len(loaded)} graphs on {remote.location} ({len(fresh)} under their own "
                     f"names, the rest into staging graphs; {len(kept)} unchanged graphs kept)")
    check_staged(remote, expected)
    group = graph_group(generation) if groups and graphs else None
    if group:
        remote.call(GROUP_CREATE.format(group=group))
        remote.call(GROUP_INSERT.format(group=group, members=" ".join(f'"{graph}"' for graph in graphs)))
    pause_point("remote-before-switch")
    # Largest first: a server that caps one transaction's size (Virtuoso's TransactionAfterImageLimit) and
    # runs each operation as its own transaction then refuses the first MOVE, before any graph has changed.
    staged = sorted((graph for graph in loaded if graph in live), key=lambda graph: -expected[loaded[graph]])
    operations = [f"MOVE SILENT <{loaded[graph]}> TO <{graph}>" for graph in staged]
    operations += [f"DROP SILENT GRAPH <{graph}>" for graph in previous if graph not in graphs]
    operations.append(f"DROP SILENT GRAPH <{CATALOGUE_GRAPH}>")
    listed = " ".join(f"<{CATALOGUE_GRAPH}> <{SD_NAMED_GRAPH}> <{graph}> ." for graph in graphs)
    listed += " ".join(f" <{graph}> <{DIGEST}> \"{digest}\" ." for graph, digest in digests.items() if digest)
    if group:
        listed += f" <{CATALOGUE_GRAPH}> <{GRAPH_GROUP}> <{group}> ."
    operations.append(f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{ {listed} "
                      f"<{CATALOGUE_GRAPH}> <{GENERATION}> {generation} . }} }}")
    started = time.perf_counter()
    try:
        remote.update(" ;\n".join(operations))
    except StoreError as error:
        largest = expected[loaded[staged[0]]] if staged else 0
        raise StoreError(switch_refused(error, remote.location, largest)) from None
    if progress:
        progress(f"switched {remote.location} to generation {generation} ({len(graphs)} graphs: {len(kept)} "
                 f"unchanged, {len(staged)} moved from staging graphs, {len(fresh)} loaded under their own names; "
                 f"{time.perf_counter() - started:.2f} s)")
    return generation


class Fingerprint:
    """SHA-256 of a graph's N-Triples in the order the store gives them (its index order, which depends on the
    content only) and its number of triples, taken as the triples pass; no digest when the graph has blank
    nodes, whose identifiers are new at every build."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self._batch: list[ox.Triple] = []
        self._blank = False
        self.count = 0

    @classmethod
    def of(cls, quads: Iterable[ox.Quad]) -> Fingerprint:
        found = cls()
        for _ in found.passing(quads):
            pass
        return found

    def passing(self, quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
        """Yield `quads` unchanged, adding each to the fingerprint."""
        for quad in quads:
            self.count += 1
            if not self._blank:
                triple = quad.triple
                if isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode):
                    self._blank = True
                    self._batch.clear()
                else:
                    self._batch.append(triple)
                    if len(self._batch) == DIGEST_BATCH:
                        self._sha.update(ox.serialize(self._batch, format=ox.RdfFormat.N_TRIPLES))
                        self._batch.clear()
            yield quad

    @property
    def digest(self) -> str | None:
        if self._blank:
            return None
        if self._batch:
            self._sha.update(ox.serialize(self._batch, format=ox.RdfFormat.N_TRIPLES))
            self._batch.clear()
        return self._sha.hexdigest()


def published_digests(remote: RemoteStore) -> dict[str, str]:
    """The digest the catalogue recorded for each live graph at its switch."""
    rows = remote.query(f"SELECT ?g ?d WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g <{DIGEST}> ?d }} }}",
                        prefixes=False, default_graph=[NO_GRAPH], named_graphs=[CATALOGUE_GRAPH])
    return {row["g"].value: row["d"].value for row in rows}


def unchanged_graphs(remote: RemoteStore, candidates: dict[str, int]) -> set[str]:
    """Of the live graphs whose digest is unchanged (with their local counts), those the server still holds
    as many triples of: a graph changed on the server by hand since its switch is published again."""
    return {graph for graph, count in sorted(candidates.items()) if count_on_server(remote, graph) == count}


def count_on_server(remote: RemoteStore, graph: str) -> int:
    """How many triples the server holds in one graph, counted by a query of its own (see check_staged)."""
    [row] = remote.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}",
                         prefixes=False, default_graph=[NO_GRAPH], named_graphs=[graph])
    return int(row["n"].value)


def check_staged(remote: RemoteStore, expected: dict[str, int]) -> None:
    """Refuse to switch unless the server holds every loaded graph with as many triples as were sent.
    Each graph is counted by a query of its own: one query over every staging graph of the synthetic 10x
    (36 M triples) outran Virtuoso's query time limit (SR171) after half an hour of loading, where the
    largest single graph (3 M triples) counts well within it."""
    for graph, sent in expected.items():
        if not sent:
            continue
        try:
            found = count_on_server(remote, graph)
        except StoreError as error:
            raise StoreError(f"could not count the loaded graph <{graph}> on the SPARQL server at "
                             f"{remote.location} ({error}); the live graphs were left as they were") from None
        if found != sent:
            raise StoreError(f"the SPARQL server at {remote.location} holds {found} triples in the loaded graph "
                             f"<{graph}> where {sent} were sent; the live graphs were left as they were")


def discard_staging(remote: RemoteStore) -> None:
    """Drop the graphs a killed build loaded or was about to load (listed in the catalogue before loading):
    staging graphs, and graphs loaded under their own names that the switch never made live."""
    rows = remote.query(f"SELECT ?s WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> <{STAGED}> ?s }} }}",
                        prefixes=False, default_graph=[NO_GRAPH], named_graphs=[CATALOGUE_GRAPH])
    live = set(remote.live_graphs() or [])
    left = [row["s"].value for row in rows if row["s"].value not in live]  # never a graph readers see
    if left:
        forget = f"DELETE WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> <{STAGED}> ?s }} }}"
        remote.update(" ;\n".join([f"DROP SILENT GRAPH <{g}>" for g in left] + [forget]))


# Virtuoso's error when one transaction's roll-forward log outgrows [Parameters] TransactionAfterImageLimit
TRANSACTION_TOO_LARGE = "SR325"


def switch_refused(error: StoreError, location: str, largest: int) -> str:
    """What to tell the person whose build the server refused to switch to."""
    said = str(error)
    if TRANSACTION_TOO_LARGE not in said:
        return f"{said}\nthe switch to the new build failed; the next build drops its staging graphs and switches again"
    return (f"{location} refused to move a graph in one transaction: its log of the change outgrew Virtuoso's "
            f"TransactionAfterImageLimit (50,000,000 bytes unless virtuoso.ini says otherwise; the largest graph "
            f"of this build holds {largest:,} triples). Graphs are moved largest first, so when that one is "
            f"refused the live graphs are still the previous build's. Raise [Parameters] "
            f"TransactionAfterImageLimit in virtuoso.ini (2,000,000,000 moves the full import; "
            f"docs/external-stores.md), restart Virtuoso and build again.\n{said}")
