"""The compare page (/compare?system=A&system=B, and its .csv/.json twins): the four compare-* canned queries
run for the chosen systems, laid out by hpckg.serve.compare."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import Response

from hpckg.errors import InputError, UnknownNameError
from hpckg.serve import compare, lists
from hpckg.serve.middleware import client_of
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response, respond
from hpckg.serve.workers import Job


@guarded
def answer(site: Site, request: Request) -> Response:
    """/compare?system=A&system=B (two to four; a search with ?q= to add more) and its .csv/.json twins:
    the four compare-* canned queries' rows laid out by hpckg.serve.compare."""
    ext = request.url.path.rpartition(".")[2] if "." in request.url.path else ""
    if ext not in ("", "csv", "json"):
        raise HttpError(404, "unknown-format", f"the comparison is served as HTML, .csv or .json, not .{ext}")
    views, client = site.service.views, client_of(request)
    text = (first(request.query_params, "q") or "").strip()[:200]
    hits = [h for h in site.service.prepared.search_index().search(text, 20)
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
    queries = {name: site.editor_url(name, params) for name in compare.QUERIES}
    rows = {name: lists.rows_from_results(json.loads(site.service.run(client, Job(
        site.service.canned()[name].bind(params), "json", "ttl")).body)) for name in compare.QUERIES}
    try:
        comparison = kept_comparison(site, slugs, rows)
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


def kept_comparison(site: Site, slugs: list[str], rows: dict[str, list[dict[str, object]]]) -> compare.Comparison:
    """The comparison of these systems, its chart drawn once per store generation; kept apart from the
    lists' rows (Site.kept), which any of thousands of comparisons would otherwise push out."""
    return site.kept(tuple(slugs), lambda: compare.compare(slugs, rows), comparisons=True)  # type: ignore[return-value]
