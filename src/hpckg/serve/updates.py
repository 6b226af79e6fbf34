"""SPARQL Update for `hpckg serve --allow-update-token`: checked, then run where the network cannot be reached.

The server process holds the one writable handle of the store, so updates run in it, but never on a thread
that can open a socket: they run, one at a time, on a thread of their own that applied the query workers'
seccomp filter (hpckg.serve.workers._deny_inet_sockets; a filter loaded without TSYNC binds the calling
thread and the threads it starts, not the rest of the process). A LOAD or SERVICE that the parse check
missed then fails there, as a SERVICE the check missed fails in a query worker: the check is the first
wall, never the only one.

What a request adds to an update enters it as a term, never as text: the base IRI (from the Host header)
through Oxigraph's own `base_iri` argument, the protocol's using-graph-uri and using-named-graph-uri as IRIs
that Oxigraph's IRI parser accepted (so no '>', space or brace can end them) in USING clauses.
"""

from __future__ import annotations

import concurrent.futures
import logging
import re

import pyoxigraph as ox

from hpckg.errors import HpckgError
from hpckg.serve.sparql import blank_opaque
from hpckg.serve.workers import _deny_inet_sockets
from hpckg.store import GraphStore

logger = logging.getLogger(__name__)


class UpdateFailed(Exception):
    """An update failed while it ran for a reason that is not the client's syntax (said to the log only)."""


UPDATE_FAILED = ("the update failed while it ran (the server's log says why); LOAD and SERVICE make outbound "
                 "requests, which this server refuses")


def iri(value: str) -> str:
    """`value` when it is an absolute IRI (Oxigraph's parser decides), else ValueError."""
    return ox.NamedNode(value).value


class UpdateRunner:
    """One thread that runs updates, cut off the network unless `allow_network` (--allow-service, or a
    store that is itself a SPARQL server reached over the network)."""

    def __init__(self, *, allow_network: bool):
        self.walls: list[str] = []

        def sandbox() -> None:
            if not allow_network and _deny_inet_sockets():
                self.walls.append("seccomp")

        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hpckg-update",
                                                              initializer=sandbox)
        self._thread.submit(lambda: None).result()  # the filter is in place before the first update
        if not allow_network and not self.walls:
            logger.warning("the update thread could not be cut off the network (no seccomp): LOAD and SERVICE "
                           "in updates are refused by parsing only")

    def call(self, work, *args):
        """`work(*args)` run on the update thread (the caller blocks): its parse included, so rdflib's
        grammar, which is not thread-safe, is only ever used here in the server process."""
        return self._thread.submit(work, *args).result()

    def run(self, store: GraphStore, text: str, *, base_iri: str | None = None) -> None:
        """Apply an update on the update thread (blocking the caller): HpckgError for the client's syntax,
        UpdateFailed for anything else that went wrong while it ran."""
        self._thread.submit(apply, store, text, base_iri).result()

    def close(self) -> None:
        self._thread.shutdown(wait=True)


def apply(store: GraphStore, text: str, base_iri: str | None) -> None:
    """Run an update against a store (on the update thread)."""
    try:
        store.update(text, base_iri=base_iri)
    except HpckgError:
        raise
    except (OSError, ValueError, RuntimeError) as error:
        logger.warning("an update failed: %s", error)
        raise UpdateFailed(UPDATE_FAILED) from None


_WHERE = re.compile(r"(?<![\w:?$.\-])(DELETE\s+)?WHERE(?![\w:\-])", re.IGNORECASE)


def with_using(text: str, default: list[str], named: list[str]) -> str:
    """An update with USING/USING NAMED clauses for the protocol's using-graph-uri and using-named-graph-uri
    before the WHERE of each DELETE/INSERT operation (the only operations that take them). Each graph is an
    IRI Oxigraph's parser accepted (ValueError otherwise), so it cannot end its own brackets. The parse has
    already said the update has no USING or WITH of its own; WHERE is found as a keyword token outside
    strings, IRIs, comments and brackets (a subquery's WHERE is inside braces)."""
    clauses = "".join(f"USING <{iri(g)}> " for g in default) + "".join(f"USING NAMED <{iri(g)}> " for g in named)
    blanked = blank_opaque(text)
    depth, inserts = 0, []
    for match in re.finditer(r"[{}()\[\]]|" + _WHERE.pattern, blanked, re.IGNORECASE):
        token = match.group(0)
        if token in "{([":
            depth += 1
        elif token in "})]":
            depth = max(0, depth - 1)
        elif depth == 0 and not match.group(1):  # DELETE WHERE takes no USING
            inserts.append(match.start())
    for at in reversed(inserts):
        text = text[:at] + clauses + text[at:]
    return text
