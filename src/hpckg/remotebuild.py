"""Publish a built, validated graph to a SPARQL server: load it beside the live one, then switch.

1. Staging graphs left by a killed build (the catalogue graph lists them before they are loaded) are
   dropped.
2. Each named graph is loaded over the Graph Store Protocol into its staging graph,
   <https://w3id.org/hpckg/graph/staging/<generation>/<graph, percent-encoded>>, and the server's count of
   each staging graph is checked against the local one.
3. One SPARQL Update request switches: MOVE each staging graph onto its graph (the largest first), DROP the
   graphs the previous build had and this one has not, and rewrite the catalogue graph (sd:namedGraph of each
   graph, the new generation).

Readers (RemoteStore) query the union of the graphs the catalogue lists, so staging graphs are never part of
an answer; a build killed before step 3 leaves the previous graphs and catalogue as they were. What a reader
sees during step 3 depends on the server running one update request as one transaction (README: "A SPARQL
server as the store").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import quote

from hpckg.errors import StoreError
from hpckg.namespaces import GRAPH
from hpckg.store import CATALOGUE_GRAPH, GENERATION, SD_NAMED_GRAPH, RemoteStore, Store, pause_point

STAGING = GRAPH + "staging/"
STAGED = "https://w3id.org/hpckg/ontology#stagingGraph"  # catalogue: <catalogue> hpc:stagingGraph <g>


def staging_graph(generation: int, graph: str) -> str:
    return f"{STAGING}{generation}/{quote(graph, safe='')}"


def publish(local: Store, remote: RemoteStore, *, progress: Callable[[str], None] | None = None) -> int:
    """Load every named graph of `local` into `remote` beside the live graphs and switch to them; returns
    the new generation number."""
    previous = remote.live_graphs() or []
    generation = remote.generation() + 1
    discard_staging(remote)
    graphs = local.named_graphs()
    staged = {graph: staging_graph(generation, graph) for graph in graphs}
    remote.update(f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{ "
                  + " ".join(f"<{CATALOGUE_GRAPH}> <{STAGED}> <{s}> ." for s in staged.values()) + " } }")
    expected: dict[str, int] = {}
    for index, graph in enumerate(graphs, start=1):
        expected[staged[graph]] = remote.load_quads(local.quads(graph=graph), graph=staged[graph])
        if index == 1:
            pause_point("remote-loading")
        if progress and (index % 20 == 0 or index == len(graphs)):
            progress(f"loaded {index}/{len(graphs)} graphs into staging graphs on {remote.location}")
    check_staged(remote, expected)
    pause_point("remote-before-switch")
    # Largest first: a server that caps one transaction's size (Virtuoso's TransactionAfterImageLimit) and
    # runs each operation as its own transaction then refuses the first MOVE, before any graph has changed.
    largest_first = sorted(graphs, key=lambda graph: -expected[staged[graph]])
    operations = [f"MOVE SILENT <{staged[graph]}> TO <{graph}>" for graph in largest_first]
    operations += [f"DROP SILENT GRAPH <{graph}>" for graph in previous if graph not in staged]
    operations.append(f"DROP SILENT GRAPH <{CATALOGUE_GRAPH}>")
    listed = " ".join(f"<{CATALOGUE_GRAPH}> <{SD_NAMED_GRAPH}> <{graph}> ." for graph in graphs)
    operations.append(f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{ {listed} "
                      f"<{CATALOGUE_GRAPH}> <{GENERATION}> {generation} . }} }}")
    started = time.perf_counter()
    try:
        remote.update(" ;\n".join(operations))
    except StoreError as error:
        raise StoreError(switch_refused(error, remote.location, expected[staged[largest_first[0]]])) from None
    if progress:
        progress(f"switched {remote.location} to generation {generation} ({len(graphs)} graphs, "
                 f"{time.perf_counter() - started:.2f} s)")
    return generation


def check_staged(remote: RemoteStore, expected: dict[str, int]) -> None:
    """Refuse to switch unless the server holds every staging graph with as many triples as were sent.
    Each graph is counted by a query of its own: one query over every staging graph of the synthetic 10x
    (36 M triples) outran Virtuoso's query time limit (SR171) after half an hour of loading, where the
    largest single graph (3 M triples) counts well within it."""
    for graph, sent in expected.items():
        if not sent:
            continue
        try:
            [row] = remote.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}",
                                 prefixes=False, default_graph=[CATALOGUE_GRAPH + "#none"], named_graphs=[graph])
        except StoreError as error:
            raise StoreError(f"could not count the staging graph <{graph}> on the SPARQL server at "
                             f"{remote.location} ({error}); the live graphs were left as they were") from None
        found = int(row["n"].value)
        if found != sent:
            raise StoreError(f"the SPARQL server at {remote.location} holds {found} triples in the staging graph "
                             f"<{graph}> where {sent} were sent; the live graphs were left as they were")


def discard_staging(remote: RemoteStore) -> None:
    """Drop the staging graphs a killed build left (listed in the catalogue before they were loaded)."""
    rows = remote.query(f"SELECT ?s WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> <{STAGED}> ?s }} }}",
                        prefixes=False, default_graph=[CATALOGUE_GRAPH + "#none"], named_graphs=[CATALOGUE_GRAPH])
    left = [row["s"].value for row in rows]
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
