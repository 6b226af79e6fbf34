"""The HTTP layer: Starlette routes (run by uvicorn) for the SPARQL 1.1 Protocol, linked data, pages and
errors. What the routes work with (settings, rate limits, the worker pool, the page store, caches, updates) is
the Service of hpckg.serve.service; what runs around them (cached answers before Starlette, nosniff, CORS,
HTTP versions, following builds, who a request is charged to) is hpckg.serve.middleware.

create_app(settings) opens the store, starts the query workers and returns the Starlette application; tests
drive it in-process with Starlette's TestClient, `hpckg serve` runs it under uvicorn. Queries from clients
run in a WorkerPool of processes under a time limit and a result cap; the fixed lookups behind HTML pages
run on the server's own read-only store handle. Both block, so they never run on the event loop: page routes
are sync endpoints (Starlette runs them in its thread pool) and the SPARQL endpoint, which reads request
bodies asynchronously, hands its blocking calls to run_in_threadpool.

Every error is answered in one JSON shape,
{"error": {"status": 400, "code": "query-syntax", "message": "...", "line": 1, "column": 25}},
or as an HTML page when the client is a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import html
import json
import logging
import re
import threading
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from contextlib import asynccontextmanager

import anyio.to_thread
import pyoxigraph as ox
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from hpckg.errors import InputError, UnknownNameError
from hpckg.formats import RDF_FORMATS, rdf_format_for_media_type
from hpckg.namespaces import ENTITY_KINDS
from hpckg.query import format_result
from hpckg.querytext import undefined_terms
from hpckg.serve import analytics, charts, compare, lists, statistics, urls
from hpckg.serve.caching import PageCaching
from hpckg.serve.contribute import ContributePage
from hpckg.serve.entities import describe, own_triples, summary
from hpckg.serve.middleware import (
    CACHED,
    HOST,
    SPARQL_METHODS,
    Cors,
    FastAnswers,
    FollowBuilds,
    HttpVersions,
    NoSniff,
    cached_headers,
    client_of,
    server_timing,
)
from hpckg.serve.precompute import HOST_MARK
from hpckg.serve.publication import EXTENSIONS, accepts_gzip, file_response, release_media_type
from hpckg.serve.responses import (
    EXPOSED,
    INTERNAL,
    HttpError,
    html_response,
    redirect,
    respond,
)
from hpckg.serve.service import Service, Settings
from hpckg.serve.sparql import (
    QueryRequest,
    accepted,
    negotiate,
    serialize_triples,
    wants_html,
)
from hpckg.serve.views import Views, json_dumps
from hpckg.serve.void import service_description
from hpckg.serve.workers import (
    Job,
)

logger = logging.getLogger(__name__)

# Slugs are ASCII (hpckg.names): a path segment with anything else (NUL, undecodable bytes, IRI-illegal
# characters) names nothing here, and must not reach a query.
SLUG = re.compile(r"[A-Za-z0-9_~-]+")
# Charts drawn while a page reads the rest (vl-convert serialises its drawings in one runtime anyway).
DRAWING = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="hpckg-draw")
COMPARISONS_KEPT = 64  # compare pages (their charts drawn) kept per server
LIST_ROWS_KEPT = 32  # query answers behind lists kept per server (an edition is ~500 rows)
EDITION = re.compile(r"\d{4}-\d{2}")
BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive
MAX_BODY = 1 << 20  # 1 MiB of query text is plenty
# Threads for blocking work. A request waiting for a free query worker holds one for up to --timeout
# seconds, so there must be more threads than clients that can wait at once, or page requests queue
# behind them; anyio's default is 40.
THREADS = 64
READ_METHODS = ("GET", "HEAD")


# ---- responses ------------------------------------------------------------------------------------------




def error_response(views: Views, error: HttpError, accept: str) -> Response:
    if wants_html(accept):
        return html_response(views.error(error.status, error.code, error.message), error.status)
    document = {"error": {"status": error.status, "code": error.code, "message": error.message, **error.extra}}
    return respond(error.status, json_dumps(document), "application/json", error.headers)


def error_box(error: HttpError) -> str:
    return f'<div class="error"><p>{error.status}: {html.escape(error.code)}. {html.escape(error.message)}</p></div>'


def media_for_twin(suffix: str) -> str:
    name = urls.TWIN_SUFFIXES[suffix]
    return "application/json" if name == "json" else RDF_FORMATS[name].media_type


def first(params: QueryParams, name: str) -> str | None:
    """The first value of a query parameter (Starlette's .get gives the last)."""
    values = params.getlist(name)
    return values[0] if values else None


def guarded(endpoint: Callable) -> Callable:
    """Answer an unexpected exception of a sync endpoint in the error shape (500), logged with its traceback,
    instead of letting it reach Starlette's server-error middleware."""

    @functools.wraps(endpoint)
    def wrapper(routes: Routes, request: Request) -> Response:
        try:
            return endpoint(routes, request)
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            logger.exception("internal error answering %s %s", request.method, request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None

    return wrapper


# ---- routes ---------------------------------------------------------------------------------------------

class Routes:
    """The endpoints, bound to one Service."""

    def __init__(self, service: Service):
        self.service = service
        self.rows: OrderedDict[tuple, list[dict[str, object]]] = OrderedDict()  # see query_rows
        self.rows_lock = threading.Lock()
        self.comparisons: OrderedDict[tuple, compare.Comparison] = OrderedDict()  # see comparison

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
                results = self.results_html(client, query)
            except HttpError as error:
                results, status = error_box(error), error.status
        warnings = undefined_terms(query, self.service.settings.project.ontology_dir) if query.strip() else []
        return html_response(views.editor(query, results, list(self.service.canned().values()), warnings), status)

    def results_html(self, client: str, query: str) -> str:
        answer = self.service.run(client, Job(query, "json", "ttl"))
        return (self.service.views.results(json.loads(answer.body)) if answer.form != "triples"
                else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")

    # ---- pages --------------------------------------------------------------------------------------

    @guarded
    def home(self, request: Request) -> Response:
        service, headers = self.service, request.headers
        publication, prepared = service.publication, service.prepared
        releases = publication.release_names()
        marked = prepared.home_documents()
        here = absolute(headers, "")
        structured = [json.loads(json.dumps(d).replace(HOST_MARK, here)) if isinstance(d, dict)
                      else d.replace(HOST_MARK.encode(), here.encode()) for d in marked]  # type: ignore[union-attr]
        return html_response(service.views.home(prepared.front(), releases[-1] if releases else None,
                                                structured))  # type: ignore[arg-type]

    @guarded
    def queries(self, request: Request) -> Response:
        return html_response(self.service.views.queries_page(list(self.service.canned().values())))

    @guarded
    def vocab(self, request: Request) -> Response:
        return html_response(self.service.views.vocab(self.service.settings.project.ontology_dir))

    @guarded
    def editor(self, request: Request) -> Response:
        return self.editor_response(client_of(request), first(request.query_params, "query") or "")

    @guarded
    def canned(self, request: Request) -> Response:
        ref = request.path_params["ref"]
        name, _, ext = ref.partition(".")
        canned = self.service.canned()
        query = canned.get(name)
        if query is None:
            raise HttpError(404, "unknown-query",
                            f"no canned query named {name!r}; available: {', '.join(canned)}")
        client = client_of(request)
        params = {key: first(request.query_params, key) or "" for key in request.query_params}
        try:
            # Values are checked against the parameter's declared type and bound as RDF terms.
            text = query.bind(params)
        except InputError as error:
            raise HttpError(400, "invalid-parameter", str(error)) from None
        service = self.service
        defaults = not params  # the answer every link to the query shows: kept per generation (canned_answer)
        if ext:
            if ext not in ("csv", "json", "tsv", "xml"):
                raise HttpError(404, "unknown-format", f"{ref}: download a canned query as .csv or .json")
            answer = (service.canned_answer(client, service.prepared, name, text, ext) if defaults
                      else service.run(client, Job(text, ext, "ttl")))
            filename = f"{name}.{ext if answer.form != 'triples' else 'ttl'}"
            return respond(200, answer.body, answer.media_type,
                           {"Content-Disposition": f'inline; filename="{filename}"'})
        try:
            if defaults:
                answer = service.canned_answer(client, service.prepared, name, text, "json")
                results = (service.views.results(json.loads(answer.body)) if answer.form != "triples"
                           else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")
            else:
                results = self.results_html(client, text)
        except HttpError as error:
            if error.status == 429:
                raise
            results = error_box(error)
        return html_response(self.service.views.canned(query, results, params))

    # ---- search -----------------------------------------------------------------------------------------

    @guarded
    def search(self, request: Request) -> Response:
        """/search?q=TEXT as a page, /search.json?q=TEXT (or Accept: application/json) as JSON."""
        text = (first(request.query_params, "q") or "").strip()
        limit = first(request.query_params, "limit") or "20"
        if not limit.isdigit() or not 0 < int(limit) <= 100:
            raise HttpError(400, "invalid-parameter", f"limit is a whole number from 1 to 100, not {limit!r}")
        views = self.service.views
        index = self.service.prepared.search_index()
        hits = index.search(text, int(limit)) if text else []
        # a typo: the hits are of the text with its unknown words replaced, and the answer says which
        searched = index.suggest(text) if hits and hits[0].match == "close" else None
        accept = request.headers.get("accept", "")
        if request.url.path.endswith(".json") or (not wants_html(accept) and "application/json" in accept):
            document = {"query": text, "searched": searched or text, "count": len(hits), "results": [
                {"iri": h.entity.iri, "type": h.entity.kind, "label": h.entity.label, "matched": h.name,
                 "match": h.match, "page": views.href(h.entity.iri), "also": list(h.also)} for h in hits]}
            return respond(200, json_dumps(document), "application/json")
        return html_response(views.search_page(text, hits, searched))

    # ---- charts -----------------------------------------------------------------------------------------

    @guarded
    def charts(self, request: Request) -> Response:
        # The tier switch: ?tier=reported leaves out the clusters whose accelerator count rests on a lead (every
        # TOP500 figure is a reported one, read from the list's own file, so those charts do not change).
        min_tier = first(request.query_params, "tier") or "lead"
        if min_tier not in lists.TIERS:
            raise HttpError(400, "invalid-parameter", f"tier is one of {', '.join(lists.TIERS)}, not {min_tier!r}")
        # Drawn from figures precomputed per store generation (hpckg.serve.precompute), each equal to the answer
        # of the canned query its chart links to; the queries themselves run over the endpoint's time limit.
        drawn, epoch = self.service.prepared.charts(min_tier)
        return html_response(self.service.views.charts_page(drawn, epoch, min_tier))

    def drawn(self, key: str, draw: Callable[[], object]):
        """A chart (or charts) drawn once per store generation."""
        cache_key = (self.service.pool.generation, "chart", key)
        with self.rows_lock:
            found = self.rows.get(cache_key)
        if found is None:
            found = draw()
            with self.rows_lock:
                self.rows[cache_key] = found
                while len(self.rows) > LIST_ROWS_KEPT:
                    self.rows.popitem(last=False)
        return found

    def system_history(self, slug: str) -> Callable[[str], charts.Chart | None]:
        """Start the chart of a system's TOP500 editions (its rows read, its SVG drawn in another thread while
        the page reads the rest: the drawing is most of a first visit's time); call the result with the
        system's name for the chart, or None when it was never listed."""
        key = f"system-{slug}"
        with self.rows_lock:
            found = self.rows.get((self.service.pool.generation, "chart", key))
        if found is not None:
            return lambda name: found
        # Read on the page store in this process, like the rest of the page: entity pages need no query
        # worker, so they are answered while slow queries hold every worker.
        text = self.service.canned()["system-editions"].bind({"system": slug})
        views = self.service.views
        rows = lists.rows_from_results(json.loads(format_result(views.store.query(text, prefixes=False), "json")))
        if not rows:
            return lambda name: None
        drawing = DRAWING.submit(charts.vega_svg, charts.system_history_spec(rows))
        return lambda name: self.drawn(key, lambda: charts.system_history(
            rows, name, self.editor_url("system-editions", {"system": slug}), drawing.result(),
            imported=views.imported_editions()))

    def editor_url(self, name: str, params: dict[str, str]) -> str:
        return urls.query_editor(self.service.canned()[name].bind(params))

    # ---- compare ----------------------------------------------------------------------------------------

    @guarded
    def compare(self, request: Request) -> Response:
        """/compare?system=A&system=B (two to four; a search with ?q= to add more) and its .csv/.json twins:
        the four compare-* canned queries' rows laid out by hpckg.serve.compare."""
        ext = request.url.path.rpartition(".")[2] if "." in request.url.path else ""
        if ext not in ("", "csv", "json"):
            raise HttpError(404, "unknown-format", f"the comparison is served as HTML, .csv or .json, not .{ext}")
        views, client = self.service.views, client_of(request)
        text = (first(request.query_params, "q") or "").strip()[:200]
        hits = [h for h in self.service.prepared.search_index().search(text, 20)
                if h.entity.kind == "system"] if text else []
        slugs: list[str] = []
        try:
            slugs = compare.slugs_of(request.query_params.getlist("system"))
            compare.check_count(slugs)
        except InputError as error:
            if ext:
                raise HttpError(400, "invalid-parameter", str(error)) from None
            # choosing: no system yet is the page's start, one system while searching is on the way to two
            status = 200 if not request.query_params.getlist("system") or (text and len(slugs) < 2) else 400
            return html_response(views.compare_page(None, slugs, text, hits, str(error), {}), status)
        params = compare.parameters(slugs)
        queries = {name: self.editor_url(name, params) for name in compare.QUERIES}
        rows = {name: lists.rows_from_results(json.loads(self.service.run(client, Job(
            self.service.canned()[name].bind(params), "json", "ttl")).body)) for name in compare.QUERIES}
        try:
            comparison = self.comparison(slugs, rows)
        except UnknownNameError as error:
            if ext:
                raise HttpError(404, "unknown-system", str(error)) from None
            return html_response(views.compare_page(None, slugs, text, hits, str(error), {}), 404)
        if ext == "csv":
            return respond(200, compare.csv_bytes(comparison), "text/csv",
                           {"Content-Disposition": 'inline; filename="compare.csv"'})
        if ext == "json":
            return respond(200, compare.json_bytes(comparison, queries), "application/json")
        return html_response(views.compare_page(comparison, slugs, text, hits, None, queries))

    def comparison(self, slugs: list[str], rows: dict[str, list[dict[str, object]]]) -> compare.Comparison:
        """The comparison of these systems, its chart drawn once per store generation; kept apart from the
        lists' rows (self.rows), which any of thousands of comparisons would otherwise push out."""
        key = (self.service.pool.generation, tuple(slugs))
        with self.rows_lock:
            found = self.comparisons.get(key)
        if found is None:
            found = compare.compare(slugs, rows)
            with self.rows_lock:
                self.comparisons[key] = found
                while len(self.comparisons) > COMPARISONS_KEPT:
                    self.comparisons.popitem(last=False)
        return found

    # ---- lists ------------------------------------------------------------------------------------------

    @guarded
    def lists(self, request: Request) -> Response:
        # The generation's editions (Prepared.edition_names, the rows of top500-edition-names), not a worker's
        # run of that query: over a cold worker it took 0.3-1.3 s of a first visit on the full graph.
        rows = [{"edition": edition} for edition in self.service.prepared.edition_names()]
        return html_response(self.service.views.lists_index(rows))  # type: ignore[arg-type]

    @guarded
    def named_list(self, request: Request) -> Response:
        """/lists/epoch-clusters (and its .csv/.json twins); /lists/top500 is the editions, or the edition
        a form chose (?edition=2025-06)."""
        name, _, ext = request.path_params["name"].partition(".")
        if name == "top500" and not ext:
            edition = first(request.query_params, "edition")
            return redirect(urls.top500_list(edition)) if edition else self.lists(request)
        if name in lists.ENTITY_LISTS:
            spec = lists.ENTITY_LISTS[name]
            # Precomputed with the generation (hpckg.serve.precompute): the sites list took 1.4 s on a first visit.
            return self.list_response(request, spec, ext, {}, urls.entity_list(name), spec.title,
                                      rows=self.service.prepared.canned_rows(spec.query))
        if name != lists.EPOCH_CLUSTERS.name:
            raise HttpError(404, "unknown-list", f"no list named {name!r}; lists: top500/EDITION, epoch-clusters, "
                            + ", ".join(lists.ENTITY_LISTS))
        return self.list_response(request, lists.EPOCH_CLUSTERS, ext, {}, urls.epoch_clusters(),
                                  lists.EPOCH_CLUSTERS.title,
                                  rows=self.service.prepared.canned_rows(lists.EPOCH_CLUSTERS.query))

    @guarded
    def top500_list(self, request: Request) -> Response:
        edition, _, ext = request.path_params["edition"].partition(".")
        if not EDITION.fullmatch(edition):
            raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
        editions = self.service.prepared.edition_names()
        if edition not in editions:
            return self.absent_edition(request, edition, editions, "list", ext)
        # The edition's claims read in one pattern and pivoted (hpckg.serve.editions): the same rows as the
        # canned query top500-list, which the page links to, in a second on the full graph.
        rows = self.service.prepared.edition(edition)
        return self.list_response(request, lists.TOP500, ext, {"edition": edition}, urls.top500_list(edition),
                                  f"TOP500, {edition}", editions, rows)

    def absent_edition(self, request: Request, edition: str, editions: list[str], what: str, ext: str) -> Response:
        """A 404 for an edition the store lacks: a page saying so, with a link to top500.org when top500.org has
        published it (its file is not in the configured data), for a visitor; the JSON error for a program."""
        message = f"no TOP500 edition {edition} in this store; editions: {', '.join(editions) or 'none'}"
        wanted = next((t for t in accepted(request.headers.get("accept", ""))
                       if t in ("text/html", "application/json")), "text/html")
        if ext or wanted != "text/html" or not statistics.is_published(edition):
            if statistics.is_published(edition):
                message += f"; top500.org has it: {statistics.top500_org_list(edition)}"
            raise HttpError(404, "unknown-edition", message)
        return html_response(statistics.absent_page(edition, editions, what), 404)

    # ---- statistics -----------------------------------------------------------------------------------

    @guarded
    def statistics(self, request: Request) -> Response:
        """/statistics: every edition over time (or the edition a form chose, ?edition=2025-06); .json twin."""
        edition = first(request.query_params, "edition")
        if edition:
            return redirect(urls.edition_statistics(edition))
        prepared = self.service.prepared
        figures = prepared.top500_figures()
        rows = statistics.over_time(prepared.edition_names(), figures[analytics.DEVELOPMENT],
                                    figures[analytics.BY_COUNTRY], figures[analytics.BY_VENDOR])
        if request.url.path.endswith(".json"):
            return respond(200, statistics.json_bytes({"editions": rows}), "application/json")
        return html_response(statistics.index_page(rows, self.editor_url))

    @guarded
    def edition_statistics(self, request: Request) -> Response:
        """/statistics/top500/EDITION (and .json: every table), /statistics/top500/EDITION/TABLE (and .csv/.json)."""
        edition, _, ext = request.path_params["edition"].partition(".")
        name = request.path_params.get("table")
        if name is not None:
            name, _, ext = name.partition(".")
        if not EDITION.fullmatch(edition):
            raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
        prepared = self.service.prepared
        editions = prepared.edition_names()
        if edition not in editions:
            return self.absent_edition(request, edition, editions, "statistics", ext)
        table = statistics.TABLES.get(name) if name is not None else None
        if name is not None and table is None:
            raise HttpError(404, "unknown-table", f"no table {name!r}; tables: {', '.join(statistics.TABLES)}")
        if not ext:  # content negotiation, as the lists do: Accept: text/csv or application/json
            preferred = next((t for t in accepted(request.headers.get("accept", ""))
                              if t in ("text/html", "text/csv", "application/json")), "text/html")
            ext = {"text/csv": "csv" if table else "", "application/json": "json"}.get(preferred, "")
        found = prepared.edition_statistics(edition)
        if ext == "csv" and table is not None:
            return respond(200, statistics.csv_bytes(table, found[table.name]), "text/csv",
                           {"Content-Disposition": f'inline; filename="{table.query}-{edition}.csv"'})
        if ext == "json":
            chosen = [table] if table else list(statistics.TABLES.values())
            documents = [statistics.table_document(edition, t, found[t.name],
                                                   self.editor_url(t.query, {"edition": edition})) for t in chosen]
            return respond(200, statistics.json_bytes(documents[0] if table else {"edition": edition,
                                                                                  "tables": documents}),
                           "application/json")
        if ext:
            raise HttpError(404, "unknown-format", "an edition's statistics are served as HTML or .json, a table "
                            f"also as .csv, not .{ext}")
        return html_response(statistics.edition_page(edition, found, editions, self.editor_url,
                                                     self.service.views.href, table))

    @guarded
    def statistics_trend(self, request: Request) -> Response:
        """/statistics/TABLE (?measure=sharePercent|systemsPercent|systems), and its .csv/.json twins: a share
        table over the editions, from each edition's precomputed rows (those not computed yet are named)."""
        name, _, ext = request.path_params["table"].partition(".")
        table = statistics.TABLES.get(name)
        if table is None or table.ranking:
            shares = ", ".join(t.name for t in statistics.SHARES)
            raise HttpError(404, "unknown-table", f"no share table {name!r} over time; tables: {shares}")
        measure = first(request.query_params, "measure") or "sharePercent"
        if measure not in statistics.MEASURES:
            raise HttpError(400, "invalid-parameter", f"measure is one of {', '.join(statistics.MEASURES)}, "
                            f"not {measure!r}")
        prepared = self.service.prepared
        editions = prepared.edition_names()
        computed = {e: prepared.ready(f"statistics:{e}") for e in editions}
        if editions and computed[editions[0]] is None:  # the newest, at least (seconds)
            computed[editions[0]] = prepared.edition_statistics(editions[0])
        found = {e: done[table.name] for e, done in computed.items() if isinstance(done, dict)}
        pending = [e for e in editions if e not in found]
        if ext == "csv":
            keys = ("edition", *statistics.columns(table))
            return respond(200, statistics.rows_csv(keys, statistics.trend_rows(found)), "text/csv",
                           {"Content-Disposition": f'inline; filename="{table.query}-over-time.csv"'})
        if ext == "json":
            return respond(200, statistics.json_bytes({
                "table": table.name, "title": table.title, "query": self.editor_url(table.query, {}),
                "pending": pending, "rows": statistics.trend_rows(found)}), "application/json")
        if ext:
            raise HttpError(404, "unknown-format", f"a table over time is served as HTML, .csv or .json, not .{ext}")
        absent = statistics.absent_editions(editions)
        return html_response(statistics.trend_page(statistics.trend(table, found, measure, pending, absent),
                                                   self.editor_url, self.service.views.href))

    def query_rows(self, client: str, name: str, params: dict[str, str]) -> list[dict[str, object]]:
        """The rows a canned query answers, its declared parameters bound (checked against their types);
        kept per store generation, so sorting or paging a list again does not run its query again."""
        text = self.service.canned()[name].bind(params)
        key = (self.service.pool.generation, text)
        with self.rows_lock:
            rows = self.rows.get(key)
        if rows is None:
            rows = lists.rows_from_results(json.loads(self.service.run(client, Job(text, "json", "ttl")).body))
            with self.rows_lock:
                self.rows[key] = rows
                while len(self.rows) > LIST_ROWS_KEPT:
                    self.rows.popitem(last=False)
        return rows

    def list_response(self, request: Request, spec: lists.ListSpec, ext: str, query_params: dict[str, str],
                      base: str, heading: str, editions: list[str] | None = None,
                      rows: list[dict[str, object]] | None = None) -> Response:
        if rows is None:
            rows = self.query_rows(client_of(request), spec.query, query_params)
        params = {key: first(request.query_params, key) or "" for key in request.query_params}
        try:
            page = lists.select(spec, rows, params, query_params)
        except InputError as error:
            raise HttpError(400, "invalid-parameter", str(error)) from None
        query_url = urls.query_editor(self.service.canned()[spec.query].bind(query_params))
        twins = {fmt: page.url(f"{base.partition('?')[0]}.{fmt}", page=None, per=None) for fmt in ("csv", "json")}
        if not ext:
            preferred = next((t for t in accepted(request.headers.get("accept", ""))
                              if t in ("text/html", "text/csv", "application/json")), "text/html")
            ext = {"text/csv": "csv", "application/json": "json"}.get(preferred, "")
        if ext == "csv":
            return respond(200, lists.csv_bytes(spec, page.selected), "text/csv",
                           {"Content-Disposition": f'inline; filename="{spec.name}.csv"'})
        if ext == "json":
            return respond(200, lists.json_bytes(spec, page, query_url), "application/json")
        if ext:
            raise HttpError(404, "unknown-format", f"a list is served as HTML, .csv or .json, not .{ext}")
        return html_response(self.service.views.list_page(page, base, heading, twins, query_url, editions,
                                                          machines=self.service.prepared.machines()))

    # ---- data: graph store, VoID, entities ----------------------------------------------------------

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
    def entity_id(self, request: Request) -> Response:
        return self.entity(request, "id")

    @guarded
    def entity_page(self, request: Request) -> Response:
        return self.entity(request, "page")

    def entity(self, request: Request, route: str) -> Response:
        kind, ref = request.path_params["kind"], request.path_params["ref"]
        slug, _, ext = ref.partition(".")
        if kind not in ENTITY_KINDS:
            raise HttpError(404, "unknown-kind", f"no entity kind {kind!r}; kinds: {', '.join(ENTITY_KINDS)}")
        service = self.service
        iri = f"{service.settings.base_iri}id/{kind}/{slug}"
        if not SLUG.fullmatch(slug):
            raise HttpError(404, "unknown-entity", f"nothing is known about {iri!r}: not a slug of this server")
        accept = request.headers.get("accept", "")
        if route == "page" or (not ext and wants_html(accept)):
            if route == "id":
                if not service.views.exists(iri):
                    raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
                return redirect(urls.page(kind, slug))
            history = self.system_history(slug) if kind == "system" else None
            jsonld = serialize_triples(own_triples(service.store, iri), RDF_FORMATS["jsonld"])
            page = service.views.entity(kind, slug, iri, jsonld)
            if page is None:
                raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
            if history is not None:
                page.context["history"] = history(page.context["page"].label)
            return html_response(page)
        triples = describe(service.store, iri)
        if not triples:
            raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
        links = ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in (
            (urls.page(kind, slug), "text/html"),
            *((u, media_for_twin(s)) for s, u in urls.twins(kind, slug).items())))
        if ext == "json":
            return respond(200, json_dumps(summary(service.store, iri, service.settings.base_iri)),
                           "application/json", {"Link": links})
        if ext:
            if ext not in urls.TWIN_SUFFIXES:
                raise HttpError(404, "unknown-format",
                                f"no .{ext} twin; available: {', '.join(urls.TWIN_SUFFIXES)}")
            fmt = RDF_FORMATS[urls.TWIN_SUFFIXES[ext]]
        else:
            fmt = next((f for f in map(rdf_format_for_media_type, accepted(accept)) if f), RDF_FORMATS["ttl"])
        return respond(200, serialize_triples(triples, fmt), fmt.media_type, {"Link": links})


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


def absolute(headers: Headers, path: str) -> str:
    """This server's URL for `path`, from the Host header: the base IRI of queries and updates, so it
    must be a host and nothing else (400 bad-host)."""
    host = headers.get("host") or "127.0.0.1"
    if not HOST.fullmatch(host):
        raise HttpError(400, "bad-host", "the Host header is not a host name or address (with a port)")
    return f"http://{host}{path}"


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
def create_app(settings: Settings) -> Starlette:
    """Open the store and start the query workers (blocking, before any request), and return the
    application. Closing: the application's lifespan shutdown closes them, as does app.state.service.close()."""
    service = Service(settings)
    routes = Routes(service)
    contribute = ContributePage(service, client_of)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, THREADS)
        try:
            yield
        finally:
            await run_in_threadpool(service.close)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HttpError)
        if error.status >= 500:
            logger.info("%s %s answered %d %s", request.method, request.url.path, error.status, error.code)
        return error_response(service.views, error, request.headers.get("accept", ""))

    async def starlette_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        path = request.url.path
        if error.status_code == 404:
            answer = HttpError(404, "not-found", f"nothing at {path}; see {urls.home()} for what this server offers")
        elif error.status_code == 405:
            allowed = (SPARQL_METHODS if path in (urls.SPARQL, "/update") else READ_METHODS) + ("OPTIONS",)
            answer = HttpError(405, "method-not-allowed",
                               f"{request.method} is not allowed on {path}: this server is read-only; "
                               "use GET (or POST to /sparql)", headers={"Allow": ", ".join(allowed)})
        else:
            answer = HttpError(error.status_code, "http-error", error.detail)
        return await http_error(request, answer)

    app = Starlette(
        routes=[
            Route(urls.SPARQL, routes.sparql, methods=list(SPARQL_METHODS)),
            Route("/update", routes.update, methods=list(SPARQL_METHODS)),
            Route(urls.HOME, routes.home, methods=list(READ_METHODS)),
            Route(urls.QUERY_EDITOR, routes.editor, methods=list(READ_METHODS)),
            Route(urls.VOID, routes.void, methods=list(READ_METHODS)),
            Route(urls.DUMPS + "/{name}", routes.dump, methods=list(READ_METHODS)),
            Route(urls.RELEASES + "/{version}/{name}", routes.release, methods=list(READ_METHODS)),
            Route(urls.STORE, routes.graph_store, methods=list(READ_METHODS)),
            Route(urls.QUERIES, routes.queries, methods=list(READ_METHODS)),
            Route(urls.QUERIES + "/{ref}", routes.canned, methods=list(READ_METHODS)),
            Route(urls.VOCAB, routes.vocab, methods=list(READ_METHODS)),
            Route(urls.LISTS, routes.lists, methods=list(READ_METHODS)),
            Route(urls.SEARCH, routes.search, methods=list(READ_METHODS)),
            Route(urls.CHARTS, routes.charts, methods=list(READ_METHODS)),
            Route(urls.COMPARE, routes.compare, methods=list(READ_METHODS)),
            Route(urls.COMPARE + ".{ext}", routes.compare, methods=list(READ_METHODS)),
            Route(urls.CONTRIBUTE, contribute.get, methods=list(READ_METHODS)),
            Route(urls.CONTRIBUTE, contribute.post, methods=["POST"]),
            Route(urls.SEARCH + ".json", routes.search, methods=list(READ_METHODS)),
            Route(urls.LISTS + "/top500/{edition}", routes.top500_list, methods=list(READ_METHODS)),
            Route(urls.STATISTICS, routes.statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + ".json", routes.statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/top500/{edition}", routes.edition_statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/{table}", routes.statistics_trend, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/top500/{edition}/{table}", routes.edition_statistics,
                  methods=list(READ_METHODS)),
            Route(urls.LISTS + "/{name}", routes.named_list, methods=list(READ_METHODS)),
            Route("/id/{kind}/{ref}", routes.entity_id, methods=list(READ_METHODS)),
            Route("/page/{kind}/{ref}", routes.entity_page, methods=list(READ_METHODS)),
        ],
        # FollowBuilds first: the fast answers below are keyed by the store generation it may switch.
        # GZip outside everything that answers (files that carry their own Content-Encoding pass through);
        # PageCaching inside Cors, so its 304s carry the CORS headers too.
        middleware=[Middleware(NoSniff), Middleware(GZipMiddleware, minimum_size=1024, compresslevel=6),
                    Middleware(FollowBuilds, service=service),
                    Middleware(FastAnswers, service=service),
                    Middleware(HttpVersions),
                    Middleware(Cors, allow_origins=["*"], allow_methods=[*SPARQL_METHODS, "OPTIONS"],
                               allow_headers=["Accept", "Authorization", "Content-Type"],
                               expose_headers=EXPOSED.split(", "), max_age=86400),
                    Middleware(PageCaching, state=service.page_state)],
        exception_handlers={HttpError: http_error, HTTPException: starlette_error},
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.trusted = service.trusted
    return app
