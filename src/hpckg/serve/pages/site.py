"""What every page of the website works with: the Service (its store, views, precomputed figures, query
workers), answers kept per store generation (the lists' rows, drawn charts, comparisons), and the few helpers two
pages share. A page module receives the Site with each request (hpckg.serve.pages.PAGES)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve import statistics, urls
from hpckg.serve.contribute import ContributePage
from hpckg.serve.middleware import client_of
from hpckg.serve.responses import HttpError, html_response
from hpckg.serve.service import Service
from hpckg.serve.sparql import accepted

KEPT = 32  # answers kept per server: a list's rows (an edition is ~500 rows), a system's chart
COMPARISONS_KEPT = 64  # compare pages (their charts drawn) kept apart, which thousands would push the rest out


class Site:
    """The website's pages bound to one Service."""

    def __init__(self, service: Service):
        self.service = service
        self.rows: OrderedDict[tuple, object] = OrderedDict()  # see kept
        self.comparisons: OrderedDict[tuple, object] = OrderedDict()
        self.lock = threading.Lock()
        self.contribute = ContributePage(service, client_of)  # its per-client token buckets live as long as the site

    def kept(self, key: tuple, compute: Callable[[], object], *, comparisons: bool = False) -> object:
        """What `compute` answers for `key` in this store generation, computed once and kept (least recently
        computed first out)."""
        found = self.found(key, comparisons=comparisons)
        if found is None:
            found = compute()
            kept = self.comparisons if comparisons else self.rows
            with self.lock:
                kept[(self.service.pool.generation, *key)] = found
                while len(kept) > (COMPARISONS_KEPT if comparisons else KEPT):
                    kept.popitem(last=False)
        return found

    def found(self, key: tuple, *, comparisons: bool = False) -> object | None:
        """What is kept for `key` in this store generation, or None."""
        with self.lock:
            return (self.comparisons if comparisons else self.rows).get((self.service.pool.generation, *key))

    def editor_url(self, name: str, params: dict[str, str]) -> str:
        """The query editor holding canned query `name` with these parameters bound."""
        return urls.query_editor(self.service.canned()[name].bind(params))

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
