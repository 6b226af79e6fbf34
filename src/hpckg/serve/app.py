"""The HTTP server: routing, the SPARQL 1.1 Protocol, linked data, CORS, rate limits and errors.

Standard library only (http.server.ThreadingHTTPServer). Queries from clients run in a WorkerPool of
processes under a time limit and a result cap; the fixed lookups behind HTML pages run on the server's own
read-only store handle. Every error is answered in one JSON shape,
{"error": {"status": 400, "code": "query-syntax", "message": "...", "line": 1, "column": 25}},
or as an HTML page when the client is a browser.
"""

from __future__ import annotations

import hmac
import html
import json
import math
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hpckg.errors import HpckgError
from hpckg.formats import RDF_FORMATS, rdf_format_for_media_type
from hpckg.namespaces import BASE, ENTITY_KINDS
from hpckg.query import CannedQuery, canned_queries
from hpckg.serve import urls
from hpckg.serve.entities import describe, summary
from hpckg.serve.sparql import (
    QueryRequest,
    accepted,
    is_update,
    negotiate,
    serialize_triples,
    uses_service,
    wants_html,
)
from hpckg.serve.views import Html, Views, json_dumps
from hpckg.serve.void import service_description, statistics, void_description
from hpckg.serve.workers import Job, PoolBusy, QueryTimeout, WorkerFailed, WorkerPool
from hpckg.store import Store

MAX_BODY = 1 << 20  # 1 MiB of query text is plenty


class HttpError(Exception):
    """An error answered to the client: status, a short code and a message saying what to do."""

    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
                 extra: dict | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}
        self.extra = extra or {}


@dataclass
class Settings:
    store_path: Path
    timeout: float = 30.0
    max_results: int = 10_000
    update_token: str | None = None
    allow_service: bool = False
    workers: int = 2
    rate_limit: float = 60.0  # seconds of query time per client per minute; 0 turns the limit off
    base_iri: str = BASE


class RateLimiter:
    """Per-client budget of query seconds, refilled continuously at rate_limit seconds per minute."""

    def __init__(self, seconds_per_minute: float):
        self.capacity = seconds_per_minute
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _level(self, client: str, now: float) -> float:
        level, then = self._buckets.get(client, (self.capacity, now))
        return min(self.capacity, level + (now - then) * self.capacity / 60)

    def retry_after(self, client: str) -> int | None:
        """Seconds until the client may query again, or None when it may query now."""
        if self.capacity <= 0:
            return None
        now = time.monotonic()
        with self._lock:
            level = self._level(client, now)
        return None if level > 0 else max(1, math.ceil(-level * 60 / self.capacity))

    def charge(self, client: str, seconds: float) -> None:
        if self.capacity <= 0:
            return
        now = time.monotonic()
        with self._lock:
            self._buckets[client] = (self._level(client, now) - seconds, now)


class App:
    """Everything a request handler needs: settings, the worker pool, the page store and views."""

    def __init__(self, settings: Settings):
        self.settings = settings
        writable = settings.update_token is not None
        self.store = Store(settings.store_path, read_only=not writable)
        self.views = Views(self.store, settings.base_iri)
        self.pool = WorkerPool(settings.store_path, size=settings.workers)
        self.limiter = RateLimiter(settings.rate_limit)
        self.update_lock = threading.Lock()
        self.stats = statistics(self.store)

    def canned(self) -> dict[str, CannedQuery]:
        return {q.name: q for q in canned_queries()}

    def close(self) -> None:
        self.pool.close()
        try:
            self.store.close()
        except (OSError, RuntimeError):
            pass  # pyoxigraph refuses to flush a read-only store; there is nothing to write anyway

    def run(self, client: str, job: Job):
        """Run a query job for a client under the rate limit, the time limit and the result cap."""
        retry = self.limiter.retry_after(client)
        if retry is not None:
            raise HttpError(429, "rate-limited",
                            f"this client used its {self.settings.rate_limit:g} s of query time per minute; "
                            f"retry in {retry} s", headers={"Retry-After": str(retry)})
        if uses_service(job.query) and not self.settings.allow_service:
            raise HttpError(403, "service-refused",
                            "federated queries (SERVICE) are disabled on this server, which makes no outbound "
                            "requests; run the query against the remote endpoint, or start hpckg serve with "
                            "--allow-service")
        job.max_results = self.settings.max_results
        started = time.monotonic()
        try:
            answer = self.pool.run(job, timeout=self.settings.timeout)
        except QueryTimeout as error:
            raise HttpError(503, "timeout", str(error), headers={"Retry-After": "1"}) from None
        except PoolBusy as error:
            raise HttpError(503, "busy", f"{error}; try again shortly", headers={"Retry-After": "1"}) from None
        except WorkerFailed as error:
            raise HttpError(500, "worker-failed", str(error)) from None
        finally:
            self.limiter.charge(client, time.monotonic() - started)
        if answer.status != 200:
            raise HttpError(answer.status, answer.code, answer.message, extra=position(answer.message))
        return answer

    def update(self, request: QueryRequest, authorization: str | None) -> None:
        token = self.settings.update_token
        if token is None:
            raise HttpError(403, "read-only",
                            "this SPARQL endpoint is read-only: SPARQL Update is refused. Edit the Turtle "
                            "under data/ttl and run `hpckg build`, or start hpckg serve with "
                            "--allow-update-token TOKEN and send Authorization: Bearer TOKEN")
        given = (authorization or "").removeprefix("Bearer ").strip()
        if not authorization or not hmac.compare_digest(given.encode(), token.encode()):
            raise HttpError(403, "update-forbidden",
                            "SPARQL Update needs the header Authorization: Bearer <the server's update token>")
        if uses_service(request.update or ""):
            raise HttpError(403, "service-refused", "SERVICE is not allowed in updates")
        with self.update_lock:
            try:
                self.store.update(request.update or "")
                self.store.flush()
            except HpckgError as error:
                raise HttpError(400, "update-syntax", str(error), extra=position(str(error))) from None
            self.pool.generation += 1
            self.stats = statistics(self.store)


