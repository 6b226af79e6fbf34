"""The website: every page is one module here (its paths, what it reads, which template it fills), registered in
PAGES below; what all pages share is the Site (hpckg.serve.pages.site). The SPARQL service's routes are
hpckg.serve.endpoint's; hpckg.serve.app mounts both.

A page module's handler takes the Site and the request and returns a Response; it reads through the Service (its
store, Views, the generation's precomputed figures) and renders a template of hpckg/templates/ through the Views.
A new page is its module, its template and a line in PAGES (its paths from hpckg.serve.urls, the one URL builder).
Order matters where two paths could match: Starlette takes the first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from starlette.routing import Route

from hpckg.serve import urls
from hpckg.serve.pages import (
    charts,
    compare,
    contribute,
    entities,
    home,
    lists,
    queries,
    search,
    statistics,
)
from hpckg.serve.pages.site import Site

READ = ("GET", "HEAD")


class Page(NamedTuple):
    path: str  # a Starlette path template
    answer: Callable  # (site, request) -> Response, sync (run in the thread pool) or async
    methods: tuple[str, ...] = READ


PAGES: tuple[Page, ...] = (
    Page(urls.HOME, home.answer),
    Page(urls.QUERIES, queries.index),
    Page(urls.QUERIES + "/{ref}", queries.canned),
    Page(urls.VOCAB, queries.vocab),
    Page(urls.LISTS, lists.index),
    Page(urls.LISTS + "/top500/{edition}", lists.top500),
    Page(urls.LISTS + "/{name}", lists.named),
    Page(urls.SEARCH, search.answer),
    Page(urls.SEARCH + ".json", search.answer),
    Page(urls.CHARTS, charts.answer),
    Page(urls.COMPARE, compare.answer),
    Page(urls.COMPARE + ".{ext}", compare.answer),
    Page(urls.STATISTICS, statistics.index),
    Page(urls.STATISTICS + ".json", statistics.index),
    Page(urls.STATISTICS + "/top500/{edition}", statistics.edition),
    Page(urls.STATISTICS + "/top500/{edition}/{table}", statistics.edition),
    Page(urls.STATISTICS + "/{table}", statistics.trend),
    Page(urls.CONTRIBUTE, contribute.form),
    Page(urls.CONTRIBUTE, contribute.review, ("POST",)),
    Page("/id/{kind}/{ref}", entities.by_iri),
    Page("/page/system/{ref}/history.svg", entities.history),  # urls.system_chart
    Page("/page/{kind}/{ref}", entities.page),
)


def routes(site: Site) -> list[Route]:
    """Every page's routes, bound to the site (Starlette sees through the partial: sync handlers still run in
    its thread pool, async ones on the event loop)."""
    return [Route(page.path, functools.partial(page.answer, site), methods=list(page.methods)) for page in PAGES]
