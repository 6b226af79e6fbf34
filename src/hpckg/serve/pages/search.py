"""Search (/search?q=TEXT, and /search.json): systems, sites, organisations, parts and countries by any of their
names, over the generation's search index (hpckg.serve.search)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response, respond
from hpckg.serve.sparql import wants_html
from hpckg.serve.views import json_dumps


@guarded
def answer(site: Site, request: Request) -> Response:
    """/search?q=TEXT as a page, /search.json?q=TEXT (or Accept: application/json) as JSON."""
    text = (first(request.query_params, "q") or "").strip()
    limit = first(request.query_params, "limit") or "20"
    if not limit.isdigit() or not 0 < int(limit) <= 100:
        raise HttpError(400, "invalid-parameter", f"limit is a whole number from 1 to 100, not {limit!r}")
    views = site.service.views
    index = site.service.prepared.search_index()
    hits = index.search(text, int(limit)) if text else []
    # a typo: the hits are of the text with its unknown words replaced, and the answer says which
    searched = index.suggest(text) if hits and hits[0].match == "close" else None
    accept = request.headers.get("accept", "")
    if request.url.path.endswith(".json") or (not wants_html(accept) and "application/json" in accept):
        document = {"query": text, "searched": searched or text, "count": len(hits), "results": [
            {"iri": h.entity.iri, "type": h.entity.kind, "label": h.entity.label, "matched": h.name,
             "match": h.match, "page": views.href(h.entity.iri), "also": list(h.also)} for h in hits]}
        return respond(200, json_dumps(document), "application/json")
    return html_response(views.search_page(text, hits, searched))
