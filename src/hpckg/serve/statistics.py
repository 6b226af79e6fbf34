"""The website's statistics of a TOP500 edition, as top500.org gives them: the edition's share by country, vendor
at build, vendor parent today, segment, processor family and model, accelerator, interconnect family and model
(entries and Σ Rmax, each as a share), and its entries ranked by energy efficiency (GF/W, the Green500's
measure) and by HPCG where its file has those columns.

Each table is the answer of one canned query (queries/top500-edition-by-*.rq, top500-green500.rq,
top500-hpcg.rq), its edition bound as a parameter: the query is the table's definition, linked as "the SPARQL
behind this", and its file name the table's identifier everywhere (URL, CSV/JSON twin, the editor). One query
per table over the edition's own claims (a second or less on the full graph), run once per store generation
(hpckg.serve.precompute) rather than per visit.

The editions top500.org has published but the configured data lacks (2022-11 and 2023-11 among the shared
files) are named here too (`absent_editions`), so the lists and statistics say so instead of skipping them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable
from dataclasses import dataclass

from hpckg.serve import analytics, urls
from hpckg.serve.lists import TIERS
from hpckg.serve.views import Html

FIRST_EDITION = "1993-06"  # the TOP500's first list; one in June and one in November every year since


@dataclass(frozen=True)
class Table:
    """A table of an edition's statistics: the canned query answering it, how it is headed, and the heading
    of its first column (what it counts by)."""

    query: str
    title: str
    by: str
    ranking: bool = False  # a ranking of entries (Green500, HPCG) rather than a share by category

    @property
    def name(self) -> str:
        """The table's short name in URLs: the query's name after its family prefix."""
        return self.query.removeprefix("top500-edition-by-").removeprefix("top500-")


SHARES = (
    Table("top500-edition-by-country", "Countries", "Country"),
    Table("top500-edition-by-vendor", "Vendors at build", "Vendor at build"),
    Table("top500-edition-by-vendor-parent", "Vendors today (parent company)", "Vendor today"),
    Table("top500-edition-by-segment", "Segments", "Segment"),
    Table("top500-edition-by-processor-family", "Processor families", "Processor family"),
    Table("top500-edition-by-processor", "Processors", "Processor"),
    Table("top500-edition-by-accelerator", "Accelerators and co-processors", "Accelerator"),
    Table("top500-edition-by-interconnect-family", "Interconnect families", "Interconnect family"),
    Table("top500-edition-by-interconnect", "Interconnects", "Interconnect"),
)
RANKINGS = (
    Table("top500-green500", "Energy efficiency (Green500 measure, GF/W)", "System", ranking=True),
    Table("top500-hpcg", "HPCG", "System", ranking=True),
)
TABLES = {table.name: table for table in SHARES + RANKINGS}
SHOWN_ROWS = 10  # rows of each table on the edition's page; the table's own page has them all

Rows = list[dict[str, object]]


def weakest_tier(table: Table, rows: Rows) -> str | None:
    """The weakest tier among a table's rows (each row's is the weakest of the claims it counts)."""
    key = "tier" if table.ranking else "weakestTier"
    found = [str(row[key]).rsplit("/", 1)[-1] for row in rows if row.get(key)]
    known = [tier for tier in found if tier in TIERS]
    return min(known, key=TIERS.index) if known else None


def ranked(rows: Rows) -> Rows:
    """A ranking's rows with their position (ties share one, as the list ranks them)."""
    out: Rows = []
    figure_key = next((k for k in ("gflopsPerWatt", "hpcgTflops") if rows and k in rows[0]), None)
    for index, row in enumerate(rows, start=1):
        same = out and figure_key and out[-1].get(figure_key) == row.get(figure_key)
        out.append({"position": out[-1]["position"] if same else index, **row})
    return out


# ---- editions top500.org has published ------------------------------------------------------------------

def published_editions(today: dt.date | None = None) -> list[str]:
    """Every TOP500 edition published by `today`, oldest first: June and November of each year since 1993
    (a June list is out by the end of June, a November one by the end of November)."""
    today = today or dt.date.today()
    found = []
    for year in range(1993, today.year + 1):
        for month in (6, 11):
            if (year, month) <= (today.year, today.month):
                found.append(f"{year}-{month:02d}")
    return found


def is_published(edition: str, today: dt.date | None = None) -> bool:
    return edition in published_editions(today)


