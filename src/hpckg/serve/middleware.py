"""ASGI middleware around the routes: repeated queries answered from the response cache before Starlette
runs, nosniff on every answer, HTTP versions, CORS, following new builds; and who a request is charged to."""

from __future__ import annotations

import ipaddress
import logging
import urllib.parse

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from hpckg.serve import urls
from hpckg.serve.responses import (
    HOST,
    HttpError,
    respond,
)
from hpckg.serve.service import Service
from hpckg.serve.sparql import (
    is_lookup,
    negotiate,
    wants_html,
)
from hpckg.serve.workers import (
    Answer,
    Job,
)

logger = logging.getLogger(__name__)

SPARQL_METHODS = ("GET", "HEAD", "POST")
# A Host header as RFC 9110 has it: a name or IPv4 address, or an IPv6 literal in brackets, and a port.

def client_of(request: Request) -> str:
    """The client a request is charged to: the peer address, or, when the peer is a trusted reverse proxy,
    the last address in X-Forwarded-For that is not a trusted proxy itself."""
    peer = request.client.host if request.client else "unknown"
    trusted = request.app.state.trusted if hasattr(request.app.state, "trusted") else ()
    return forwarded_client(peer, request.headers.getlist("x-forwarded-for"), trusted)


def forwarded_client(peer: str, forwarded: list[str], trusted) -> str:
    if not trusted or not _trusted(peer, trusted):
        return peer
    hops = [hop.strip() for value in forwarded for hop in value.split(",")]
    for hop in reversed(hops):
        if hop and not _trusted(hop, trusted):
            return hop
    return peer


def _trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)




class FastAnswers:
    """Answer a repeated GET /sparql from the ResponseCache before Starlette runs: the same query string,
    Accept and Host at the same store generation get the same bytes. The client's rate limit and strikes are
    still checked (a refused client falls through to the full path, which answers 429); requests with an
    Origin header (CORS) or another HTTP version take the full path."""

    def __init__(self, app, service: Service):
        self.app = app
        self.service = service

    @staticmethod
    def key(scope: Scope) -> tuple:
        accept = host = b""
        for name, value in scope["headers"]:
            if name == b"accept":
                accept = value
            elif name == b"host":
                host = value
        return scope["query_string"], accept, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope["method"] == "GET" and scope["path"] == urls.SPARQL
                and scope.get("http_version") in ("1.0", "1.1")):
            service = self.service
            key = self.key(scope)
            hit = service.responses.get(key, service.pool.generation)
            client = self.allowed(scope)
            if client is not None:
                if hit is None:
                    hit = self.lookup(scope, client, key)
                if hit is not None:
                    headers, body = hit
                    await send({"type": "http.response.start", "status": 200, "headers": headers})
                    await send({"type": "http.response.body", "body": body})
                    return
        await self.app(scope, receive, send)

    def lookup(self, scope: Scope, client: str, key: tuple) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        """A lookup (sparql.is_lookup) asked by GET with only a query parameter, answered in this process;
        None for anything else, or any error (the full path then answers it, errors included)."""
        try:
            params = urllib.parse.parse_qsl(scope["query_string"].decode("latin-1"), errors="strict")
        except (UnicodeDecodeError, ValueError):
            return None
        if len(params) != 1 or params[0][0] != "query" or not is_lookup(params[0][1]):
            return None
        accept, host = key[1].decode("latin-1"), key[2].decode("latin-1")
        if wants_html(accept):
            return None
        results, rdf = negotiate(accept, None)
        if host and not HOST.fullmatch(host):
            return None  # the full path answers 400 bad-host
        job = Job(params[0][1], results.name, rdf.name, base_iri=f"http://{host or '127.0.0.1'}{urls.SPARQL}")
        service = self.service
        job.max_results = service.settings.max_results
        generation = service.pool.generation
        try:
            answer = service.lookup(client, job, service.cache_key(job), known=True)
        except HttpError:
            return None
        if answer is None:
            return None
        service.responses.put(key, generation, cached_headers(respond(200, answer.body, answer.media_type,
                                                                      server_timing(CACHED))), answer.body)
        return cached_headers(respond(200, answer.body, answer.media_type, server_timing(answer))), answer.body

    def allowed(self, scope: Scope) -> str | None:
        """The client, when its request may be answered here (no CORS Origin, not rate-limited), else None."""
        forwarded = []
        for name, value in scope["headers"]:
            if name == b"origin":
                return None
            if name == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
        peer = scope["client"][0] if scope.get("client") else "unknown"
        client = forwarded_client(peer, forwarded, self.service.trusted)
        if self.service.limiter.retry_after(client) is None and self.service.struck_out(client) is None:
            return client
        return None


CACHED = Answer(lane="cache")


def server_timing(answer: Answer) -> dict[str, str]:
    """The Server-Timing header of a query's answer (W3C Server Timing): which lane answered it, how long it
    waited for a worker and how long it took, in milliseconds; so a client (and the tests) can see that a
    lookup never waited behind slow queries without timing the round trip."""
    return {"Server-Timing": f'lane;desc="{answer.lane}", wait;dur={answer.waited * 1000:.1f}, '
                             f"total;dur={answer.seconds * 1000:.1f}"}


def cached_headers(response: Response) -> list[tuple[bytes, bytes]]:
    """A response's headers as the CORS middleware sends them (it adds Origin to Vary on the way out)."""
    return [(k, b"Accept, Origin" if k == b"vary" else v) for k, v in response.raw_headers]


class NoSniff:
    """X-Content-Type-Options: nosniff on every answer, the fast ones included: a browser must not take a
    query's results (whose text a client chose) for HTML or script."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"x-content-type-options"]
                message = {**message, "headers": [*headers, (b"x-content-type-options", b"nosniff")]}
            await send(message)

        await self.app(scope, receive, sending)


class HttpVersions:
    """Refuse requests without an HTTP/1.x or 2 version (an HTTP/0.9 request line is a client mistake)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("http_version") not in ("1.0", "1.1", "2", "2.0"):
            response = Response(b'{"error": {"status": 400, "code": "http-version", "message": "send HTTP/1.1"}}',
                                400, {"Connection": "close"}, "application/json")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class Cors(CORSMiddleware):
    """Starlette's CORS middleware, answering every OPTIONS request (preflight or not) with 204 and the
    allowed methods and headers, as this server always has."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            headers = Headers(scope=scope)
            if "origin" in headers and "access-control-request-method" in headers:
                answer = self.preflight_response(request_headers=headers)
            else:
                answer = Response(status_code=204, headers=self.preflight_headers)
            if answer.status_code == 200:  # Starlette answers an allowed preflight "200 OK"
                answer = Response(status_code=204, headers={
                    k: v for k, v in answer.headers.items() if k not in ("content-length", "content-type")})
            answer.headers["Allow"] = ", ".join(SPARQL_METHODS + ("OPTIONS",))
            await answer(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class FollowBuilds:
    """Before each request, move the whole service to the store generation a finished build switched to
    (Service.refresh); a request sees one generation from start to end."""

    def __init__(self, app, service: Service):
        self.app, self.service = app, service

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.service.refresh()
        await self.app(scope, receive, send)
