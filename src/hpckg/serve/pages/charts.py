"""The charts page (/charts): the whole-list TOP500 and Epoch AI charts, drawn once per store generation
(hpckg.serve.precompute, hpckg.serve.charts), with and without the leads."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve import lists
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response


@guarded
def answer(site: Site, request: Request) -> Response:
    # The tier switch: ?tier=reported leaves out the clusters whose accelerator count rests on a lead (every
    # TOP500 figure is a reported one, read from the list's own file, so those charts do not change).
    min_tier = first(request.query_params, "tier") or "lead"
    if min_tier not in lists.TIERS:
        raise HttpError(400, "invalid-parameter", f"tier is one of {', '.join(lists.TIERS)}, not {min_tier!r}")
    # Drawn from figures precomputed per store generation (hpckg.serve.precompute), each equal to the answer
    # of the canned query its chart links to; the queries themselves run over the endpoint's time limit.
    drawn, epoch = site.service.prepared.charts(min_tier)
    return html_response(site.service.views.charts_page(drawn, epoch, min_tier))
