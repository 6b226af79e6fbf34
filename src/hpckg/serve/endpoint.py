"""The SPARQL service's HTTP side: the SPARQL 1.1 Protocol (/sparql for queries, /update), its query editor
(/sparql asked for by a browser), the Graph Store Protocol's reads (/store), the VoID description, and the dump
and release files. What it works with (the worker pool, limits, caches, updates) is hpckg.serve.service; the
website's pages are hpckg.serve.pages; hpckg.serve.app mounts both.

Queries from clients run in a WorkerPool of processes under a time limit and a result cap. The SPARQL endpoint
reads request bodies asynchronously and hands its blocking calls to run_in_threadpool; the other routes are
sync endpoints (Starlette runs them in its thread pool).
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import urllib.parse

import pyoxigraph as ox
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from hpckg.querytext import undefined_terms
from hpckg.serve import urls
from hpckg.serve.middleware import CACHED, SPARQL_METHODS, FastAnswers, cached_headers, client_of, server_timing
from hpckg.serve.publication import EXTENSIONS, accepts_gzip, file_response, release_media_type
from hpckg.serve.responses import (
    INTERNAL,
    HttpError,
    absolute,
    error_box,
    first,
    guarded,
    html_response,
    respond,
)
from hpckg.serve.service import Service
from hpckg.serve.sparql import QueryRequest, negotiate, serialize_triples, wants_html
from hpckg.serve.void import service_description
from hpckg.serve.workers import Job

logger = logging.getLogger("hpckg.serve.app")

BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive
MAX_BODY = 1 << 20  # 1 MiB of query text is plenty
READ_METHODS = ["GET", "HEAD"]


def results_html(service: Service, client: str, query: str) -> str:
    """A query's answer as the editor and the canned queries' pages show it: a table, or the triples as text."""
    answer = service.run(client, Job(query, "json", "ttl"))
    return (service.views.results(json.loads(answer.body)) if answer.form != "triples"
            else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")


class Endpoint:
    """The SPARQL service's routes, bound to one Service."""

    def __init__(self, service: Service):
        self.service = service

    def routes(self) -> list[Route]:
        return [Route(urls.SPARQL, self.sparql, methods=list(SPARQL_METHODS)),
                Route("/update", self.update, methods=list(SPARQL_METHODS)),
                Route(urls.QUERY_EDITOR, self.editor, methods=READ_METHODS),
                Route(urls.VOID, self.void, methods=READ_METHODS),
                Route(urls.DUMPS + "/{name}", self.dump, methods=READ_METHODS),
                Route(urls.RELEASES + "/{version}/{name}", self.release, methods=READ_METHODS),
                Route(urls.STORE, self.graph_store, methods=READ_METHODS)]
    # ---- SPARQL protocol ----------------------------------------------------------------------------

    async def sparql(self, request: Request) -> Response:
        return await self._sparql(request, update_only=False)

    async def update(self, request: Request) -> Response:
        return await self._sparql(request, update_only=True)

    async def _sparql(self, request: Request, *, update_only: bool) -> Response:
        try:
            query_request = await read_request(request)
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is listening any more
        headers = request.headers
        accept = headers.get("accept", "")
        service = self.service
        try:
            if query_request.update is not None:
                if request.method != "POST":
                    raise HttpError(405, "update-needs-post", "SPARQL Update is only accepted by POST",
                                    headers={"Allow": "POST"})
                await run_in_threadpool(service.update, query_request, headers.get("authorization"),
                                        absolute(headers, urls.SPARQL))
                return respond(204 if not wants_html(accept) else 200, b"", "text/plain")
            if update_only:
                raise HttpError(400, "missing-update", "POST an update as application/sparql-update or update=")
            params = request.query_params
            fmt = first(params, "format") or first(params, "output") or first(params, "results")
            query = query_request.query
            if query is None:
                if wants_html(accept) and not fmt:
                    return await run_in_threadpool(self.editor_response, client_of(request), "")
                rdf = negotiate(accept, fmt)[1]
                endpoint = absolute(headers, urls.SPARQL)
                return await run_in_threadpool(
                    lambda: respond(200, serialize_triples(service_description(endpoint, service.store,
                                                                               service.settings), rdf),
                                    rdf.media_type))
            if not query.strip():
                raise HttpError(400, "missing-query", "the query parameter is empty")
            if wants_html(accept) and not fmt:
                return await run_in_threadpool(self.editor_response, client_of(request), query)
            results, rdf = negotiate(accept, fmt)
            job = Job(query, results.name, rdf.name, tuple(query_request.default_graphs),
                      tuple(query_request.named_graphs), base_iri=absolute(headers, urls.SPARQL))
            answer = await service.run_async(client_of(request), job)
            response = respond(200, answer.body, answer.media_type, server_timing(answer))
            if request.method == "GET" and "origin" not in headers and service.cache_key(job) is not None:
                service.responses.put(FastAnswers.key(request.scope), service.pool.generation,
                                      cached_headers(respond(200, answer.body, answer.media_type,
                                                             server_timing(CACHED))), answer.body)
            return response
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            logger.exception("internal error answering %s %s", request.method, request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None

    def editor_response(self, client: str, query: str) -> Response:
        results, status = "", 200
        views = self.service.views
        if query.strip():
            try:
                results = results_html(self.service, client, query)
            except HttpError as error:
                results, status = error_box(error), error.status
        warnings = undefined_terms(query, self.service.settings.project.ontology_dir) if query.strip() else []
        return html_response(views.editor(query, results, list(self.service.canned().values()), warnings), status)

    # ---- data: graph store, VoID ------------------------------------------------------------------

    @guarded
    def graph_store(self, request: Request) -> Response:
        params = request.query_params
        fmt = negotiate(request.headers.get("accept", ""), first(params, "format"))[1]
        store = self.service.store
        if "graph" in params:
            graph = first(params, "graph")
            if graph not in store.named_graphs():
                raise HttpError(404, "no-such-graph", f"there is no named graph <{graph}> in this store")
            triples = [q.triple for q in store.quads(graph=graph)]
        elif "default" in params:
            # The default graph is the union of all named graphs, as for queries.
            triples = list(dict.fromkeys(q.triple for q in store.quads()))
        else:
            raise HttpError(400, "missing-graph", "ask for ?graph=IRI or ?default")
        return respond(200, serialize_triples(triples, fmt), fmt.media_type)

    @guarded
    def void(self, request: Request) -> Response:
        headers = request.headers
        fmt = negotiate(headers.get("accept", ""), None)[1]
        triples = self.service.publication.description(self.service.store, absolute(headers, urls.SPARQL),
                                                       lambda path: absolute(headers, path))
        return respond(200, serialize_triples(triples, fmt), fmt.media_type)

    # ---- dumps and releases: files with ETag, Last-Modified, ranges and gzip ------------------------

    @guarded
    def dump(self, request: Request) -> Response:
        name = request.path_params["name"]
        fmt = EXTENSIONS.get(name.removeprefix("hpckg.")) if name.startswith("hpckg.") else None
        if fmt is None:
            raise HttpError(404, "no-such-dump", f"no dump {name!r}; dumps: "
                            + ", ".join(urls.dump(ext) for ext in EXTENSIONS))
        service, compressed = self.service, accepts_gzip(request)
        path = service.publication.dump_file(service.store, service.generation_path, fmt, compressed=compressed,
                                             revision=service.pool.generation)
        headers = {"Vary": "Accept-Encoding", "Cache-Control": "public, max-age=300"}
        if compressed:
            headers["Content-Encoding"] = "gzip"
        return file_response(request, path, fmt.media_type, headers)

    @guarded
    def release(self, request: Request) -> Response:
        version, name = request.path_params["version"], request.path_params["name"]
        path = self.service.publication.release_file(version, name)
        if path is None:
            raise HttpError(404, "no-such-release-file", f"no file {name!r} in a release {version!r}; releases: "
                            + (", ".join(self.service.publication.release_names()) or "none"))
        return file_response(request, path, release_media_type(name), {"Cache-Control": "public, max-age=86400"})

    @guarded
    def editor(self, request: Request) -> Response:
        return self.editor_response(client_of(request), first(request.query_params, "query") or "")


async def read_request(request: Request) -> QueryRequest:
    """The operation and dataset of a SPARQL protocol request, from the URL and (for POST) the body."""
    params = request.query_params
    query_request = QueryRequest(query=single(params.getlist("query"), "query"),
                                 update=single(params.getlist("update"), "update"),
                                 default_graphs=params.getlist("default-graph-uri"),
                                 named_graphs=params.getlist("named-graph-uri"),
                                 using_graphs=params.getlist("using-graph-uri"),
                                 using_named_graphs=params.getlist("using-named-graph-uri"))
    if request.method == "POST":
        media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if media not in ("application/sparql-query", "application/sparql-update",
                         "application/x-www-form-urlencoded"):
            raise HttpError(415, "unsupported-media-type",
                            f"POST a query as application/sparql-query or application/x-www-form-urlencoded,"
                            f" not {media or 'no Content-Type'}")
        charset = re.search(r";\s*charset\s*=\s*\"?([\w.:-]+)", request.headers.get("content-type") or "",
                            re.IGNORECASE)
        if charset and charset.group(1).lower() not in ("utf-8", "utf8"):
            raise HttpError(415, "unsupported-charset", f"send the body in UTF-8, not {charset.group(1)}")
        raw = await read_body(request)
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise HttpError(400, "not-utf8", f"the request body is not UTF-8 (byte {error.start}); SPARQL "
                                             "requests are UTF-8") from None
        if media == "application/sparql-query":
            if query_request.query is not None or query_request.update is not None:
                raise HttpError(400, "query-twice", "a POSTed query may not have query or update in the URL too")
            query_request.query = body
        elif media == "application/sparql-update":
            if query_request.query is not None or query_request.update is not None:
                raise HttpError(400, "update-twice", "a POSTed update may not have query or update in the URL too")
            query_request.update = body
        else:
            try:
                form = urllib.parse.parse_qs(body, keep_blank_values=True, errors="strict")
            except UnicodeDecodeError:
                raise HttpError(400, "not-utf8", "the form's percent-encoded values are not UTF-8") from None
            for name in ("query", "update"):
                values = form.get(name, [])
                current = getattr(query_request, name)
                if values:
                    setattr(query_request, name, single(values + ([current] if current is not None else []), name))
            query_request.default_graphs += form.get("default-graph-uri", [])
            query_request.named_graphs += form.get("named-graph-uri", [])
            query_request.using_graphs += form.get("using-graph-uri", [])
            query_request.using_named_graphs += form.get("using-named-graph-uri", [])
    if query_request.query is not None and query_request.update is not None:
        raise HttpError(400, "query-and-update", "send either query or update, not both")
    for name, values in (("default-graph-uri", query_request.default_graphs),
                         ("named-graph-uri", query_request.named_graphs),
                         ("using-graph-uri", query_request.using_graphs),
                         ("using-named-graph-uri", query_request.using_named_graphs)):
        graph_iris(values, name)
    return query_request


def single(values: list[str], name: str) -> str | None:
    """The one value of a protocol parameter; more than one is a client error (the protocol allows one)."""
    if len(values) > 1:
        raise HttpError(400, f"multiple-{name}", f"send one {name} per request, not {len(values)}")
    return values[0] if values else None


async def read_body(request: Request) -> bytes:
    """The request body, read incrementally (Content-Length or chunked) and refused past MAX_BODY."""
    too_large = HttpError(413, "too-large", f"the request body is larger than {MAX_BODY} bytes")
    length = request.headers.get("content-length")
    if length is not None:
        # uvicorn's HTTP parser refuses most malformed lengths before the request gets here.
        if not length.strip().isdigit():
            raise HttpError(400, "bad-content-length", f"Content-Length must be a number of bytes, not {length!r}")
        if int(length) > MAX_BODY:
            raise too_large
    chunks, size = [], 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise HttpError(408, "body-timeout", f"the request body did not arrive within {BODY_TIMEOUT:g} s",
                        headers={"Connection": "close"}) from None
    return b"".join(chunks)


def graph_iris(values: list[str], name: str) -> list[str]:
    """The values of a dataset parameter (default-graph-uri, using-graph-uri...), each an absolute IRI by
    Oxigraph's own IRI parser, else 400: they enter operations as IRIs, never as text."""
    for value in values:
        try:
            ox.NamedNode(value)
        except ValueError:
            raise HttpError(400, "bad-graph-iri", f"{name} must be an absolute IRI, not {value[:100]!r}") from None
    return values


# ---- middleware and the application ------------------------------------------------------------------
