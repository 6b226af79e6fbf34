"""The HTTP application: the SPARQL service's routes (hpckg.serve.endpoint) and the website's pages
(hpckg.serve.pages) mounted on one Starlette application (run by uvicorn), the middleware around them
(hpckg.serve.middleware: cached answers before Starlette, nosniff, gzip, CORS, HTTP versions, following builds,
page validators) and the one error shape. What the routes work with (settings, rate limits, the worker pool, the
page store, caches, updates) is the Service of hpckg.serve.service.

create_app(settings) opens the store, starts the query workers and returns the Starlette application; tests
drive it in-process with Starlette's TestClient, `hpckg serve` runs it under uvicorn. Queries from clients
run in a WorkerPool of processes under a time limit and a result cap; the fixed lookups behind HTML pages
run on the server's own read-only store handle. Both block, so they never run on the event loop.

Every error is answered in one JSON shape,
{"error": {"status": 400, "code": "query-syntax", "message": "...", "line": 1, "column": 25}},
or as an HTML page when the client is a browser.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager

import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve import pages, urls
from hpckg.serve.caching import PageCaching
from hpckg.serve.endpoint import Endpoint
from hpckg.serve.middleware import SPARQL_METHODS, Cors, FastAnswers, FollowBuilds, HttpVersions, NoSniff
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import EXPOSED, HttpError, error_response
from hpckg.serve.service import Service, Settings

__all__ = ["Settings", "create_app"]

logger = logging.getLogger(__name__)

# Threads for blocking work. A request waiting for a free query worker holds one for up to --timeout
# seconds, so there must be more threads than clients that can wait at once, or page requests queue
# behind them; anyio's default is 40.
THREADS = 64


def create_app(settings: Settings) -> Starlette:
    """Open the store and start the query workers (blocking, before any request), and return the
    application. Closing: the application's lifespan shutdown closes them, as does app.state.service.close()."""
    service = Service(settings)
    endpoint, site = Endpoint(service), Site(service)

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
            allowed = (SPARQL_METHODS if path in (urls.SPARQL, "/update") else ("GET", "HEAD")) + ("OPTIONS",)
            answer = HttpError(405, "method-not-allowed",
                               f"{request.method} is not allowed on {path}: this server is read-only; "
                               "use GET (or POST to /sparql)", headers={"Allow": ", ".join(allowed)})
        else:
            answer = HttpError(error.status_code, "http-error", error.detail)
        return await http_error(request, answer)

    app = Starlette(
        routes=endpoint.routes() + pages.routes(site),
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
