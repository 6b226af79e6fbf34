"""The graph store: embedded Oxigraph on disk by default, or any SPARQL 1.1 server over the standard protocols.

Both backends answer queries with pyoxigraph result objects (QuerySolutions, QueryBoolean, QueryTriples),
so everything above this module is written once. Queries see the union of all named graphs as their default
graph: each source file lives in its own named graph, and a query should not need to know which.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import io
import os
import re
import shutil
import socket
import sys
import time
import urllib.error
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, runtime_checkable

import pyoxigraph as ox

from hpckg.errors import QuerySyntaxError, RdfSyntaxError, StoreError
from hpckg.formats import RdfFormatInfo, rdf_format_for_path
from hpckg.namespaces import sparql_prefixes

QueryResult = ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples


GENERATIONS_SUFFIX = ".generations"  # <store>.generations/: one complete Oxigraph store per build
MIGRATING_SUFFIX = ".migrating"  # a pointer left only by a build killed while moving an old-layout store


def generations_dir(path: Path | str) -> Path:
    """The folder beside the store path that holds its generations (complete Oxigraph stores)."""
    path = Path(path)
    return path.with_name(path.name + GENERATIONS_SUFFIX)


def current_generation(path: Path | str) -> Path:
    """The folder of the complete Oxigraph store that the store path `path` names right now.

    The store path is a symlink to one generation, <store>.generations/<n>-<timestamp>/, which `hpckg build`
    replaces in one atomic rename. It is read ONCE here (a single readlink), so a caller that opens the
    returned folder sees one complete generation even if a build switches the pointer meanwhile; to see a
    newer build, call this again and open the folder it returns. Also accepted: the layout of earlier
    versions (the Oxigraph folder itself at `path`, migrated by the next build) and a build killed while
    migrating it (the pointer then waits at <store>.migrating). Raises StoreError when there is no store.
    """
    path = given = Path(path)
    if not os.path.lexists(path):
        pending = path.with_name(path.name + MIGRATING_SUFFIX)
        if os.path.islink(pending):
            path = pending
    found = path
    if os.path.islink(path):
        try:
            found = path.parent / os.readlink(path)
        except OSError:
            found = path
    if not (found / "CURRENT").is_file():
        raise StoreError(f"no hpckg store at {given}; run `hpckg build` first (or pass --store PATH)")
    return found


def require_built(path: Path | str) -> Path:
    """The one check that a path holds a built store, with the one message that says what to do; returns
    the folder of its current generation (see current_generation)."""
    return current_generation(path)


def damaged_store(path: Path | str, error: BaseException) -> StoreError:
    """The error for a store whose files RocksDB cannot read (truncated or zeroed tables, an empty CURRENT):
    which store, what is wrong in one line, and the fix."""
    detail = " ".join(str(error).split())
    if len(detail) > 240:
        detail = detail[:237] + "..."
    return StoreError(f"the store at {path} is damaged and cannot be read ({detail}); "
                      "run `hpckg build` to rebuild it")


def parse_rdf(data: bytes | str, *, format: RdfFormatInfo, path: str = "<input>",
              base_iri: str | None = None) -> list[ox.Quad]:
    """Parse RDF completely, turning a syntax error into RdfSyntaxError with file:line:column."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if format.oxigraph == ox.RdfFormat.RDF_XML:
        refuse_xml_dtd(data, path)
    try:
        return list(ox.parse(data, format=format.oxigraph, base_iri=base_iri))
    except SyntaxError as error:
        message = str(error)
        # pyoxigraph says "Parser error at line 3 column 9: ..." or "... between line 2 column 9 and ...".
        if ": " in message and message.startswith("Parser error"):
            message = message.split(": ", 1)[1]
        raise RdfSyntaxError(path, error.lineno, error.offset, message) from None
    except ValueError as error:  # non-UTF-8 bytes and similar decoding problems
        raise RdfSyntaxError(path, None, None, str(error)) from None


def refuse_xml_dtd(data: bytes, path: str) -> None:
    """RDF/XML may declare entities in a DTD, which expand without bound (a 1 kB "billion laughs" file grew
    to 11.8 GB): no RDF data needs one, so a document with a DTD is refused before any RDF parser sees it."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise RdfSyntaxError(path, None, None, "RDF/XML with a DTD (<!DOCTYPE ...>) is refused: its entity "
                             "declarations can expand without bound; remove the DTD and write the values out"
                             ) from None
    except SyntaxError as error:  # ParseError: not well-formed
        line, column = getattr(error, "position", (None, None))
        raise RdfSyntaxError(path, line, column, f"not well-formed XML: {error}") from None


def parse_file(path: Path, *, format: RdfFormatInfo | None = None, base_iri: str | None = None,
               limit: int | None = None, inside: Path | None = None) -> list[ox.Quad]:
    """Parse an RDF file from disk (format from its extension unless given); see project.read_file for
    `limit` and `inside`."""
    from hpckg.project import FileRefused, read_file

    path = Path(path)
    fmt = format or rdf_format_for_path(path.name)
    try:
        data = read_file(path, limit=limit, inside=inside)
    except FileRefused as error:
        raise RdfSyntaxError(str(path), None, None, error.reason) from None
    return parse_rdf(data, format=fmt, path=str(path), base_iri=base_iri)


def query_error(error: SyntaxError, prepended_lines: int = 0, text: str = "") -> QuerySyntaxError:
    """A QuerySyntaxError saying where the query broke, in the user's own line numbers (the PREFIX lines
    hpckg prepends are subtracted), with a short message instead of the parser's list of expected tokens."""
    from hpckg.querytext import syntax_problem

    problem = syntax_problem(text, str(error), prepended_lines=prepended_lines)
    if problem is None:
        return QuerySyntaxError(f"SPARQL syntax error: {error}")
    error_out = QuerySyntaxError(str(problem))
    error_out.line, error_out.column = problem.line, problem.column  # type: ignore[attr-defined]
    return error_out


