"""`hpckg serve --store URL`: the query workers forward each query to a SPARQL server (hpckg.store.RemoteStore)
instead of reading an embedded store, behind the same checks, limits and answer formats.

The workers then need the network (to reach the server), so their network walls are off; SERVICE is still
refused from a parse of the query, which the worker makes before it forwards the query. Each worker reads
the server's catalogue of live graphs again when it is older than FOLLOW_SECONDS, and the service moves its
pages and statistics to a new build as it does for the embedded store (Service.refresh), so a build
published meanwhile is followed.
"""

from __future__ import annotations

import time

import pyoxigraph as ox

from hpckg.errors import QuerySyntaxError, StoreError
from hpckg.store import RemoteStore

FOLLOW_SECONDS = 2.0  # how stale a worker's list of the build's graphs may be


class ServerQueries:
    """What a query worker needs of a store (query with pyoxigraph's keyword arguments), over a SPARQL
    server: a read-only RemoteStore, with no credentials (queries need none)."""

    def __init__(self, url: str):
        self.remote = RemoteStore(url)
        self._read_at = 0.0

    def query(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None,
              use_default_graph_as_union: bool = False, default_graph: list[ox.NamedNode] | None = None,
              named_graphs: list[ox.NamedNode] | None = None):
        if time.monotonic() - self._read_at > FOLLOW_SECONDS:
            self.remote.follow()
            self._read_at = time.monotonic()
        head = f"BASE <{ox.NamedNode(base_iri).value}>\n" if base_iri else ""  # an IRI, never other text
        head += "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in (prefixes or {}).items())
        try:
            return self.remote.query(head + sparql, prefixes=False, union=use_default_graph_as_union,
                                     default_graph=[g.value for g in default_graph] if default_graph else None,
                                     named_graphs=[g.value for g in named_graphs] if named_graphs else None)
        except QuerySyntaxError as error:
            raise SyntaxError(str(error)) from None
        except StoreError as error:
            raise RuntimeError(str(error)) from None
