"""Entities: an entity's IRI (/id/KIND/SLUG: its description by content negotiation, a browser sent on to its page)
and its page (/page/KIND/SLUG, read by hpckg.page and rendered by the Views), with its raw twins
(/id/KIND/SLUG.ttl, .jsonld, .json ...). A system's page carries its TOP500 history chart, drawn while the page
reads the rest."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from hpckg.formats import RDF_FORMATS, rdf_format_for_media_type
from hpckg.namespaces import ENTITY_KINDS
from hpckg.query import format_result
from hpckg.serve import charts, lists, urls
from hpckg.serve.entities import describe, own_triples, summary
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, guarded, html_response, redirect, respond, svg_response
from hpckg.serve.sparql import accepted, serialize_triples, wants_html
from hpckg.serve.views import json_dumps

# Slugs are ASCII (hpckg.names): a path segment with anything else (NUL, undecodable bytes, IRI-illegal
# characters) names nothing here, and must not reach a query.
SLUG = re.compile(r"[A-Za-z0-9_~-]+")


@guarded
def by_iri(site: Site, request: Request) -> Response:
    return entity(site, request, "id")


@guarded
def page(site: Site, request: Request) -> Response:
    return entity(site, request, "page")


def entity(site: Site, request: Request, route: str) -> Response:
    kind, ref = request.path_params["kind"], request.path_params["ref"]
    slug, _, ext = ref.partition(".")
    if kind not in ENTITY_KINDS:
        raise HttpError(404, "unknown-kind", f"no entity kind {kind!r}; kinds: {', '.join(ENTITY_KINDS)}")
    service = site.service
    iri = f"{service.settings.base_iri}id/{kind}/{slug}"
    if not SLUG.fullmatch(slug):
        raise HttpError(404, "unknown-entity", f"nothing is known about {iri!r}: not a slug of this server")
    accept = request.headers.get("accept", "")
    if route == "page" or (not ext and wants_html(accept)):
        if route == "id":
            if not service.views.exists(iri):
                raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
            return redirect(urls.page(kind, slug))
        history = system_history(site, slug) if kind == "system" else None
        jsonld = serialize_triples(own_triples(service.store, iri), RDF_FORMATS["jsonld"])
        page = service.views.entity(kind, slug, iri, jsonld)
        if page is None:
            raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
        if history is not None:
            page.context["history"] = history(page.context["page"].label)
        return html_response(page)
    triples = describe(service.store, iri)
    if not triples:
        raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
    links = ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in (
        (urls.page(kind, slug), "text/html"),
        *((u, media_for_twin(s)) for s, u in urls.twins(kind, slug).items())))
    if ext == "json":
        return respond(200, json_dumps(summary(service.store, iri, service.settings.base_iri)),
                       "application/json", {"Link": links})
    if ext:
        if ext not in urls.TWIN_SUFFIXES:
            raise HttpError(404, "unknown-format",
                            f"no .{ext} twin; available: {', '.join(urls.TWIN_SUFFIXES)}")
        fmt = RDF_FORMATS[urls.TWIN_SUFFIXES[ext]]
    else:
        fmt = next((f for f in map(rdf_format_for_media_type, accepted(accept)) if f), RDF_FORMATS["ttl"])
    return respond(200, serialize_triples(triples, fmt), fmt.media_type, {"Link": links})


def system_history(site: Site, slug: str) -> Callable[[str], charts.Chart | None]:
    """The chart of a system's TOP500 editions (its rows read; the image drawn when the browser asks for it,
    `history`: drawing, 100-200 ms, was most of a first visit's time); call
    the result with the system's name for the chart, or None when it was never listed."""
    key = ("chart", f"system-{slug}")
    found = site.found(key)
    if found is not None:
        return lambda name: found  # type: ignore[return-value]
    rows = editions_of(site, slug)
    if not rows:
        return lambda name: None
    return lambda name: site.kept(key, lambda: charts.system_history(  # type: ignore[return-value]
        rows, name, src=urls.system_chart(slug), query_url=site.editor_url("system-editions", {"system": slug}),
        imported=site.service.views.imported_editions()))


@guarded
def history(site: Site, request: Request) -> Response:
    """/page/system/{slug}/history.svg: the image of a system's TOP500 history chart, drawn once per store
    generation; 404 for a system never listed."""
    slug = request.path_params["ref"]
    if not SLUG.fullmatch(slug):
        raise HttpError(404, "unknown-entity", f"{slug!r} is not a slug of this server")
    key = ("svg", f"system-{slug}")
    svg = site.found(key)
    if svg is None:
        rows = editions_of(site, slug)
        if not rows:
            raise HttpError(404, "not-listed", f"no system {slug!r} was listed in the TOP500: no chart to draw")
        svg = site.kept(key, lambda: charts.standalone(charts.vega_svg(charts.system_history_spec(rows))))
    return svg_response(svg)  # type: ignore[arg-type]


def editions_of(site: Site, slug: str) -> list[dict[str, object]]:
    """system-editions' rows for a system, read on the page store in this process, like the rest of the page:
    entity pages need no query worker, so they are answered while slow queries hold every worker."""
    text = site.service.canned()["system-editions"].bind({"system": slug})
    return lists.rows_from_results(json.loads(format_result(site.service.views.store.query(text, prefixes=False),
                                                            "json")))


def media_for_twin(suffix: str) -> str:
    name = urls.TWIN_SUFFIXES[suffix]
    return "application/json" if name == "json" else RDF_FORMATS[name].media_type