def position(message: str) -> dict:
    """{"line": n, "column": m} from a parser message like 'error at 3:17: ...'."""
    match = re.search(r"at (\d+):(\d+)", message)
    return {"line": int(match.group(1)), "column": int(match.group(2))} if match else {}


class Handler(BaseHTTPRequestHandler):
    """One HTTP request. Routes are matched in route(); every path comes from urls.py."""

    server_version = "hpckg"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # keep-alive responses must not wait for delayed ACKs (40 ms)
    app: App  # set by make_server

    # ---- plumbing -----------------------------------------------------------------------------------

    def log_message(self, format: str, *args) -> None:  # quieter than the default: one line per request
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def send(self, status: int, body: bytes, media_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if media_type.startswith(("text/", "application/json", "application/sparql-results+json",
                                  "application/ld+json")) and "charset" not in media_type:
            media_type += "; charset=utf-8"
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers", "Link, Retry-After, Location")
        self.send_header("Vary", "Accept")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        # Headers and body in one write.
        self._headers_buffer.append(b"\r\n" + (body if self.command != "HEAD" else b""))
        self.flush_headers()

    def send_html(self, page: Html, status: int = 200) -> None:
        headers = {"Link": page.link_header()} if page.alternates else {}
        self.send(status, page.render().encode("utf-8"), "text/html", headers)

    def send_error_answer(self, error: HttpError) -> None:
        if wants_html(self.headers.get("Accept", "")):
            self.send_html(self.app.views.error(error.status, error.code, error.message), error.status)
            return
        document = {"error": {"status": error.status, "code": error.code, "message": error.message,
                              **error.extra}}
        self.send(error.status, json_dumps(document), "application/json", error.headers)

    def redirect(self, location: str, status: int = 303) -> None:
        self.send(status, b"", "text/plain", {"Location": location})

    @property
    def client(self) -> str:
        return self.client_address[0]

    def handle_one(self) -> None:
        try:
            self.route()
        except HttpError as error:
            self.send_error_answer(error)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as error:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            self.send_error_answer(HttpError(500, "internal", f"internal error: {error!r}"))

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = handle_one

    def do_OPTIONS(self) -> None:
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Accept, Authorization, Content-Type")
        self.send_header("Access-Control-Max-Age", "86400")
        self.send_header("Allow", "GET, HEAD, POST, OPTIONS")
        self.send_header("Content-Length", "0")
        self.end_headers()

    # ---- routing ------------------------------------------------------------------------------------

    def route(self) -> None:
        parsed = urllib.parse.urlsplit(self.path)
        path, params = parsed.path, urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        if path == urls.SPARQL:
            return self.sparql(params)
        if path == "/update":
            return self.sparql(params, update_only=True)
        if self.command not in ("GET", "HEAD"):
            raise HttpError(405, "method-not-allowed",
                            f"{self.command} is not allowed on {path}: this server is read-only; "
                            "use GET (or POST to /sparql)", headers={"Allow": "GET, HEAD, OPTIONS"})
        if path == urls.HOME:
            return self.send_html(self.app.views.home(self.app.stats, list(self.app.canned().values())))
        if path == urls.QUERY_EDITOR:
            return self.editor(params.get("query", [""])[0])
        if path == urls.VOID:
            return self.void()
        if path == urls.STORE:
            return self.graph_store(params)
        if path.startswith(urls.QUERIES + "/"):
            return self.canned(urllib.parse.unquote(path[len(urls.QUERIES) + 1:]))
        match = re.fullmatch(r"/(id|page)/([a-z]+)/([^/]+)", path)
        if match:
            return self.entity(match.group(1), match.group(2), urllib.parse.unquote(match.group(3)))
        raise HttpError(404, "not-found", f"nothing at {path}; see {urls.home()} for what this server offers")

    # ---- SPARQL protocol ----------------------------------------------------------------------------

    def read_request(self, params: dict[str, list[str]]) -> QueryRequest:
        request = QueryRequest(query=params.get("query", [None])[0], update=params.get("update", [None])[0],
                               default_graphs=params.get("default-graph-uri", []),
                               named_graphs=params.get("named-graph-uri", []))
        if self.command == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise HttpError(413, "too-large", f"the request body is larger than {MAX_BODY} bytes")
            body = self.rfile.read(length).decode("utf-8", "replace")
            media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if media == "application/sparql-query":
                request.query = body
            elif media == "application/sparql-update":
                request.update = body
            elif media == "application/x-www-form-urlencoded":
                form = urllib.parse.parse_qs(body, keep_blank_values=True)
                request.query = form.get("query", [request.query])[0]
                request.update = form.get("update", [request.update])[0]
                request.default_graphs += form.get("using-graph-uri", []) + form.get("default-graph-uri", [])
                request.named_graphs += form.get("using-named-graph-uri", []) + form.get("named-graph-uri", [])
            else:
                raise HttpError(415, "unsupported-media-type",
                                f"POST a query as application/sparql-query or application/x-www-form-urlencoded,"
                                f" not {media or 'no Content-Type'}")
        if request.query and request.update:
            raise HttpError(400, "query-and-update", "send either query or update, not both")
        if request.query is not None and is_update(request.query):
            request.update, request.query = request.query, None
        return request

    def sparql(self, params: dict[str, list[str]], *, update_only: bool = False) -> None:
        request = self.read_request(params)
        if request.update is not None:
            self.app.update(request, self.headers.get("Authorization"))
            return self.send(204 if not wants_html(self.headers.get("Accept", "")) else 200, b"", "text/plain")
        if update_only:
            raise HttpError(400, "missing-update", "POST an update as application/sparql-update or update=")
        fmt = (params.get("format") or params.get("output") or params.get("results") or [None])[0]
        accept = self.headers.get("Accept", "")
        if request.query is None:
            if wants_html(accept) and not fmt:
                return self.editor("")
            _, rdf = negotiate(accept, fmt)
            triples = service_description(self.absolute(urls.SPARQL), self.app.store, self.app.settings)
            return self.send(200, serialize_triples(triples, rdf), rdf.media_type)
        if not request.query.strip():
            raise HttpError(400, "missing-query", "the query parameter is empty")
        if wants_html(accept) and not fmt:
            return self.editor(request.query)
        results, rdf = negotiate(accept, fmt)
        answer = self.app.run(self.client, Job(request.query, results.name, rdf.name,
                                               tuple(request.default_graphs), tuple(request.named_graphs)))
        self.send(200, answer.body, answer.media_type)

    def absolute(self, path: str) -> str:
        return f"http://{self.headers.get('Host') or '127.0.0.1'}{path}"

    def editor(self, query: str) -> None:
        results, status = "", 200
        if query.strip():
            try:
                answer = self.app.run(self.client, Job(query, "json", "ttl"))
                results = (self.app.views.results(json.loads(answer.body)) if answer.form != "triples"
                           else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")
            except HttpError as error:
                results, status = error_box(error), error.status
        self.send_html(self.app.views.editor(query, results, list(self.app.canned().values())), status)

    def canned(self, ref: str) -> None:
        name, _, ext = ref.partition(".")
        query = self.app.canned().get(name)
        if query is None:
            raise HttpError(404, "unknown-query",
                            f"no canned query named {name!r}; available: {', '.join(self.app.canned())}")
        if ext:
            if ext not in ("csv", "json", "tsv", "xml"):
                raise HttpError(404, "unknown-format", f"{ref}: download a canned query as .csv or .json")
            answer = self.app.run(self.client, Job(query.text, ext, "ttl"))
            filename = f"{name}.{ext if answer.form != 'triples' else 'ttl'}"
            return self.send(200, answer.body, answer.media_type,
                             {"Content-Disposition": f'inline; filename="{filename}"'})
        try:
            answer = self.app.run(self.client, Job(query.text, "json", "ttl"))
            results = (self.app.views.results(json.loads(answer.body)) if answer.form != "triples"
                       else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")
        except HttpError as error:
            if error.status == 429:
                raise
            results = error_box(error)
        self.send_html(self.app.views.canned(query, results))

    # ---- data: graph store, VoID, entities ----------------------------------------------------------

    def rdf_format(self, params: dict[str, list[str]]):
        fmt = (params.get("format") or [None])[0]
        return negotiate(self.headers.get("Accept", ""), fmt)[1]

    def graph_store(self, params: dict[str, list[str]]) -> None:
        fmt = self.rdf_format(params)
        if "graph" in params:
            graph = params["graph"][0]
            if graph not in self.app.store.named_graphs():
                raise HttpError(404, "no-such-graph", f"there is no named graph <{graph}> in this store")
            triples = [q.triple for q in self.app.store.quads(graph=graph)]
        elif "default" in params:
            # The default graph is the union of all named graphs, as for queries.
            triples = list(dict.fromkeys(q.triple for q in self.app.store.quads()))
        else:
            raise HttpError(400, "missing-graph", "ask for ?graph=IRI or ?default")
        self.send(200, serialize_triples(triples, fmt), fmt.media_type)

    def void(self) -> None:
        fmt = self.rdf_format({})
        triples = void_description(self.app.store, self.absolute(urls.SPARQL),
                                   self.absolute(urls.graph_store()))
        self.send(200, serialize_triples(triples, fmt), fmt.media_type)

    def entity(self, route: str, kind: str, ref: str) -> None:
        slug, _, ext = ref.partition(".")
        if kind not in ENTITY_KINDS:
            raise HttpError(404, "unknown-kind", f"no entity kind {kind!r}; kinds: {', '.join(ENTITY_KINDS)}")
        iri = f"{self.app.settings.base_iri}id/{kind}/{slug}"
        accept = self.headers.get("Accept", "")
        if route == "page" or (not ext and wants_html(accept)):
            if route == "id":
                if not self.app.views.exists(iri):
                    raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
                return self.redirect(urls.page(kind, slug))
            jsonld = serialize_triples(describe(self.app.store, iri), RDF_FORMATS["jsonld"])
            page = self.app.views.entity(kind, slug, iri, jsonld)
            if page is None:
                raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
            return self.send_html(page)
        triples = describe(self.app.store, iri)
        if not triples:
            raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
        links = ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in (
            (urls.page(kind, slug), "text/html"),
            *((u, media_for_twin(s)) for s, u in urls.twins(kind, slug).items())))
        if ext == "json":
            return self.send(200, json_dumps(summary(self.app.store, iri, self.app.settings.base_iri)),
                             "application/json", {"Link": links})
        if ext:
            if ext not in urls.TWIN_SUFFIXES:
                raise HttpError(404, "unknown-format",
                                f"no .{ext} twin; available: {', '.join(urls.TWIN_SUFFIXES)}")
            fmt = RDF_FORMATS[urls.TWIN_SUFFIXES[ext]]
        else:
            fmt = next((f for f in map(rdf_format_for_media_type, accepted(accept)) if f), RDF_FORMATS["ttl"])
        self.send(200, serialize_triples(triples, fmt), fmt.media_type, {"Link": links})


def error_box(error: HttpError) -> str:
    return f'<div class="error"><p>{error.status}: {html.escape(error.code)}. {html.escape(error.message)}</p></div>'


def media_for_twin(suffix: str) -> str:
    name = urls.TWIN_SUFFIXES[suffix]
    return "application/json" if name == "json" else RDF_FORMATS[name].media_type


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    verbose = False


def make_server(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> tuple[Server, App]:
    """Open the store, start the query workers and bind the HTTP server (not yet serving)."""
    app = App(settings)
    handler = type("BoundHandler", (Handler,), {"app": app})
    try:
        server = Server((host, port), handler)
    except OSError:
        app.close()
        raise
    return server, app

