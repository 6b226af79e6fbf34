"""The compare page (/compare?system=A&system=B, its .csv/.json twins and its chart, /compare.svg): the four
compare-* canned queries run for the chosen systems, laid out by hpckg.serve.compare."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import Response

from hpckg.errors import InputError, UnknownNameError
from hpckg.serve import compare, lists
from hpckg.serve.middleware import client_of
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response, respond, svg_response
from hpckg.serve.workers import Job


@guarded
def answer(site: Site, request: Request) -> Response:
    """/compare?system=A&system=B (two to four; a search with ?q= to add more) and its .csv/.json twins:
    the four compare-* canned queries' rows laid out by hpckg.serve.compare."""
    ext = request.url.path.rpartition(".")[2] if "." in request.url.path else ""
    if ext not in ("", "csv", "json", "svg"):
        raise HttpError(404, "unknown-format", f"the comparison is served as HTML, .csv or .json (its chart as .svg), "
                                               f"not .{ext}")
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
    try:
        if ext == "svg":
            return chart(site, slugs, params, client)
        comparison = kept_comparison(site, slugs, params, client)
    except UnknownNameError as error:
        if ext:
            raise HttpError(404, "unknown-system", str(error)) from None
        return html_response(views.compare_page(None, slugs, text, hits, str(error), {}), 404)
    queries = {name: site.editor_url(name, params) for name in compare.QUERIES}
    if ext == "csv":
        return respond(200, compare.csv_bytes(comparison), "text/csv",
                       {"Content-Disposition": 'inline; filename="compare.csv"'})
    if ext == "json":
        return respond(200, compare.json_bytes(comparison, queries), "application/json")
    return html_response(views.compare_page(comparison, slugs, text, hits, None, queries))


def kept_comparison(site: Site, slugs: list[str], params: dict[str, str], client: str) -> compare.Comparison:
    """The comparison of these systems, its queries run once per store generation; kept apart from the lists'
    rows (Site.kept), which any of thousands of comparisons would otherwise push out."""
    return site.kept(tuple(slugs), lambda: comparison(site, slugs, params, client),  # type: ignore[return-value]
                     comparisons=True)


def comparison(site: Site, slugs: list[str], params: dict[str, str], client: str) -> compare.Comparison:
    """The four queries' rows laid out (the chart is an image, drawn by `chart` when the browser asks)."""
    return compare.compare(slugs, {name: rows_of(site, name, params, client) for name in compare.QUERIES})


def chart(site: Site, slugs: list[str], params: dict[str, str], client: str) -> Response:
    """/compare.svg?system=A&system=B: the comparison's history chart, an SVG document of its own, drawn once
    per store generation; 404 when none of the systems was listed."""
    svg = site.kept(("svg", *slugs), lambda: compare.history_svg(slugs, {  # type: ignore[arg-type]
        name: rows_of(site, name, params, client) for name in ("compare-systems", "compare-history")}),
        comparisons=True)
    if svg is None:
        raise HttpError(404, "not-listed", "none of these systems was listed in the TOP500: no chart to draw")
    return svg_response(svg)


def rows_of(site: Site, name: str, params: dict[str, str], client: str) -> list[dict[str, object]]:
    """A compare-* canned query's rows for these systems, answered by a query worker."""
    return lists.rows_from_results(json.loads(site.service.run(client, Job(
        site.service.canned()[name].bind(params), "json", "ttl")).body))