_PREFIX_LINES = sparql_prefixes().count("\n")


@runtime_checkable
class GraphStore(Protocol):
    """What every store offers, embedded (Store) or a SPARQL server (RemoteStore): what code that reads or
    writes "the store" may use without knowing which kind it has. The members a kind alone has (Store's
    reading, bulk_load and copy_from; RemoteStore's generation number, catalogue and server calls) are used
    only after isinstance() says which kind it is, or by code that takes that kind. tests/test_graphstore.py
    holds both classes to this, signatures included.
    """

    @property
    def location(self) -> str:
        """Where the store is, for messages: its folder, "memory", or the server's query URL."""
        ...

    def generation_id(self) -> str:
        """Which build this handle reads, as text no other build of any store shares (a key for what is
        kept per build): for a Store the absolute path of its generation folder ("memory" in memory), for a
        RemoteStore <query URL>#<generation number>."""
        ...

    def query(self, sparql: str, *, union: bool = True, prefixes: bool = True,
              default_graph: list[str] | None = None, named_graphs: list[str] | None = None
              ) -> QueryResult:
        """Run a SPARQL query. Its default graph is the union of the named graphs (a server's: those of the
        build it serves) unless `union` is False or `default_graph` names graphs; the project's prefixes are
        prepended unless `prefixes` is False."""
        ...

    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        """Run a SPARQL update (the project's prefixes prepended; relative IRIs against base_iri)."""
        ...

    def load_quads(self, quads: Iterable[ox.Quad], *, graph: str | None = None) -> int:
        """Add quads, into `graph` when given (replacing their own graph); returns how many."""
        ...

    def load(self, data: bytes | str, *, format: RdfFormatInfo, graph: str | None = None,
             path: str = "<input>", base_iri: str | None = None) -> int:
        """Parse RDF (RdfSyntaxError naming `path`) and add it; returns how many quads."""
        ...

    def named_graphs(self) -> list[str]:
        """The named graphs' IRIs, sorted."""
        ...

    def drop_graph(self, graph: str) -> None:
        """Remove a named graph and its triples (nothing when there is no such graph)."""
        ...

    def quads(self, *, graph: str | None = None) -> Iterator[ox.Quad]:
        """The quads of one named graph, or of every graph."""
        ...

    def dump(self, output: io.BufferedIOBase | str | Path, *, format: RdfFormatInfo,
             graph: str | None = None) -> None:
        """Write the store (or one graph, for a triple format) to a file or binary stream."""
        ...

    def triple_count(self) -> int:
        """How many triples the store holds, counted in every graph."""
        ...

    def flush(self) -> None:
        """Make what was written durable (nothing to do for memory or a server)."""
        ...

    def close(self) -> None:
        """Release the store; the handle is not used again."""
        ...


# Every annotation of a store that may be of either kind: the protocol, under the name it had as a union.
AnyStore = GraphStore


