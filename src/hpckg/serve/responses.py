"""The responses every route of `hpckg serve` answers with: the common headers (CORS, Vary), HTML pages under the
site's Content-Security-Policy, redirects, and HttpError, an error answered to the client in words that say
what to do (the app turns it into the one error shape). Kept apart from hpckg.serve.app so the modules of
routes it mounts (hpckg.serve.contribute) use them without importing the app.
"""

from __future__ import annotations

from starlette.responses import Response

from hpckg.page.render import content_security_policy
from hpckg.serve.views import Html

INTERNAL = "internal error; the server's log has the details"  # no exception text goes to clients
EXPOSED = "Link, Retry-After, Location"
COMMON_HEADERS = {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED, "Vary": "Accept"}
CONTENT_SECURITY_POLICY = content_security_policy()
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


def redirect(location: str, status: int = 303) -> Response:
    return respond(status, b"", "text/plain", {"Location": location})
