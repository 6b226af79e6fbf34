"""The Contribute page (/contribute): a Turtle draft or a small form reviewed as `hpckg check` reviews a file; the
handlers and their limits are hpckg.serve.contribute's ContributePage, one per Site."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve.pages.site import Site


async def form(site: Site, request: Request) -> Response:
    return await site.contribute.get(request)


async def review(site: Site, request: Request) -> Response:
    return await site.contribute.post(request)
