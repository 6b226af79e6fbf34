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

import pyoxigraph as ox

from hpckg.errors import QuerySyntaxError, RdfSyntaxError, StoreError
from hpckg.formats import RdfFormatInfo, rdf_format_for_path
from hpckg.namespaces import sparql_prefixes

QueryResult = ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples


def require_built(path: Path) -> Path:
    """The one check that a folder holds a built store, with the one message that says what to do."""
    if not (Path(path) / "CURRENT").exists():
        raise StoreError(f"no hpckg store at {path}; run `hpckg build` first (or pass --store PATH)")
    return Path(path)


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


def parse_file(path: Path, *, format: RdfFormatInfo | None = None,
               base_iri: str | None = None) -> list[ox.Quad]:
    """Parse an RDF file from disk (format from its extension unless given)."""
    path = Path(path)
    fmt = format or rdf_format_for_path(path.name)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RdfSyntaxError(str(path), None, None, f"cannot read file: {error.strerror}") from None
    return parse_rdf(data, format=fmt, path=str(path), base_iri=base_iri)


def query_error(error: SyntaxError, prepended_lines: int = 0) -> QuerySyntaxError:
    """A QuerySyntaxError saying where the query broke, in the user's own line numbers (the PREFIX lines
    hpckg prepends are subtracted) and without the parser's full list of expected tokens."""
    message = str(error)
    match = re.match(r"error at (\d+):(\d+): (.*)", message, re.S)
    if not match:
        return QuerySyntaxError(f"SPARQL syntax error: {message}")
    line, column, detail = int(match[1]) - prepended_lines, int(match[2]), match[3]
    detail = " ".join(detail.split())
    if len(detail) > 160:
        detail = detail[:157] + "..."
    error_out = QuerySyntaxError(f"SPARQL syntax error at line {line}, column {column}: {detail}")
    error_out.line, error_out.column = line, column  # type: ignore[attr-defined]
    return error_out


_PREFIX_LINES = sparql_prefixes().count("\n")


class Store:
    """The embedded Oxigraph store, on disk at `path` or in memory when `path` is None."""

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False):
        self.path = Path(path) if path is not None else None
        try:
            if self.path is None:
                self._store = ox.Store()
            elif read_only:
                require_built(self.path)
                self._store = ox.Store.read_only(str(self.path))
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
        """Add quads (into `graph` when given, replacing their own graph); returns how many."""
        target = ox.NamedNode(graph) if graph else None
        batch = [ox.Quad(q.subject, q.predicate, q.object, target or q.graph_name) for q in quads]
        self._store.extend(batch)
        return len(batch)

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
            raise query_error(error, _PREFIX_LINES if prefixes else 0) from None

    def update(self, sparql: str) -> None:
        try:
            self._store.update(sparql_prefixes() + sparql)
        except SyntaxError as error:
            raise query_error(error, _PREFIX_LINES) from None

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