class Store:
    """The embedded Oxigraph store, on disk at `path` or in memory when `path` is None."""

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False):
        self.path = Path(path) if path is not None else None
        # The folder actually opened: read-only, the generation the pointer named at open; writable, `path`.
        self.generation_path = self.path
        self.read_only = read_only
        try:
            if self.path is None:
                self._store = ox.Store()
            elif read_only:
                # Resolve the pointer once: this handle stays on that generation whatever builds do later.
                self.generation_path = current_generation(self.path)
                self._store = ox.Store.read_only(str(self.generation_path))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(self.path))
        except RuntimeError as error:  # RocksDB's Corruption and IO errors on the store's own files
            raise damaged_store(self.path, error) from None
        except OSError as error:
            raise StoreError(f"cannot open the store at {self.path}: {error}") from None

    @property
    def location(self) -> str:
        return str(self.path) if self.path else "memory"

    def generation_id(self) -> str:
        """The build this handle reads (GraphStore.generation_id): the absolute path of the generation folder
        opened, whose name, <n>-<timestamp>, numbers the build. A writable handle opened at a store path that
        is a pointer names the generation the pointer names now; an in-memory store is "memory"."""
        if self.generation_path is None:
            return "memory"
        return str(self.generation_path.resolve())

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Read results inside this block: RocksDB reads tables lazily, so a damaged file can surface while
        results are iterated, not only at open; it becomes the StoreError of damaged_store."""
        try:
            yield
        except (OSError, RuntimeError) as error:
            if self.path is None:
                raise
            raise damaged_store(self.path, error) from None

    def load_quads(self, quads: Iterable[ox.Quad], *, graph: str | None = None) -> int:
        """Add quads (into `graph` when given, replacing their own graph); returns how many. The quads are
        streamed into Oxigraph, never held in a list here: a rule's CONSTRUCT can be added as it is read
        (the query reads the store as it was when it started)."""
        target = ox.NamedNode(graph) if graph else None
        added = 0

        def counted() -> Iterator[ox.Quad]:
            nonlocal added
            for quad in quads:
                added += 1
                yield quad if target is None else ox.Quad(quad.subject, quad.predicate, quad.object, target)

        self._store.extend(counted())
        return added

    def load_quads_in_batches(self, quads: Iterable[ox.Quad], *, batch: int = 20_000,
                              flush_every: int = 200_000) -> int:
        """Add quads a batch at a time, each batch its own transaction: for a build's staging store, which
        nobody reads and which a failed build throws away, so the whole need not be atomic. One transaction
        holds every quad it adds until it commits: rule 14's 851k triples took 1.5 GB more at 1x the real
        import as one transaction than none. An on-disk store is also flushed every `flush_every` quads and at
        the end: Oxigraph's RocksDB keeps what is written in memory tables until a flush, which it did not do
        by itself while a rule wrote (1.2 M quads held ~900 MB, flushing every 200k 250 MB, no slower;
        bench/write_memory_bench.py)."""
        added = 0
        pending: list[ox.Quad] = []
        for quad in quads:
            pending.append(quad)
            if len(pending) >= batch:
                self._store.extend(pending)
                added += len(pending)
                pending = []
                if added % flush_every < batch:
                    self.flush()
        self._store.extend(pending)
        self.flush()
        return added + len(pending)

    def query_bound(self, sparql: str, bindings: dict[str, ox.NamedNode | ox.BlankNode | ox.Literal]
                    ) -> QueryResult:
        """Run a SELECT (no prefixes prepended, the union of the graphs as its default graph) with variables
        bound to terms (SEP-0007 substitution, as pyoxigraph offers it: each must be in the projection): the
        same text for every term, parsed by Oxigraph each time, with no term written into it."""
        return self._store.query(sparql, use_default_graph_as_union=True,
                                 substitutions={ox.Variable(name): term for name, term in bindings.items()})

    def quads_for_pattern(self, subject: ox.NamedNode | ox.BlankNode | None, predicate: ox.NamedNode | None,
                          object: ox.NamedNode | ox.BlankNode | ox.Literal | None) -> Iterator[ox.Quad]:
        """The quads of every graph matching a pattern (None matches anything), read from the index that
        fits it: with only the predicate given, grouped by object (Oxigraph's POSG index)."""
        return self._store.quads_for_pattern(subject, predicate, object, None)

    def load(self, data: bytes | str, *, format: RdfFormatInfo, graph: str | None = None,
             path: str = "<input>", base_iri: str | None = None) -> int:
        return self.load_quads(parse_rdf(data, format=format, path=path, base_iri=base_iri), graph=graph)

    def bulk_load(self, path: Path, *, format: RdfFormatInfo, graph: str | None = None) -> None:
        """Load a large file without holding it in memory (no per-triple syntax positions)."""
        try:
            self._store.bulk_load(path=str(path), format=format.oxigraph,
                                  to_graph=ox.NamedNode(graph) if graph else None)
        except SyntaxError as error:
            raise RdfSyntaxError(str(path), error.lineno, error.offset, str(error)) from None

    def optimize(self) -> None:
        """Compact the on-disk store's files (RocksDB), as a build does once before it switches to a new
        generation: as the bulk loader leaves them, whole-graph queries ran 2-4x slower on the full import
        (accelerators-by-country 5.2 s -> 1.4 s, conflicts 3.2 s -> 0.9 s) for 6.5 s of compaction; the files
        take about 1.7x the disk (866 MB -> 1.5 GB)."""
        self._store.optimize()

    def copy_from(self, other: Store) -> None:
        """Add every quad of another embedded store, with Oxigraph's bulk loader (no transaction: for a store
        nobody reads yet, such as a build's new generation)."""
        self._store.bulk_extend(other._store.quads_for_pattern(None, None, None, None))

    def query(self, sparql: str, *, union: bool = True, prefixes: bool = True,
              default_graph: list[str] | None = None, named_graphs: list[str] | None = None
              ) -> QueryResult:
        """Run a SPARQL query with Oxigraph's native engine."""
        text = sparql_prefixes() + sparql if prefixes else sparql
        kwargs: dict = {}
        if default_graph:
            kwargs["default_graph"] = [ox.NamedNode(g) for g in default_graph]
        else:
            kwargs["use_default_graph_as_union"] = union
        if named_graphs:
            kwargs["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
        try:
            return self._store.query(text, **kwargs)
        except SyntaxError as error:
            raise query_error(error, _PREFIX_LINES if prefixes else 0, sparql) from None

    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        try:
            self._store.update(sparql_prefixes() + sparql, base_iri=base_iri)
        except SyntaxError as error:
            raise query_error(error, _PREFIX_LINES, sparql) from None

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def drop_graph(self, graph: str) -> None:
        if self._store.contains_named_graph(ox.NamedNode(graph)):
            self._store.remove_graph(ox.NamedNode(graph))

    def quads(self, *, graph: str | None = None) -> Iterator[ox.Quad]:
        return self._store.quads_for_pattern(None, None, None, ox.NamedNode(graph) if graph else None)

    def dump(self, output: io.BufferedIOBase | str | Path, *, format: RdfFormatInfo,
             graph: str | None = None) -> None:
        kwargs: dict = {"format": format.oxigraph}
        if not format.is_quad:
            kwargs["from_graph"] = ox.NamedNode(graph) if graph else ox.DefaultGraph()
        self._store.dump(str(output) if isinstance(output, str | Path) else output, **kwargs)

    def triple_count(self) -> int:
        return len(self._store)

    def flush(self) -> None:
        if self.path is not None:
            self._store.flush()

    def close(self) -> None:
        if self.path is not None and hasattr(self, "_store"):
            try:
                self._store.flush()
            except (OSError, RuntimeError):
                pass  # read-only stores cannot flush
        self._store = None  # type: ignore[assignment]


# The graph in a SPARQL server that lists the named graphs of the build it serves (sd:namedGraph) and that
# build's generation: readers query exactly those graphs, so a build's staging graphs, graphs of other
# applications and a server's own system graphs never show up in hpckg's answers. See hpckg.remotebuild.
CATALOGUE_GRAPH = "https://w3id.org/hpckg/graph/catalogue"
SD_NAMED_GRAPH = "http://www.w3.org/ns/sparql-service-description#namedGraph"
GENERATION = "http://purl.org/dc/terms/identifier"
# <catalogue> hpc:stagingGraph <g>: a graph a build is loading, listed before it is loaded (hpckg.remotebuild)
STAGED = "https://w3id.org/hpckg/ontology#stagingGraph"
# <catalogue> hpc:graphGroup <group>: one IRI a server (Virtuoso) lets a request name for all the build's graphs
GRAPH_GROUP = "https://w3id.org/hpckg/ontology#graphGroup"
NO_GRAPH = CATALOGUE_GRAPH + "#none"  # named in a request's dataset to make its default graph empty
CREDENTIALS_HINT = ("; give the server's user and password in HPCKG_STORE_USER and HPCKG_STORE_PASSWORD, or "
                    "in a file named by the configuration's store_credentials")
GRAPH_STORE_BATCH = 50_000  # triples per Graph Store request: big enough to be fast, small enough to retry


class RemoteStore:
    """A SPARQL 1.1 server (Oxigraph server, Fuseki, GraphDB, Virtuoso...) reached over the standard
    protocols: SPARQL 1.1 Protocol for queries and updates, Graph Store HTTP Protocol for loading.

    `endpoint` is the query URL; the update and graph store URLs and the authentication of writes come from
    the server's profile (hpckg.servers) unless given. Queries see as their default graph the union of the
    named graphs the catalogue graph lists, read once when the first query is made (like an embedded store's
    generation: a reader stays on the graphs it found); a server without a catalogue is queried as it is.
    Where the catalogue names a graph group for them (Virtuoso) and `graph_group` (default: the environment's
    HPCKG_STORE_GRAPH_GROUP) asks for it, the default graph is that one IRI: Virtuoso answers per-entity queries
    that list hundreds of graphs as the default graph many times slower, but some aggregates slower with the
    group (hpckg.servers.graph_group_wanted).
    """

    def __init__(self, endpoint: str, *, update_endpoint: str | None = None, graph_store: str | None = None,
                 credentials: tuple[str, str] | None = None, auth: str | None = None, timeout: float = 120.0,
                 graph_group: bool | None = None):
        from hpckg.servers import graph_group_wanted, profile_for

        self.endpoint = endpoint
        self.profile = profile_for(endpoint)
        update_default, store_default = self.profile.endpoints(endpoint)
        self.update_endpoint = update_endpoint or update_default
        self.graph_store = graph_store or store_default
        self.credentials = credentials
        self.auth = auth or (self.profile.auth if credentials else "none")
        self.timeout = timeout
        self.path = None
        self._live: list[str] | None = None
        self._group: str | None = None
        self.graph_group = graph_group_wanted() if graph_group is None else graph_group
        self._catalogued = False

    @property
    def location(self) -> str:
        return self.endpoint

    def _wrapper(self, url: str, text: str, *, update: bool = False, authenticated: bool = False):
        """A SPARQLWrapper client for one request to `url` (the SPARQL 1.1 Protocol, POSTed URL-encoded),
        with the store's credentials when it is an update or `authenticated`."""
        from SPARQLWrapper import BASIC, DIGEST, POST, SPARQLWrapper

        wrapper = SPARQLWrapper(url, updateEndpoint=url)
        wrapper.setMethod(POST)
        wrapper.setTimeout(int(self.timeout))
        wrapper.setOnlyConneg(True)  # ask by Accept header only, as the protocol says; no format= parameter
        wrapper.setQuery(text)
        if (update or authenticated) and self.auth != "none" and self.credentials:
            wrapper.setHTTPAuth(DIGEST if self.auth == "digest" else BASIC)
            wrapper.setCredentials(*self.credentials)
        if not update:
            # One media type per query form: offered both, Virtuoso answers SELECT in N-Triples, CONSTRUCT as
            # a table of ?s ?p ?o.
            graph = query_form(text) in ("CONSTRUCT", "DESCRIBE")
            wrapper.addCustomHttpHeader("Accept", "application/n-triples" if graph
                                        else "application/sparql-results+json")
        return wrapper

    def _send(self, wrapper, url: str) -> bytes:
        import http.client

        from SPARQLWrapper.SPARQLExceptions import QueryBadFormed, SPARQLWrapperException, Unauthorized

        # Virtuoso echoes each graph of the dataset as a response header (X-SPARQL-default-graph), and a
        # build has hundreds of graphs; urllib (under SPARQLWrapper) refuses a response with more than 100.
        http.client._MAXHEADERS = max(http.client._MAXHEADERS, 100_000)  # type: ignore[attr-defined]

        try:
            return wrapper.query().response.read()
        except QueryBadFormed as error:
            raise QuerySyntaxError(f"the SPARQL server rejected the request: {_server_said(error)}") from None
        except Unauthorized:
            raise StoreError(f"POST {url} failed: HTTP 401 unauthorised{CREDENTIALS_HINT}") from None
        except SPARQLWrapperException as error:
            raise StoreError(f"POST {url} failed: {_server_said(error)}") from None
        except urllib.error.HTTPError as error:
            raise StoreError(f"POST {url} failed: HTTP {error.code} {error.reason}"
                             + (CREDENTIALS_HINT if error.code == 401 else "")) from None
        except (urllib.error.URLError, OSError) as error:
            raise StoreError(f"cannot reach the SPARQL server at {url}: {error}") from None

    def live_graphs(self) -> list[str] | None:
        """The named graphs of the build this reader sees (read from the catalogue graph once): none while a
        first build is loading, and None when the server holds no catalogue (a dataset hpckg did not build)."""
        if self._live is None:
            rows = self._select(f"SELECT ?p ?g WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> ?p ?g "
                                f"VALUES ?p {{ <{SD_NAMED_GRAPH}> <{STAGED}> <{GRAPH_GROUP}> }} }} }}",
                                named_graphs=[CATALOGUE_GRAPH])
            found = [(row["p"].value, row["g"].value) for row in rows]
            self._live = sorted(g for p, g in found if p == SD_NAMED_GRAPH)
            self._group = next((g for p, g in found if p == GRAPH_GROUP), None) if self._live else None
            self._catalogued = bool(found)
        return self._live if self._catalogued else None

    def default_graph(self) -> list[str] | None:
        """The default graph of a query that names none: the graph group standing for the build's graphs
        (when the reader asks for it), else their list (NO_GRAPH while a first build loads: no graph named
        would mean every graph on the server), else None (no catalogue: the server's own default graph)."""
        live = self.live_graphs()
        if live is None:
            return None
        return [self._group] if self._group and self.graph_group else live or [NO_GRAPH]

    def follow(self) -> None:
        """Read the catalogue of live graphs again on the next query (to see a build published since)."""
        self._live = None

    def generation(self) -> int:
        """The generation number of the build the server holds now (0: none), read on every call."""
        rows = list(self._select(f"SELECT ?n WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> "
                                 f"<{GENERATION}> ?n }} }}", named_graphs=[CATALOGUE_GRAPH]))
        return max((int(row["n"].value) for row in rows), default=0)

    def generation_id(self) -> str:
        """The build on the server (GraphStore.generation_id): the query URL and the generation number,
        <endpoint>#<n>, read from the catalogue on every call (like generation()), so after a switch it names
        the new build even while this reader's queries still name the graphs it read before (see follow)."""
        return f"{self.endpoint}#{self.generation()}"

    def _select(self, sparql: str, *, default_graph: list[str] | None = None,
                named_graphs: list[str] | None = None, authenticated: bool = False) -> QueryResult:
        url = self.update_endpoint if authenticated else self.endpoint
        wrapper = self._wrapper(url, sparql, authenticated=authenticated)
        for graph in default_graph or []:
            wrapper.addParameter("default-graph-uri", graph)
        for graph in named_graphs or []:
            wrapper.addParameter("named-graph-uri", graph)
        data = self._send(wrapper, url)
        if data.lstrip().startswith(b"{"):
            if b'"bnode"' in data or b'"lang"' in data or b'"__ASK_RETVAL"' in data:
                data = _standard_json(data)
            return ox.parse_query_results(data, format=ox.QueryResultsFormat.JSON)
        memory = ox.Store()
        memory.extend(ox.parse(data, format=ox.RdfFormat.N_TRIPLES))
        return memory.query("CONSTRUCT WHERE { ?s ?p ?o }")

    def query(self, sparql: str, *, union: bool = True, prefixes: bool = True,
              default_graph: list[str] | None = None, named_graphs: list[str] | None = None
              ) -> QueryResult:
        """Run a query on the server. The dataset is the build's graphs: their union as the default graph
        (union=False: an empty default graph, as the build writes none) and each as a named graph, unless
        `default_graph` or `named_graphs` say otherwise."""
        live = self.live_graphs()
        if live is not None:
            # no graph named would mean every graph on the server: a catalogue with no build yet names NO_GRAPH
            if default_graph is None and union:
                default_graph = self.default_graph()
            if named_graphs is None:
                named_graphs = live or [NO_GRAPH]
                if default_graph is None:  # union=False: the default graph is empty, not the whole server
                    default_graph = [NO_GRAPH]
        return self._select(self.request_text(sparql, prefixes=prefixes), default_graph=default_graph,
                            named_graphs=named_graphs)

    def request_text(self, sparql: str, *, prefixes: bool = True) -> str:
        """The text sent for `sparql`: the project's prefixes first (unless `prefixes` is False), and before
        them the server's switch for joining in the written order when the query's header asks for it."""
        from hpckg.querytext import asks_written_order

        text = sparql_prefixes() + sparql if prefixes else sparql
        if self.profile.written_order and asks_written_order(sparql):
            text = f"{self.profile.written_order}\n{text}"
        return text

    def update(self, sparql: str, *, base_iri: str | None = None) -> None:
        # The protocol has no base IRI parameter: a BASE line, from an IRI Oxigraph's parser accepted.
        base = f"BASE <{ox.NamedNode(base_iri).value}>\n" if base_iri else ""
        self._send(self._wrapper(self.update_endpoint, base + sparql_prefixes() + sparql, update=True),
                   self.update_endpoint)
        self._live = None

    def call(self, sparql: str) -> QueryResult:
        """Run a query as the store's user on the update endpoint: for a server whose administration is
        reached through functions a query calls (Virtuoso's graph groups, hpckg.remotebuild)."""
        return self._select(sparql, authenticated=True)

    def _graph_store(self, graph: str | None, payload: bytes) -> None:
        """POST triples into a graph with the Graph Store HTTP Protocol."""
        import httpx

        params = {"graph": graph} if graph else {"default": ""}
        auth: httpx.Auth | None = None
        if self.credentials and self.auth == "digest":
            auth = httpx.DigestAuth(*self.credentials)
        elif self.credentials and self.auth == "basic":
            auth = httpx.BasicAuth(*self.credentials)
        try:
            response = httpx.post(self.graph_store, params=params, content=payload, timeout=self.timeout,
                                  headers={"Content-Type": "application/n-triples"}, auth=auth)
        except httpx.HTTPError as error:
            raise StoreError(f"cannot reach the SPARQL server at {self.graph_store}: {error}") from None
        if response.is_error:
            hint = CREDENTIALS_HINT if response.status_code == 401 else ""
            raise StoreError(f"POST {response.request.url} failed: HTTP {response.status_code} "
                             f"{response.text[:500]}{hint}")

    def load_quads(self, quads: Iterable[ox.Quad], *, graph: str | None = None) -> int:
        quads = list(quads)
        by_graph: dict[str | None, list[ox.Triple]] = {}
        for q in quads:
            name = graph or (q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else None)
            by_graph.setdefault(name, []).append(q.triple)
        for name, triples in by_graph.items():
            # A blank node label means one node only within one request: a graph that has any goes whole.
            step = len(triples) if any(_has_blank_node(t) for t in triples) else GRAPH_STORE_BATCH
            for start in range(0, len(triples), max(step, 1)):
                batch = triples[start:start + step]
                self._graph_store(name, ox.serialize(batch, format=ox.RdfFormat.N_TRIPLES))
        return len(quads)

    def load(self, data: bytes | str, *, format: RdfFormatInfo, graph: str | None = None,
             path: str = "<input>", base_iri: str | None = None) -> int:
        return self.load_quads(parse_rdf(data, format=format, path=path, base_iri=base_iri), graph=graph)

    def drop_graph(self, graph: str) -> None:
        self.update(f"DROP SILENT GRAPH <{graph}>")

    def named_graphs(self) -> list[str]:
        """The build's named graphs (the catalogue's list), else every graph the server names."""
        live = self.live_graphs()
        if live is not None:
            return list(live)
        return self.server_graphs()

    def server_graphs(self) -> list[str]:
        """Every named graph on the server, whoever wrote it (the server's own system graphs too)."""
        return sorted(row["g"].value for row in self._select("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"))

    def quads(self, *, graph: str | None = None) -> Iterator[ox.Quad]:
        where = f"GRAPH <{graph}> {{ ?s ?p ?o }} BIND(<{graph}> AS ?g)" if graph else "GRAPH ?g { ?s ?p ?o }"
        for row in self.query(f"SELECT ?s ?p ?o ?g WHERE {{ {where} }}", union=False):
            yield ox.Quad(row["s"], row["p"], row["o"], row["g"])

    def dump(self, output: io.BufferedIOBase | str | Path, *, format: RdfFormatInfo,
             graph: str | None = None) -> None:
        quads = list(self.quads(graph=graph))
        if not format.is_quad:
            quads = [q.triple for q in quads]
        data = ox.serialize(quads, format=format.oxigraph)
        if isinstance(output, str | Path):
            Path(output).write_bytes(data)
        else:
            output.write(data)

    def triple_count(self) -> int:
        result = self.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }", union=False)
        return int(next(iter(result))["n"].value)

    def clear(self) -> None:
        self.update("CLEAR ALL")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


_PROLOGUE = re.compile(r"\s*(?:#[^\n]*\n|PREFIX\s+[\w.-]*:\s*<[^>]*>|BASE\s*<[^>]*>)", re.I)


def query_form(text: str) -> str:
    """SELECT, CONSTRUCT, DESCRIBE or ASK: the first keyword after the prologue (comments, PREFIX, BASE)."""
    position = 0
    while match := _PROLOGUE.match(text, position):
        if match.end() == position:
            break
        position = match.end()
    word = re.match(r"\s*([A-Za-z]+)", text[position:])
    return word.group(1).upper() if word else ""


def _standard_json(data: bytes) -> bytes:
    """SPARQL JSON results as the standard writes them, from what Virtuoso 7 sends: blank node labels RDF
    allows (Virtuoso's `nodeID://b10006` are refused by pyoxigraph; a label stays one node within the
    answer, as the protocol promises, no more), `xml:lang` for its `lang`, and an ASK answer as a boolean
    (Virtuoso answers ASK as a table of one variable, __ASK_RETVAL, with one row when true)."""
    import json

    results = json.loads(data)
    if results.get("head", {}).get("vars") == ["__ASK_RETVAL"]:
        rows = results.get("results", {}).get("bindings", [])
        true = bool(rows) and rows[0].get("__ASK_RETVAL", {}).get("value") not in ("0", "false")
        return json.dumps({"head": {}, "boolean": true}).encode("utf-8")
    for row in results.get("results", {}).get("bindings", []):
        for term in row.values():
            if term.get("type") == "bnode":
                term["value"] = re.sub(r"[^A-Za-z0-9_]", "_", term["value"])
            if "lang" in term:  # an older spelling of xml:lang
                term["xml:lang"] = term.pop("lang")
    return json.dumps(results).encode("utf-8")


def _has_blank_node(triple: ox.Triple) -> bool:
    return isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode)


