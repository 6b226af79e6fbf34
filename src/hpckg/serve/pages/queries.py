"""The canned queries: their index (/queries) and each one's page (/queries/NAME, its parameters from the URL,
checked against their declared types and bound as RDF terms) with its CSV/JSON/TSV/XML downloads; and the
vocabulary page (/vocab), the ontology's terms."""

from __future__ import annotations

import html
import json

from starlette.requests import Request
from starlette.responses import Response

from hpckg.errors import InputError
from hpckg.serve.endpoint import results_html
from hpckg.serve.middleware import client_of
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, error_box, first, guarded, html_response, respond
from hpckg.serve.workers import Job


@guarded
def index(site: Site, request: Request) -> Response:
    return html_response(site.service.views.queries_page(list(site.service.canned().values())))


@guarded
def canned(site: Site, request: Request) -> Response:
    ref = request.path_params["ref"]
    name, _, ext = ref.partition(".")
    canned = site.service.canned()
    query = canned.get(name)
    if query is None:
        raise HttpError(404, "unknown-query",
                        f"no canned query named {name!r}; available: {', '.join(canned)}")
    client = client_of(request)
    params = {key: first(request.query_params, key) or "" for key in request.query_params}
    try:
        # Values are checked against the parameter's declared type and bound as RDF terms.
        text = query.bind(params)
    except InputError as error:
        raise HttpError(400, "invalid-parameter", str(error)) from None
    service = site.service
    defaults = not params  # the answer every link to the query shows: kept per generation (canned_answer)
    if ext:
        if ext not in ("csv", "json", "tsv", "xml"):
            raise HttpError(404, "unknown-format", f"{ref}: download a canned query as .csv or .json")
        answer = (service.canned_answer(client, service.prepared, name, text, ext) if defaults
                  else service.run(client, Job(text, ext, "ttl")))
        filename = f"{name}.{ext if answer.form != 'triples' else 'ttl'}"
        return respond(200, answer.body, answer.media_type,
                       {"Content-Disposition": f'inline; filename="{filename}"'})
    try:
        if defaults:
            answer = service.canned_answer(client, service.prepared, name, text, "json")
            results = (service.views.results(json.loads(answer.body)) if answer.form != "triples"
                       else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")
        else:
            results = results_html(site.service, client, text)
    except HttpError as error:
        if error.status == 429:
            raise
        results = error_box(error)
    return html_response(site.service.views.canned(query, results, params))


@guarded
def vocab(site: Site, request: Request) -> Response:
    return html_response(site.service.views.vocab(site.service.settings.project.ontology_dir))
