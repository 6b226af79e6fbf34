"""The lists: the TOP500 editions (/lists), one edition (/lists/top500/EDITION), Epoch AI's clusters and the sites,
organisations and parts lists (/lists/NAME), each sorted, filtered and paged by the URL (hpckg.serve.lists)
with CSV and JSON twins."""

from __future__ import annotations

import json
import re

from starlette.requests import Request
from starlette.responses import Response

from hpckg.errors import InputError
from hpckg.serve import lists, urls
from hpckg.serve.middleware import client_of
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response, redirect, respond
from hpckg.serve.sparql import accepted
from hpckg.serve.workers import Job

EDITION = re.compile(r"\d{4}-\d{2}")


@guarded
def index(site: Site, request: Request) -> Response:
    # The generation's editions (Prepared.edition_names, the rows of top500-edition-names), not a worker's
    # run of that query: over a cold worker it took 0.3-1.3 s of a first visit on the full graph.
    rows = [{"edition": edition} for edition in site.service.prepared.edition_names()]
    return html_response(site.service.views.lists_index(rows))  # type: ignore[arg-type]


@guarded
def named(site: Site, request: Request) -> Response:
    """/lists/epoch-clusters (and its .csv/.json twins); /lists/top500 is the editions, or the edition
    a form chose (?edition=2025-06)."""
    name, _, ext = request.path_params["name"].partition(".")
    if name == "top500" and not ext:
        edition = first(request.query_params, "edition")
        return redirect(urls.top500_list(edition)) if edition else index(site, request)
    if name in lists.ENTITY_LISTS:
        spec = lists.ENTITY_LISTS[name]
        # Precomputed with the generation (hpckg.serve.precompute): the sites list took 1.4 s on a first visit.
        return list_response(site, request, spec, ext, {}, urls.entity_list(name), spec.title,
                             rows=site.service.prepared.canned_rows(spec.query))
    if name != lists.EPOCH_CLUSTERS.name:
        raise HttpError(404, "unknown-list", f"no list named {name!r}; lists: top500/EDITION, epoch-clusters, "
                        + ", ".join(lists.ENTITY_LISTS))
    return list_response(site, request, lists.EPOCH_CLUSTERS, ext, {}, urls.epoch_clusters(),
                         lists.EPOCH_CLUSTERS.title,
                         rows=site.service.prepared.canned_rows(lists.EPOCH_CLUSTERS.query))


@guarded
def top500(site: Site, request: Request) -> Response:
    edition, _, ext = request.path_params["edition"].partition(".")
    if not EDITION.fullmatch(edition):
        raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
    editions = site.service.prepared.edition_names()
    if edition not in editions:
        return site.absent_edition(request, edition, editions, "list", ext)
    # The edition's claims read in one pattern and pivoted (hpckg.serve.editions): the same rows as the
    # canned query top500-list, which the page links to, in a second on the full graph.
    rows = site.service.prepared.edition(edition)
    return list_response(site, request, lists.TOP500, ext, {"edition": edition}, urls.top500_list(edition),
                         f"TOP500, {edition}", editions, rows)


def query_rows(site: Site, client: str, name: str, params: dict[str, str]) -> list[dict[str, object]]:
    """The rows a canned query answers, its declared parameters bound (checked against their types);
    kept per store generation, so sorting or paging a list again does not run its query again."""
    text = site.service.canned()[name].bind(params)
    return site.kept(("rows", text), lambda: lists.rows_from_results(  # type: ignore[return-value]
        json.loads(site.service.run(client, Job(text, "json", "ttl")).body)))


def list_response(site: Site, request: Request, spec: lists.ListSpec, ext: str, query_params: dict[str, str],
                  base: str, heading: str, editions: list[str] | None = None,
                  rows: list[dict[str, object]] | None = None) -> Response:
    if rows is None:
        rows = query_rows(site, client_of(request), spec.query, query_params)
    params = {key: first(request.query_params, key) or "" for key in request.query_params}
    try:
        page = lists.select(spec, rows, params, query_params)
    except InputError as error:
        raise HttpError(400, "invalid-parameter", str(error)) from None
    query_url = urls.query_editor(site.service.canned()[spec.query].bind(query_params))
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
    return html_response(site.service.views.list_page(page, base, heading, twins, query_url, editions,
                                                      machines=site.service.prepared.machines()))