def _server_said(error: Exception) -> str:
    """What the server answered, without SPARQLWrapper's boilerplate around it."""
    message = str(error)
    return message.split("Response:\n", 1)[-1].strip()[:500] or message


def open_store(location: str | Path | None, *, read_only: bool = False,
               credentials_file: Path | None = None) -> AnyStore:
    """Open the store at `location`: a folder (embedded Oxigraph), an http(s) SPARQL endpoint (with the
    credentials of remote_store), or None for a fresh in-memory store."""
    from hpckg.project import is_server_url

    if is_server_url(location):
        return remote_store(location, credentials_file)
    return Store(location, read_only=read_only)


def remote_store(url: str, credentials_file: Path | None = None) -> RemoteStore:
    """A RemoteStore at the query URL `url`, with the credentials from the environment or from
    `credentials_file`, the file the project's configuration names (Project.store_credentials;
    hpckg.servers.credentials)."""
    from hpckg.servers import credentials

    return RemoteStore(url, credentials=credentials(credentials_file))


def replace_directory(new: Path, target: Path) -> None:
    """Make the store path `target` point at the complete generation folder `new` in one atomic step: a
    fresh symlink is made beside it and renamed over it (rename(2) replaces the old pointer atomically), so
    a reader finds either the old generation or the new one, never neither. `target` must be a pointer
    already (or absent): migrate_old_layout turns an old-layout folder into one first."""
    target, new = Path(target), Path(new)
    link = target.with_name(target.name + ".next")
    try:
        if os.path.lexists(link):
            link.unlink()
        os.symlink(os.path.relpath(new, target.parent), link)
        os.replace(link, target)
        _fsync_directory(target.parent)
    except OSError as error:
        raise StoreError(f"cannot point the store {target} at {new}: {error}") from None


