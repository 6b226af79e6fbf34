"""Validators and freshness for the website's pages and their CSV/JSON twins: an ETag named by the store
generation and the page, Cache-Control, and 304 Not Modified for a request that already holds the page.

A page's content is a function of the data it reads (one store generation, and on a writable store its update
revision), the URL, the Accept header (HTML or a twin), the Host (absolute links in the structured data) and
the releases folder; the ETag is a digest of exactly those. So a request whose If-None-Match names it is
answered 304 before any page code runs: a browser revalidating the home page costs a digest, and after a
restart too (the tag names the generation, not the process). Only 200 answers carry a tag, and only for the
paths listed here: the SPARQL protocol (a query may call RAND or NOW), the query editor with a query, the
contribution form and files served with their own validators (dumps, releases) are left alone.

For the same reason a tagged answer can be kept whole: the last RESPONSES_BYTES of them (each at most
RESPONSE_MAX) are answered again from memory under their tag, so a page's second visit costs no reading and
no rendering (a system page reads some twenty queries and renders for 0.3-0.5 s on the full graph).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hpckg.serve import urls

# Paths whose answers are pages of the store's data (prefixes; "/" only exactly).
PAGE_PREFIXES = ("/page/", "/id/", urls.LISTS, urls.CHARTS, urls.COMPARE, urls.SEARCH, urls.QUERIES, urls.VOCAB,
                 urls.STATISTICS, urls.VOID)
EDITORS = (urls.SPARQL, urls.QUERY_EDITOR)  # pages only without a query string (with one they run a query)
TAGGED_TYPES = ("text/html", "text/csv", "application/json", "application/ld+json", "text/turtle",
                "application/n-triples", "application/rdf+xml", "application/sparql-results+json",
                "image/svg+xml")  # a page's chart, drawn on its own request
READ_ONLY_FRESHNESS = b"public, max-age=300"  # a build replaces the data at most every few minutes
WRITABLE_FRESHNESS = b"no-cache"  # SPARQL Update may change it any time: revalidate (a cheap 304) each time
RESPONSES_BYTES = 64 << 20
RESPONSE_MAX = 4 << 20


class Responses:
    """Whole tagged answers (status 200, headers, body) by tag, least recently used out past `capacity`."""

    def __init__(self, capacity: int = RESPONSES_BYTES):
        self.capacity = capacity
        self.size = 0
        self._entries: OrderedDict[bytes, tuple[list[tuple[bytes, bytes]], bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, tag: bytes) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        with self._lock:
            found = self._entries.get(tag)
            if found is not None:
                self._entries.move_to_end(tag)
            return found

    def put(self, tag: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        if len(body) > min(RESPONSE_MAX, self.capacity):
            return
        with self._lock:
            old = self._entries.pop(tag, None)
            if old is not None:
                self.size -= len(old[1])
            self._entries[tag] = (headers, body)
            self.size += len(body)
            while self.size > self.capacity:
                self.size -= len(self._entries.popitem(last=False)[1][1])


def is_page(path: str, query_string: bytes) -> bool:
    if path == urls.HOME:
        return True
    if path in EDITORS:
        return not query_string
    return path.startswith(PAGE_PREFIXES)


class PageCaching:
    """ASGI middleware: ETag, Cache-Control and Vary on pages; 304 when If-None-Match names the page's tag.
    `state()` says what the data is now: the store generation's identity, its update revision, the release
    names, and whether the store is writable."""

    def __init__(self, app: ASGIApp, state: Callable[[], tuple[str, int, tuple[str, ...], bool]]):
        self.app = app
        self.state = state
        self.responses = Responses()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD")
                or not is_page(scope["path"], scope["query_string"])):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])  # the last of repeated headers: enough for these three
        generation, revision, releases, writable = self.state()
        key = b"\n".join([generation.encode(), str(revision).encode(), ",".join(releases).encode(),
                          scope["path"].encode("utf-8", "surrogateescape"), scope["query_string"],
                          headers.get(b"accept", b""), headers.get(b"host", b"")])
        tag = b'W/"' + hashlib.sha256(key).hexdigest()[:32].encode() + b'"'
        freshness = WRITABLE_FRESHNESS if writable else READ_ONLY_FRESHNESS
        if tag in _tags(headers.get(b"if-none-match", b"")):
            await send({"type": "http.response.start", "status": 304, "headers": [
                (b"etag", tag), (b"cache-control", freshness), (b"vary", b"Accept, Accept-Encoding")]})
            await send({"type": "http.response.body", "body": b""})
            return

        kept = self.responses.get(tag)
        if kept is not None:
            headers_sent, body = kept
            await send({"type": "http.response.start", "status": 200, "headers": headers_sent})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
            return
        started: list[list[tuple[bytes, bytes]]] = []  # the tagged answer's headers, while it is sent
        parts: list[bytes] = []

        async def tagging(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                raw = list(message.get("headers", ()))
                names = {name.lower() for name, _ in raw}
                media = next((v for n, v in raw if n.lower() == b"content-type"), b"").split(b";")[0].strip()
                if media.decode("latin-1") in TAGGED_TYPES and b"etag" not in names:
                    raw.append((b"etag", tag))
                    if b"cache-control" not in names:
                        raw.append((b"cache-control", freshness))
                    if not any(n.lower() == b"vary" and b"accept" in v.lower().split(b", ") for n, v in raw):
                        raw.append((b"vary", b"Accept"))
                    message = {**message, "headers": raw}
                    started.append(raw)
            elif message["type"] == "http.response.body" and started and scope["method"] == "GET":
                parts.append(message.get("body", b""))
                if sum(map(len, parts)) > RESPONSE_MAX:
                    started.clear()  # too big to keep: sent as it comes
                    parts.clear()
                elif not message.get("more_body", False):
                    self.responses.put(tag, started[0], b"".join(parts))
            await send(message)

        await self.app(scope, receive, tagging)


def _tags(header: bytes) -> set[bytes]:
    """The entity tags of an If-None-Match header; a weak comparison (W/ or not), as RFC 9110 has for GET."""
    tags = set()
    for part in header.split(b","):
        part = part.strip()
        if part:
            tags.add(part if part.startswith(b"W/") else b"W/" + part)
    return tags
