"""The responses every route of `hpckg serve` answers with: the common headers (CORS, Vary), HTML pages under the
site's Content-Security-Policy, redirects, and HttpError, an error answered to the client in words that say
what to do (the app turns it into the one error shape). Kept apart from hpckg.serve.app so the modules of
routes it mounts (hpckg.serve.endpoint, hpckg.serve.pages, hpckg.serve.contribute) use them without importing
the app; with them the few request helpers every route uses (`first`, `absolute`, `guarded`).
"""

from __future__ import annotations

import functools
import html
import logging
import re
from collections.abc import Callable

from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import Response

from hpckg.page.render import content_security_policy
from hpckg.serve.sparql import wants_html
from hpckg.serve.views import Html, Views, json_dumps

logger = logging.getLogger("hpckg.serve.app")

INTERNAL = "internal error; the server's log has the details"  # no exception text goes to clients
EXPOSED = "Link, Retry-After, Location"
COMMON_HEADERS = {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED, "Vary": "Accept"}
CONTENT_SECURITY_POLICY = content_security_policy()
# A Host header: a name or an address, with a port; anything else is refused before it reaches a URL.
HOST = re.compile(r"(?:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")
TEXTUAL = ("text/", "application/json", "application/sparql-results+json", "application/ld+json")


class HttpError(Exception):
    """An error answered to the client: status, a short code and a message saying what to do."""

    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
                 extra: dict | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}
        self.extra = extra or {}


def respond(status: int, body: bytes, media_type: str, headers: dict[str, str] | None = None) -> Response:
    """A response with this server's common headers (CORS for clients that send no Origin, Vary)."""
    if media_type.startswith(TEXTUAL) and "charset" not in media_type:
        media_type += "; charset=utf-8"
    return Response(body, status, {**COMMON_HEADERS, **headers} if headers else COMMON_HEADERS, media_type)


def html_response(page: Html, status: int = 200) -> Response:
    headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff"}
    if page.alternates:
        headers["Link"] = page.link_header()
    return respond(status, page.render().encode("utf-8"), "text/html", headers)


# A chart served as an image: its inline style, nothing else (no script runs in an image, none may be fetched).
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


def svg_response(svg: str) -> Response:
    """A chart drawn on its own request (hpckg.serve.charts.standalone), shown by an <img> of its page."""
    return respond(200, svg.encode("utf-8"), "image/svg+xml", {"Content-Security-Policy": SVG_POLICY})


def redirect(location: str, status: int = 303) -> Response:
    return respond(status, b"", "text/plain", {"Location": location})


def error_response(views: Views, error: HttpError, accept: str) -> Response:
    """An error in the one error shape: an HTML page for a browser, else {"error": {...}} as JSON."""
    if wants_html(accept):
        return html_response(views.error(error.status, error.code, error.message), error.status)
    document = {"error": {"status": error.status, "code": error.code, "message": error.message, **error.extra}}
    return respond(error.status, json_dumps(document), "application/json", error.headers)


def error_box(error: HttpError) -> str:
    """An error shown inside a page (a query's answer on the editor or a canned query's page)."""
    return f'<div class="error"><p>{error.status}: {html.escape(error.code)}. {html.escape(error.message)}</p></div>'


def first(params: QueryParams, name: str) -> str | None:
    """The first value of a query parameter (Starlette's .get gives the last)."""
    values = params.getlist(name)
    return values[0] if values else None


def absolute(headers: Headers, path: str) -> str:
    """This server's URL for `path`, from the Host header: the base IRI of queries and updates, so it
    must be a host and nothing else (400 bad-host)."""
    host = headers.get("host") or "127.0.0.1"
    if not HOST.fullmatch(host):
        raise HttpError(400, "bad-host", "the Host header is not a host name or address (with a port)")
    return f"http://{host}{path}"


def guarded(endpoint: Callable[..., Response]) -> Callable[..., Response]:
    """Answer an unexpected exception of a sync endpoint in the error shape (500), logged with its traceback,
    instead of letting it reach Starlette's server-error middleware. The request is the last argument."""

    @functools.wraps(endpoint)
    def wrapper(*args: object) -> Response:
        try:
            return endpoint(*args)
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            request = args[-1]
            assert isinstance(request, Request)
            logger.exception("internal error answering %s %s", request.method, request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None

    return wrapper
