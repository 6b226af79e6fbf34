"""Statistics: every edition over time (/statistics), one edition's tables (/statistics/top500/EDITION[/TABLE]),
and one share table over the editions (/statistics/TABLE), with CSV and JSON twins (hpckg.serve.statistics)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from hpckg.serve import analytics, statistics, urls
from hpckg.serve.pages.lists import EDITION
from hpckg.serve.pages.site import Site
from hpckg.serve.responses import HttpError, first, guarded, html_response, redirect, respond
from hpckg.serve.sparql import accepted


@guarded
def index(site: Site, request: Request) -> Response:
    """/statistics: every edition over time (or the edition a form chose, ?edition=2025-06); .json twin."""
    edition = first(request.query_params, "edition")
    if edition:
        return redirect(urls.edition_statistics(edition))
    prepared = site.service.prepared
    figures = prepared.top500_figures()
    rows = statistics.over_time(prepared.edition_names(), figures[analytics.DEVELOPMENT],
                                figures[analytics.BY_COUNTRY], figures[analytics.BY_VENDOR])
    if request.url.path.endswith(".json"):
        return respond(200, statistics.json_bytes({"editions": rows}), "application/json")
    return html_response(statistics.index_page(rows, site.editor_url))


@guarded
def edition(site: Site, request: Request) -> Response:
    """/statistics/top500/EDITION (and .json: every table), /statistics/top500/EDITION/TABLE (and .csv/.json)."""
    edition, _, ext = request.path_params["edition"].partition(".")
    name = request.path_params.get("table")
    if name is not None:
        name, _, ext = name.partition(".")
    if not EDITION.fullmatch(edition):
        raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
    prepared = site.service.prepared
    editions = prepared.edition_names()
    if edition not in editions:
        return site.absent_edition(request, edition, editions, "statistics", ext)
    table = statistics.TABLES.get(name) if name is not None else None
    if name is not None and table is None:
        raise HttpError(404, "unknown-table", f"no table {name!r}; tables: {', '.join(statistics.TABLES)}")
    if not ext:  # content negotiation, as the lists do: Accept: text/csv or application/json
        preferred = next((t for t in accepted(request.headers.get("accept", ""))
                          if t in ("text/html", "text/csv", "application/json")), "text/html")
        ext = {"text/csv": "csv" if table else "", "application/json": "json"}.get(preferred, "")
    found = prepared.edition_statistics(edition)
    if ext == "csv" and table is not None:
        return respond(200, statistics.csv_bytes(table, found[table.name]), "text/csv",
                       {"Content-Disposition": f'inline; filename="{table.query}-{edition}.csv"'})
    if ext == "json":
        chosen = [table] if table else list(statistics.TABLES.values())
        documents = [statistics.table_document(edition, t, found[t.name],
                                               site.editor_url(t.query, {"edition": edition})) for t in chosen]
        return respond(200, statistics.json_bytes(documents[0] if table else {"edition": edition,
                                                                              "tables": documents}),
                       "application/json")
    if ext:
        raise HttpError(404, "unknown-format", "an edition's statistics are served as HTML or .json, a table "
                        f"also as .csv, not .{ext}")
    return html_response(statistics.edition_page(edition, found, editions, site.editor_url,
                                                 site.service.views.href, table))


@guarded
def trend(site: Site, request: Request) -> Response:
    """/statistics/TABLE (?measure=sharePercent|systemsPercent|systems), and its .csv/.json twins: a share
    table over the editions, from each edition's precomputed rows (those not computed yet are named)."""
    name, _, ext = request.path_params["table"].partition(".")
    table = statistics.TABLES.get(name)
    if table is None or table.ranking:
        shares = ", ".join(t.name for t in statistics.SHARES)
        raise HttpError(404, "unknown-table", f"no share table {name!r} over time; tables: {shares}")
    measure = first(request.query_params, "measure") or "sharePercent"
    if measure not in statistics.MEASURES:
        raise HttpError(400, "invalid-parameter", f"measure is one of {', '.join(statistics.MEASURES)}, "
                        f"not {measure!r}")
    prepared = site.service.prepared
    editions = prepared.edition_names()
    computed = {e: prepared.ready(f"statistics:{e}") for e in editions}
    if editions and computed[editions[0]] is None:  # the newest, at least (seconds)
        computed[editions[0]] = prepared.edition_statistics(editions[0])
    found = {e: done[table.name] for e, done in computed.items() if isinstance(done, dict)}
    pending = [e for e in editions if e not in found]
    if ext == "csv":
        keys = ("edition", *statistics.columns(table))
        return respond(200, statistics.rows_csv(keys, statistics.trend_rows(found)), "text/csv",
                       {"Content-Disposition": f'inline; filename="{table.query}-over-time.csv"'})
    if ext == "json":
        return respond(200, statistics.json_bytes({
            "table": table.name, "title": table.title, "query": site.editor_url(table.query, {}),
            "pending": pending, "rows": statistics.trend_rows(found)}), "application/json")
    if ext:
        raise HttpError(404, "unknown-format", f"a table over time is served as HTML, .csv or .json, not .{ext}")
    absent = statistics.absent_editions(editions)
    return html_response(statistics.trend_page(statistics.trend(table, found, measure, pending, absent),
                                               site.editor_url, site.service.views.href))