# ---- the writer's side of the layout: one build at a time, generations, migration ----------------------

LOCK_SUFFIX = ".lock"
PARTIAL_SUFFIX = ".partial"  # a generation being written; never pointed at, removed by the next build
PAUSE_VARIABLE = "HPCKG_TEST_PAUSE_AT"  # tests: hold a build at a named point so it can be killed there


def pause_point(name: str) -> None:
    """For the fault tests only: when HPCKG_TEST_PAUSE_AT names this point, say so on stderr and sleep until
    killed."""
    if os.environ.get(PAUSE_VARIABLE) == name:
        print(f"hpckg build: paused at {name} ({PAUSE_VARIABLE})", file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)


@contextmanager
def build_lock(target: Path, *, wait: bool = True, waiting: Callable[[str], None] | None = None
               ) -> Iterator[Path]:
    """Hold the exclusive lock of the store `target` (an flock on <store>.lock, which the kernel releases
    when the process ends however it ends). The holder writes its pid and start time into the file; a
    second build reads them and, once, tells `waiting` whom it waits for, or raises StoreError with them
    when `wait` is False. The lock file is never removed: removing it would let two builds lock two files."""
    target = Path(target)
    lock_path = target.with_name(target.name + LOCK_SUFFIX)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StoreError(f"cannot create the build lock {lock_path}: {error.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            if not wait:
                raise StoreError(f"another build of {target} is running ({holder}, holding {lock_path}); "
                                 "try again when it has finished, or leave out --no-wait to wait for it"
                                 ) from None
            if waiting:
                waiting(f"waiting for the build of {target} by {holder} to finish (it holds {lock_path})")
            fcntl.flock(fd, fcntl.LOCK_EX)
        started = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {started} on {socket.gethostname()}\n".encode(), 0)
        yield lock_path
    finally:
        os.close(fd)  # releases the lock


def _lock_holder(fd: int, attempts: int = 20) -> str:
    """What the lock holder wrote about itself; it writes just after locking, so an empty file is read
    again briefly before giving up."""
    for _ in range(attempts):
        said = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        if said:
            return said
        time.sleep(0.05)
    return "a process that has not said which"


def new_generation(target: Path) -> Path:
    """A fresh folder name for the next generation, <n>-<timestamp>.partial, numbered after every
    generation there (finished or not). Call with the build lock held."""
    folder = generations_dir(target)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return folder / f"{_next_number(folder):06d}-{stamp}{PARTIAL_SUFFIX}"


def _next_number(folder: Path) -> int:
    numbers = [int(p.name.split("-", 1)[0]) for p in folder.iterdir() if p.name.split("-", 1)[0].isdigit()]
    return max(numbers, default=0) + 1


def finish_generation(partial: Path) -> Path:
    """Make a written, closed generation durable and give it its final name (still not pointed at)."""
    for file in partial.iterdir():
        if file.is_file():
            with file.open("rb") as handle:
                os.fsync(handle.fileno())
    final = partial.with_name(partial.name.removesuffix(PARTIAL_SUFFIX))
    partial.rename(final)
    _fsync_directory(final.parent)
    return final


def discard_partial_generations(target: Path) -> None:
    """Remove what builds killed part-way left behind: half-written generations, a half-made pointer and
    the staging folder of earlier hpckg versions. Call with the build lock held."""
    folder = generations_dir(target)
    if folder.is_dir():
        for child in folder.iterdir():
            if child.name.endswith(PARTIAL_SUFFIX):
                shutil.rmtree(child, ignore_errors=True)
    link = target.with_name(target.name + ".next")
    if os.path.islink(link):
        link.unlink()
    old_staging = target.with_name(target.name + ".building")
    if old_staging.is_dir() and not old_staging.is_symlink():
        shutil.rmtree(old_staging, ignore_errors=True)


def migrate_old_layout(target: Path, *, pause: Callable[[str], None] = pause_point) -> None:
    """Turn a store of earlier versions (the Oxigraph folder itself at `target`) into generation 0 with a
    pointer to it. The folder is moved while a pointer to its new place waits at <store>.migrating, which
    readers follow while `target` is missing, so a kill between the two renames loses nothing; a killed
    migration is finished here by the next build. Call with the build lock held."""
    target = Path(target)
    pending = target.with_name(target.name + MIGRATING_SUFFIX)
    folder = generations_dir(target)
    if not os.path.lexists(target):
        old = target.with_name(target.name + ".old")  # earlier versions, killed between their two renames
        if os.path.islink(pending):
            os.replace(pending, target)
        elif (old / "CURRENT").is_file() and not old.is_symlink():
            target = old
        else:
            return
    if target.is_symlink() or not (target / "CURRENT").is_file():
        return
    folder.mkdir(parents=True, exist_ok=True)
    moved = folder / "000000-migrated"
    if os.path.lexists(moved):  # an old-layout folder put back after an earlier migration
        moved = folder / f"{_next_number(folder):06d}-migrated"
    if os.path.lexists(pending):
        pending.unlink()
    os.symlink(os.path.relpath(moved, pending.parent), pending)
    target.rename(moved)
    pause("after-migrate-move")
    os.replace(pending, pending.with_name(pending.name.removesuffix(MIGRATING_SUFFIX)))
    _fsync_directory(pending.parent)


def refuse_foreign_folder(target: Path) -> None:
    """A build may replace the store path only when it is a pointer, absent, or an empty folder (removed
    here). Earlier versions silently deleted any folder there; a folder that is not a store is refused."""
    target = Path(target)
    if target.is_dir() and not target.is_symlink():
        try:
            target.rmdir()
        except OSError:
            raise StoreError(f"{target} is a folder that does not hold an hpckg store; hpckg build will not "
                             "replace it: move it away or pass another --store") from None


def prune_generations(target: Path, keep: Iterable[Path]) -> None:
    """Remove every generation but those in `keep` (the current one and the one before it, which a reader
    may still have open). Call with the build lock held, after the pointer switched."""
    folder = generations_dir(target)
    kept = {Path(p).name for p in keep if p is not None}
    for child in folder.iterdir():
        if child.name not in kept and child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)


def _fsync_directory(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