def absent_editions(present: list[str], today: dt.date | None = None) -> list[str]:
    """The editions top500.org has published between the store's first and its newest that the store lacks
    (their files are not in the configured data), oldest first."""
    if not present:
        return []
    first, last = min(present), max(present)
    have = set(present)
    return [e for e in published_editions(today) if first <= e <= last and e not in have]


def top500_org_list(edition: str) -> str:
    """The edition's list on top500.org (https://top500.org/lists/top500/2022/11/)."""
    year, month = edition.split("-")
    return f"https://top500.org/lists/top500/{year}/{month}/"


# ---- twins ----------------------------------------------------------------------------------------------

SHARE_COLUMNS = ("key", "label", "systems", "systemsPercent", "rmaxTflops", "sharePercent", "weakestTier")


def columns(table: Table) -> tuple[str, ...]:
    """The columns of a table's CSV and JSON twins: its query's variables (a ranking's position first)."""
    if not table.ranking:
        return SHARE_COLUMNS
    figure = "gflopsPerWatt" if table.name == "green500" else "hpcgTflops"
    return ("position", "system", "name", figure, "rank", "rmaxTflops", "powerKW", "tier", "claim")


def csv_bytes(table: Table, rows: Rows) -> bytes:
    return rows_csv(columns(table), rows)


def rows_csv(keys: tuple[str, ...], rows: Rows) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(keys)
    for row in rows:
        writer.writerow(["" if row.get(k) is None else row[k] for k in keys])
    return buffer.getvalue().encode("utf-8")


def table_document(edition: str, table: Table, rows: Rows, query_url: str) -> dict[str, object]:
    keys = columns(table)
    return {"edition": edition, "table": table.name, "title": table.title, "query": query_url,
            "tier": weakest_tier(table, rows), "count": len(rows),
            "rows": [{k: row[k] for k in keys if row.get(k) is not None} for row in rows]}


def json_bytes(document: object) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")


# ---- pages ----------------------------------------------------------------------------------------------

NOT_GIVEN = "not given"  # the share queries' key for the entries the edition says nothing about


def table_view(edition: str, table: Table, rows: Rows, editor: Callable[[str, dict[str, str]], str]) -> dict:
    # A share of entries that all lack the column (the XML files before 2011-11 have no segment or processor
    # family) is no table: the page says the edition's file has no such column.
    given = any(row.get("key") != NOT_GIVEN for row in rows)
    return {"table": table, "rows": rows if given else [], "tier": weakest_tier(table, rows),
            "query_url": editor(table.query, {"edition": edition}),
            "url": urls.statistics_table(edition, table.name),
            "twins": {fmt: urls.statistics_table(edition, table.name, fmt) for fmt in ("csv", "json")}}


def edition_page(edition: str, found: dict[str, Rows], editions: list[str],
                 editor: Callable[[str, dict[str, str]], str], href: Callable[[str], str],
                 only: Table | None = None) -> Html:
    """An edition's statistics, every table's first rows (or `only` that table, in full)."""
    tables = [table_view(edition, t, found.get(t.name, []), editor) for t in ([only] if only else TABLES.values())]
    title = f"TOP500 {edition}: {only.title}" if only else f"TOP500 {edition}: statistics"
    alternates = ({tables[0]["twins"]["csv"]: "text/csv", tables[0]["twins"]["json"]: "application/json"} if only
                  else {urls.edition_statistics(edition, "json"): "application/json"})
    return Html(title, "statistics_edition.html", {
        "edition": edition, "tables": tables, "limit": None if only else SHOWN_ROWS, "editions": editions,
        "href": href, "list_url": urls.top500_list(edition), "top500_org": top500_org_list(edition),
        "whole": None if only else urls.edition_statistics(edition, "json")}, alternates)


def over_time(present: list[str], development: Rows, by_country: Rows, by_vendor: Rows,
              today: dt.date | None = None) -> Rows:
    """One row per edition from the store's first to its newest, newest first: its size (entries, Σ Rmax, #1's
    Rmax) and leading country and vendor parent (from the charts' precomputed figures, hpckg.serve.analytics),
    or, for an edition the data lacks, where top500.org has it."""
    by_edition = {str(row["edition"]): row for row in development}
    leaders: dict[str, dict[str, tuple[str, object]]] = {}
    for kind, rows, label, key in (("country", by_country, "countryLabel", "country"),
                                   ("vendor", by_vendor, "parentLabel", "parent")):
        for row in rows:  # sorted by edition, then Rmax, largest first: the first row of an edition leads
            leaders.setdefault(str(row["edition"]), {}).setdefault(
                kind, (str(row.get(label) or row.get(key)), row.get("sharePercent")))
    out: Rows = []
    for edition in sorted(set(present) | set(absent_editions(present, today)), reverse=True):
        if edition in present and edition in by_edition:
            out.append({**by_edition[edition], "edition": edition, "present": True, **leaders.get(edition, {})})
        else:
            out.append({"edition": edition, "present": False, "top500_org": top500_org_list(edition)})
    return out