class RemoteStore:
    """A SPARQL 1.1 server (Oxigraph server, Fuseki, GraphDB, Virtuoso...) reached over the standard
    protocols: SPARQL 1.1 Protocol for queries and updates, Graph Store HTTP Protocol for loading.

    `endpoint` is the query URL; `update_endpoint` and `graph_store` default to Oxigraph server's layout
    (/update and /store beside /query). The server should expose the union of named graphs as its default
    graph (oxigraph serve --union-default-graph, Fuseki's tdb2:unionDefaultGraph).
    """

    def __init__(self, endpoint: str, *, update_endpoint: str | None = None, graph_store: str | None = None,
                 timeout: float = 60.0):
        self.endpoint = endpoint
        root = endpoint.rsplit("/", 1)[0]
        self.update_endpoint = update_endpoint or root + "/update"
        self.graph_store = graph_store or root + "/store"
        self.timeout = timeout
        self.path = None

    @property
    def location(self) -> str:
        return self.endpoint

    def _wrapper(self, url: str, text: str, *, update: bool = False):
        """A SPARQLWrapper client for one request (the SPARQL 1.1 Protocol, POSTed URL-encoded)."""
        from SPARQLWrapper import POST, SPARQLWrapper

        wrapper = SPARQLWrapper(self.endpoint, updateEndpoint=self.update_endpoint)
        wrapper.setMethod(POST)
        wrapper.setTimeout(int(self.timeout))
        wrapper.setOnlyConneg(True)  # ask by Accept header only, as the protocol says; no format= parameter
        wrapper.setQuery(text)
        if not update:
            wrapper.addCustomHttpHeader("Accept", "application/sparql-results+json, application/n-triples;q=0.9")
        return wrapper

    def _send(self, wrapper, url: str) -> bytes:
        from SPARQLWrapper.SPARQLExceptions import QueryBadFormed, SPARQLWrapperException

        try:
            return wrapper.query().response.read()
        except QueryBadFormed as error:
            raise QuerySyntaxError(f"the SPARQL server rejected the request: {_server_said(error)}") from None
        except SPARQLWrapperException as error:
            raise StoreError(f"POST {url} failed: {_server_said(error)}") from None
        except (urllib.error.URLError, OSError) as error:
            raise StoreError(f"cannot reach the SPARQL server at {url}: {error}") from None

    def query(self, sparql: str, *, union: bool = True, prefixes: bool = True,
              default_graph: list[str] | None = None, named_graphs: list[str] | None = None
              ) -> QueryResult:
        wrapper = self._wrapper(self.endpoint, sparql_prefixes() + sparql if prefixes else sparql)
        for graph in default_graph or []:
            wrapper.addParameter("default-graph-uri", graph)
        for graph in named_graphs or []:
            wrapper.addParameter("named-graph-uri", graph)
        data = self._send(wrapper, self.endpoint)
        if data.lstrip().startswith(b"{"):
            return ox.parse_query_results(data, format=ox.QueryResultsFormat.JSON)
        memory = ox.Store()
        memory.extend(ox.parse(data, format=ox.RdfFormat.N_TRIPLES))
        return memory.query("CONSTRUCT WHERE { ?s ?p ?o }")

    def update(self, sparql: str) -> None:
        self._send(self._wrapper(self.update_endpoint, sparql_prefixes() + sparql, update=True),
                   self.update_endpoint)

    def _graph_store(self, graph: str | None, payload: bytes) -> None:
        """POST triples into a graph with the Graph Store HTTP Protocol."""
        import httpx

        params = {"graph": graph} if graph else {"default": ""}
        try:
            response = httpx.post(self.graph_store, params=params, content=payload, timeout=self.timeout,
                                  headers={"Content-Type": "application/n-triples"})
        except httpx.HTTPError as error:
            raise StoreError(f"cannot reach the SPARQL server at {self.graph_store}: {error}") from None
        if response.is_error:
            raise StoreError(f"POST {response.request.url} failed: HTTP {response.status_code} "
                             f"{response.text[:500]}")

    def load_quads(self, quads: Iterable[ox.Quad], *, graph: str | None = None) -> int:
        quads = list(quads)
        by_graph: dict[str | None, list[ox.Triple]] = {}
        for q in quads:
            name = graph or (q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else None)
            by_graph.setdefault(name, []).append(q.triple)
        for name, triples in by_graph.items():
            self._graph_store(name, ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES))
        return len(quads)

    def load(self, data: bytes | str, *, format: RdfFormatInfo, graph: str | None = None,
             path: str = "<input>", base_iri: str | None = None) -> int:
        return self.load_quads(parse_rdf(data, format=format, path=path, base_iri=base_iri), graph=graph)

    def drop_graph(self, graph: str) -> None:
        self.update(f"DROP SILENT GRAPH <{graph}>")

    def named_graphs(self) -> list[str]:
        result = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { } }", union=False)
        return sorted(row["g"].value for row in result)

    def quads(self, *, graph: str | None = None) -> Iterator[ox.Quad]:
        where = f"GRAPH <{graph}> {{ ?s ?p ?o }} BIND(<{graph}> AS ?g)" if graph else "GRAPH ?g { ?s ?p ?o }"
        for row in self.query(f"SELECT ?s ?p ?o ?g WHERE {{ {where} }}", union=False):
            yield ox.Quad(row["s"], row["p"], row["o"], row["g"])

    def dump(self, output, *, format: RdfFormatInfo, graph: str | None = None) -> None:
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


AnyStore = Store | RemoteStore


def _server_said(error: Exception) -> str:
    """What the server answered, without SPARQLWrapper's boilerplate around it."""
    message = str(error)
    return message.split("Response:\n", 1)[-1].strip()[:500] or message


def open_store(location: str | Path | None, *, read_only: bool = False) -> AnyStore:
    """Open the store at `location`: a folder (embedded Oxigraph), an http(s) SPARQL endpoint, or None
    for a fresh in-memory store."""
    if isinstance(location, str) and location.startswith(("http://", "https://")):
        return RemoteStore(location)
    return Store(location, read_only=read_only)


def replace_directory(new: Path, target: Path) -> None:
    """Swap a freshly built store folder into place. The old store is moved aside first and removed only
    after the new one is in place, so a crash leaves either the old or the new store, never neither."""
    target = Path(target)
    old = target.with_name(target.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.rename(old)
    try:
        new.rename(target)
    except OSError as error:
        if old.exists():
            old.rename(target)
        raise StoreError(f"cannot move the new store into {target}: {error}") from None
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


# ---- the writer's side: one build at a time ----------------------------------------------------------

LOCK_SUFFIX = ".lock"
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
