"""The home page (/): what the dataset holds in words, the newest list's top ten, what the latest build
brought, where to go next; its figures and structured data are the generation's (hpckg.serve.front)."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve.pages.site import Site
from hpckg.serve.precompute import HOST_MARK
from hpckg.serve.responses import absolute, guarded, html_response


@guarded
def answer(site: Site, request: Request) -> Response:
    service, headers = site.service, request.headers
    publication, prepared = service.publication, service.prepared
    releases = publication.release_names()
    marked = prepared.home_documents()
    here = absolute(headers, "")
    structured = [json.loads(json.dumps(d).replace(HOST_MARK, here)) if isinstance(d, dict)
                  else d.replace(HOST_MARK.encode(), here.encode()) for d in marked]  # type: ignore[union-attr]
    return html_response(service.views.home(prepared.front(), releases[-1] if releases else None,
                                            structured))  # type: ignore[arg-type]