def index_page(rows: Rows, editor: Callable[[str, dict[str, str]], str]) -> Html:
    queries = {name: editor(name, {}) for name in (analytics.DEVELOPMENT, analytics.BY_COUNTRY, analytics.BY_VENDOR)}
    return Html("TOP500 statistics", "statistics.html", {
        "rows": rows, "queries": queries, "twin": urls.STATISTICS + ".json", "tables": SHARES},
        {urls.STATISTICS + ".json": "application/json"})


def absent_page(edition: str, editions: list[str], what: str) -> Html:
    """The page of an edition top500.org has published that the configured data lacks (what: list, statistics)."""
    return Html(f"TOP500 {edition}: not in this dataset", "absent_edition.html", {
        "edition": edition, "top500_org": top500_org_list(edition), "editions": editions, "what": what})


# ---- over time ------------------------------------------------------------------------------------------

SHOWN_CATEGORIES = 8  # columns of an over-time table; the rest are summed as "others"
MEASURES = {"sharePercent": "share of Rmax (%)", "systemsPercent": "share of systems (%)", "systems": "systems"}


@dataclass
class Trend:
    """A share table over the editions: the leading categories (key, label) as columns, one row per edition
    (newest first) with each category's figure and the rest's, and the editions not computed yet."""

    table: Table
    measure: str
    categories: list[tuple[str, str]]
    # (edition, figures, the rest's), or for an edition top500.org has that the data lacks (edition, None, None)
    rows: list[tuple[str, list[float | int | None] | None, float | int | None]]
    pending: list[str]


def trend(table: Table, found: dict[str, Rows], measure: str, pending: list[str],
          absent: list[str] | None = None) -> Trend:
    """`found` maps each edition computed so far to the table's rows: the categories with the largest figures
    summed over the editions lead. The `absent` editions get a row saying so, in their place."""
    totals: dict[str, float] = {}
    labels: dict[str, str] = {}
    for rows in found.values():
        for row in rows:
            key = str(row["key"])
            totals[key] = totals.get(key, 0.0) + float(row.get(measure) or 0)  # type: ignore[arg-type]
            labels.setdefault(key, str(row.get("label") or key))
    leading = sorted(totals, key=lambda k: (-totals[k], labels[k]))[:SHOWN_CATEGORIES]
    out: list[tuple[str, list[float | int | None] | None, float | int | None]] = []
    for edition in sorted({*found, *(absent or [])}, reverse=True):
        if edition not in found:
            out.append((edition, None, None))
            continue
        figures = {str(row["key"]): row.get(measure) for row in found[edition]}
        shown = [figures.get(key) for key in leading]
        rest = sum(float(v or 0) for k, v in figures.items() if k not in leading)  # type: ignore[arg-type]
        out.append((edition, shown, round(rest, 2) if measure != "systems" else int(rest)))  # type: ignore[arg-type]
    return Trend(table, measure, [(k, labels[k]) for k in leading], out, pending)


def trend_rows(found: dict[str, Rows]) -> Rows:
    """Every edition's rows of a table, newest first, each with its edition: the over-time twins' rows."""
    return [{"edition": edition, **row} for edition in sorted(found, reverse=True) for row in found[edition]]


def trend_page(result: Trend, editor: Callable[[str, dict[str, str]], str], href: Callable[[str], str]) -> Html:
    name = result.table.name
    twins = {fmt: urls.statistics_trend(name, fmt) for fmt in ("csv", "json")}
    return Html(f"TOP500 over time: {result.table.title}", "statistics_trend.html", {
        "trend": result, "twins": twins, "query_url": editor(result.table.query, {}), "href": href,
        "measures": MEASURES, "tables": SHARES},
        {twins["csv"]: "text/csv", twins["json"]: "application/json"})
