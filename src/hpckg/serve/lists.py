"""The website's lists: a canned query's rows as a table that is sorted, filtered and paged on the server from
the URL's query parameters (so it works with JavaScript off), with CSV and JSON twins of the same rows.

A list is declared here as a ListSpec: the canned query (queries/*.rq) it runs, the columns it shows, which
of them may be sorted and filtered on. User input never becomes query text: the only values bound into the
query are the query's declared parameters (checked against their types by hpckg.query); sort keys and filter
names are looked up in the spec, filter values compared with the rows' values in Python.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from hpckg import numbers
from hpckg.errors import InputError
from hpckg.names import name_key
from hpckg.serve import urls

PAGE_SIZES = (25, 50, 100, 500)
DEFAULT_PAGE_SIZE = 100
TIERS = ("lead", "reported", "verified")  # weakest first: a tier counts when at least the chosen one
NUMERIC_TYPES = ("integer", "decimal", "double", "float", "long", "int")


@dataclass(frozen=True)
class Column:
    """A column of a list: the query variable it shows, how it is headed, whether it is a number, and the
    variables holding the IRI it links to, the tier and claim of its figure, and the entities it counts (their
    IRIs, space-separated: a few of them are named and linked beside the count)."""

    key: str
    heading: str
    numeric: bool = False
    link: str | None = None
    tier: str | None = None
    claim: str | None = None
    items: str | None = None
    unit: str = ""  # the unit the query gives the figures in (shown in the unit of the column's magnitude)


@dataclass(frozen=True)
class ListSpec:
    name: str
    title: str
    query: str  # the canned query's name
    columns: tuple[Column, ...]
    default_sort: str
    filters: tuple[str, ...] = ()  # keys of columns a visitor can filter on, by exact value
    totals: tuple[str, ...] = ()  # numeric columns summed over the filtered rows
    tier: str | None = None  # the variable holding the tier the "show only" switch applies to
    description: str = ""
    default_order: str = "asc"
    searches: tuple[str, ...] = ()  # keys of columns a visitor can filter on by a part of the name
    # keys of columns a visitor can bound (min_KEY, max_KEY): numbers, or the year of a date ("2018-06-01")
    ranges: tuple[str, ...] = ()
    # the path of the list (urls.py) and the kind of entity its rows are: lists of entities, not editions
    path: str | None = None

    def order_for(self, sort: str) -> str:
        """The order a sort key starts in: the list's own for its default sort, else ascending."""
        return self.default_order if sort == self.default_sort else "asc"

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)


TOP500 = ListSpec(
    name="top500", title="TOP500", query="top500-list", default_sort="rank",
    columns=(
        Column("rank", "Rank", numeric=True),
        Column("name", "System", link="system"),
        Column("siteLabel", "Site", link="site"),
        Column("country", "Country"),
        Column("year", "Year"),  # text: a year is not a count; the range filter reads it as a number
        Column("vendors", "Vendor at build"),
        Column("parents", "Vendor today"),
        Column("rmaxTflops", "Rmax", numeric=True, unit="TFlop/s", tier="rmaxTier", claim="rmaxClaim"),
        Column("rpeakTflops", "Rpeak", numeric=True, unit="TFlop/s"),
        Column("powerKW", "Power", numeric=True, unit="kW"),
        Column("cores", "Cores", numeric=True),
    ),
    filters=("country", "parents"), totals=("rmaxTflops", "cores"), tier="rmaxTier",
    ranges=("rmaxTflops", "year", "powerKW", "cores"),
    description="One edition of the TOP500 list, as the edition's file gives it.")

EPOCH_CLUSTERS = ListSpec(
    # largest first, as a visitor of a list of machines expects (its H100 equivalents: Epoch's measure of size)
    name="epoch-clusters", title="Epoch AI GPU clusters", query="epoch-clusters-list", default_sort="h100Equivalents",
    default_order="desc",
    columns=(
        Column("name", "Cluster", link="system"),
        Column("status", "Status"),
        Column("certainty", "Certainty"),
        Column("country", "Country"),
        Column("owners", "Owner"),
        Column("chips", "Chip"),
        Column("accelerators", "Accelerators", numeric=True, tier="acceleratorsTier", claim="acceleratorsClaim"),
        Column("h100Equivalents", "H100 equivalents", numeric=True),
        Column("powerMW", "Power", numeric=True, unit="MW"),
        Column("since", "Operational since"),
    ),
    filters=("status", "certainty", "country", "owners", "chips"), totals=("accelerators", "h100Equivalents"),
    tier="acceleratorsTier", ranges=("h100Equivalents", "accelerators", "powerMW", "since"),
    description="Epoch AI's dataset of GPU clusters, one row per record.")

SITES = ListSpec(
    name="sites", title="Sites", query="sites-list", default_sort="systemCount", default_order="desc",
    columns=(
        Column("name", "Site", link="site"),
        Column("country", "Country"),
        Column("operatorLabel", "Operator", link="operator"),
        Column("systemCount", "Systems", numeric=True, items="systems"),
    ),
    filters=("country",), searches=("name",), path=urls.entity_list("sites"),
    description="Every site and datacenter with the systems placed there (the TOP500's sites named as the "
                "list first named them).")

ORGANISATIONS = ListSpec(
    name="organisations", title="Organisations", query="organisations-list", default_sort="systemCount",
    default_order="desc",
    columns=(
        Column("name", "Organisation", link="organisation"),
        Column("kind", "Type"),
        Column("country", "Headquarters"),
        Column("parentLabel", "Belongs to today", link="parent"),
        Column("operates", "Operates", numeric=True),
        Column("supplies", "Supplied", numeric=True),
        Column("systemCount", "Systems", numeric=True, items="systems"),
    ),
    filters=("kind", "country"), searches=("name",), path=urls.entity_list("organisations"),
    description="Every organisation with the systems it operates or supplied a part of at build.")

PARTS = ListSpec(
    name="parts", title="Parts", query="parts-list", default_sort="systemCount", default_order="desc",
    columns=(
        Column("name", "Part", link="part"),
        Column("category", "Category"),
        Column("makerLabel", "Maker", link="maker"),
        Column("makerParent", "Maker today"),
        Column("systemCount", "Systems", numeric=True, items="systems"),
    ),
    filters=("category", "makerLabel"), searches=("name",), path=urls.entity_list("parts"),
    description="Every part model with the systems built with it.")

LISTS = {spec.name: spec for spec in (TOP500, EPOCH_CLUSTERS)}
ENTITY_LISTS = {spec.name: spec for spec in (SITES, ORGANISATIONS, PARTS)}
SHOWN_ITEMS = 3  # entities named beside a count


@dataclass
class Total:
    column: Column
    value: float
    lead: float  # how much of value rests on a lead figure


@dataclass
class Page:
    """The rows of one page of a list after filtering, the tier switch and sorting, and what links to the
    other pages and orders need."""

    spec: ListSpec
    rows: list[dict[str, object]]  # this page's
    selected: list[dict[str, object]]  # every row after filters and the tier switch, sorted (the twins')
    matching: int  # rows after filters and the tier switch
    unfiltered: int
    page: int
    pages: int
    per: int
    sort: str
    descending: bool
    min_tier: str
    chosen: dict[str, str]  # filter key -> value
    choices: dict[str, list[str]]  # filter key -> the values present
    # filter key -> value -> rows having it among the rows the other filters keep (the facet's counts)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    bounds: dict[str, str] = field(default_factory=dict)  # min_KEY / max_KEY -> the number chosen
    totals: list[Total] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)  # the query's own parameters (edition=...)
    # The unit and decimals of each numeric column, chosen from all the list's rows (hpckg.numbers): filters
    # and pages do not change them, an edition of 1993 reads in GFlop/s and one of 2025 in PFlop/s.
    scales: dict[str, numbers.Scale] = field(default_factory=dict)

    def heading(self, column: Column) -> str:
        """A column's heading with the unit its figures are shown in: 'Rmax (PFlop/s)'."""
        scale = self.scales.get(column.key)
        return scale.heading(column.heading) if scale else column.heading

    def cell(self, column: Column, value: object) -> str:
        """A cell's figure in its column's unit and decimals; text as it is."""
        scale = self.scales.get(column.key)
        return scale.text(value) if scale and isinstance(value, int | float) else figure_text(value)

    def url(self, base: str, **changes: str | int | None) -> str:
        """This list's URL with some of its settings changed (a column to sort by, a page)."""
        settings: dict[str, str | int | None] = {
            **self.params, **self.chosen, **self.bounds, "sort": self.sort,
            "order": "desc" if self.descending else "asc", "page": self.page, "per": self.per, "tier": self.min_tier}
        settings.update(changes)
        defaults = {"sort": self.spec.default_sort, "order": self.spec.order_for(str(settings["sort"])), "page": 1,
                    "per": DEFAULT_PAGE_SIZE,
                    "tier": "lead"}
        kept = {k: str(v) for k, v in settings.items() if v not in (None, "") and defaults.get(k) != v}
        return urls.with_query(base, kept)

    def sort_url(self, base: str, key: str) -> str:
        descending = not self.descending if key == self.sort else self.spec.column(key).numeric
        return self.url(base, sort=key, order="desc" if descending else "asc", page=1)


def rows_from_results(document: dict) -> list[dict[str, object]]:
    """SPARQL JSON results as dicts of Python values: numbers as int or float, IRIs and text as str."""
    rows = []
    for binding in document["results"]["bindings"]:
        row: dict[str, object] = {}
        for name, term in binding.items():
            row[name] = _value(term)
        rows.append(row)
    return rows


def _value(term: dict) -> object:
    value = term["value"]
    datatype = term.get("datatype", "")
    if term["type"] == "literal" and datatype.rsplit("#", 1)[-1] in NUMERIC_TYPES:
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if datatype.endswith(("integer", "long", "int")) else number
    return value


def query_parameters(spec: ListSpec, params: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in params.items() if key in ("edition",)}


def select(spec: ListSpec, rows: list[dict[str, object]], params: Mapping[str, str],
           query_params: dict[str, str] | None = None) -> Page:
    """Filter, apply the tier switch, sort and page rows as the URL's parameters ask; unknown settings are an
    InputError naming the allowed ones."""
    sort = params.get("sort") or spec.default_sort
    column = spec.column(sort)
    if column is None:
        raise InputError(f"cannot sort by {sort!r}; sort by one of {', '.join(c.key for c in spec.columns)}")
    order = params.get("order") or spec.order_for(sort)
    if order not in ("asc", "desc"):
        raise InputError(f"order is asc or desc, not {order!r}")
    min_tier = params.get("tier") or "lead"
    if min_tier not in TIERS:
        raise InputError(f"tier is one of {', '.join(TIERS)}, not {min_tier!r}")
    per = _whole(params.get("per"), DEFAULT_PAGE_SIZE, "per")
    if per not in PAGE_SIZES:
        raise InputError(f"per is one of {', '.join(map(str, PAGE_SIZES))}, not {per}")
    chosen = {key: params[key] for key in spec.filters + spec.searches if params.get(key)}
    bounds = {f"{end}_{key}": params[f"{end}_{key}"] for key in spec.ranges for end in ("min", "max")
              if params.get(f"{end}_{key}")}
    limits = {name: _number(text, name) for name, text in bounds.items()}
    ranged = [row for row in rows if _within(row, limits)]
    choices = {key: sorted({str(row[key]) for row in rows if row.get(key) not in (None, "")})
               for key in spec.filters}
    counts = {key: _facet(ranged, key, {k: v for k, v in chosen.items() if k in spec.filters and k != key})
              for key in spec.filters}
    kept = [row for row in ranged if all(_matches(row.get(key), value) for key, value in chosen.items()
                                         if key in spec.filters)]
    for key in spec.searches:
        if chosen.get(key):
            wanted = name_key(chosen[key]) or chosen[key].casefold()
            kept = [row for row in kept if wanted in _key(row, key)]
    if spec.tier and min_tier != "lead":
        floor = TIERS.index(min_tier)
        kept = [row for row in kept if row.get(spec.tier) in TIERS and TIERS.index(str(row[spec.tier])) >= floor]
    kept.sort(key=lambda row: _sort_key(row.get(sort), column.numeric), reverse=order == "desc")
    pages = max(1, math.ceil(len(kept) / per))
    page = min(_whole(params.get("page"), 1, "page"), pages)
    totals = [_total(spec, spec.column(key), kept) for key in spec.totals]
    scales = {c.key: numbers.column_unit((row.get(c.key) for row in rows), c.unit) for c in spec.columns
              if c.numeric and not c.items}
    return Page(spec, kept[(page - 1) * per: page * per], kept, len(kept), len(rows), page, pages, per, sort,
                order == "desc", min_tier, chosen, choices, counts=counts, bounds=bounds, totals=totals,
                params=query_params or {}, scales=scales)


def _number(text: str, name: str) -> float:
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        raise InputError(f"{name} is a number (1000, 2.5), not {text!r}") from None
    if not math.isfinite(value):
        raise InputError(f"{name} is a finite number, not {text!r}")
    return value


def _comparable(value: object) -> float | None:
    """A cell as a number a range compares: itself, or the year of a date or year text ("2018-06-01")."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value)
    return float(text[:4]) if text[:4].isdigit() else None


def _within(row: dict[str, object], limits: dict[str, float]) -> bool:
    """True when the row's cells are within every chosen bound (a row without the figure is left out)."""
    for name, limit in limits.items():
        end, key = name.split("_", 1)
        value = _comparable(row.get(key))
        if value is None or (value < limit if end == "min" else value > limit):
            return False
    return True


def _facet(rows: list[dict[str, object]], key: str, others: dict[str, str]) -> dict[str, int]:
    """How many rows have each value of a column (each part of a joined cell), among the rows the other
    filters keep: what choosing the value would leave."""
    found: dict[str, int] = {}
    for row in rows:
        if not all(_matches(row.get(k), v) for k, v in others.items()):
            continue
        cell = row.get(key)
        if cell in (None, ""):
            continue
        for part in dict.fromkeys([str(cell), *str(cell).split(" / ")]):
            found[part] = found.get(part, 0) + 1
    return found


def _matches(value: object, wanted: str) -> bool:
    """A filter value matches a cell equal to it, or one of the parts of a joined cell ("HPE / Cray")."""
    if value is None:
        return False
    text = str(value)
    return text == wanted or wanted in text.split(" / ")


def _key(row: dict[str, object], key: str) -> str:
    """The name_key of a row's cell, computed once per cached row (rows are kept per store generation)."""
    cached = f"{key}\0key"
    found = row.get(cached)
    if found is None:
        text = str(row.get(key) or "")
        found = row[cached] = name_key(text) or text.casefold()
    return str(found)


def items(text: object, shown: int = SHOWN_ITEMS) -> list[str]:
    """The first few IRIs of a cell of space-separated IRIs."""
    return text.split()[:shown] if isinstance(text, str) else []


def _whole(text: str | None, default: int, name: str) -> int:
    if not text:
        return default
    if not text.isdigit() or not 0 < int(text) < 10**6:
        raise InputError(f"{name} is a whole number from 1, not {text!r}")
    return int(text)


def _sort_key(value: object, numeric: bool) -> tuple:
    """Empty cells sort last in either order's sense of 'first': (missing, value)."""
    if value in (None, ""):
        return (0, 0) if numeric else (0, "")
    if numeric and isinstance(value, int | float):
        return (1, value)
    return (1, str(value).casefold())


def _total(spec: ListSpec, column: Column, rows: list[dict[str, object]]) -> Total:
    value = lead = 0.0
    for row in rows:
        cell = row.get(column.key)
        if isinstance(cell, int | float):
            value += cell
            if column.tier and row.get(column.tier) == "lead":
                lead += cell
    return Total(column, value, lead)


# ---- twins ----------------------------------------------------------------------------------------------

def exported_keys(spec: ListSpec) -> list[str]:
    """The columns of the CSV and JSON twins: every shown column with the IRIs, tiers and claims behind it."""
    keys: list[str] = []
    for column in spec.columns:
        for key in (column.link, column.key, column.tier, column.claim):
            if key and key not in keys:
                keys.append(key)
    return keys + [c.items for c in spec.columns if c.items and c.items not in keys]


def csv_bytes(spec: ListSpec, rows: list[dict[str, object]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    keys = exported_keys(spec)
    writer.writerow(keys)
    for row in rows:
        writer.writerow(["" if row.get(k) is None else row[k] for k in keys])
    return buffer.getvalue().encode("utf-8")


def json_bytes(spec: ListSpec, page: Page, query_url: str) -> bytes:
    keys = exported_keys(spec)
    document = {
        "list": spec.title, "query": query_url, "count": page.matching,
        "sort": page.sort, "order": "desc" if page.descending else "asc", "tier": page.min_tier,
        "filters": page.chosen, "ranges": page.bounds,
        "facets": {key: dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))
                   for key, found in page.counts.items()},
        "totals": {t.column.key: {"value": t.value, "lead": t.lead} for t in page.totals},
        "rows": [{k: row.get(k) for k in keys if row.get(k) is not None} for row in page.selected],
    }
    return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")


def fraction(part: float, whole: float) -> str:
    return f"{part / whole * 100:.1f} %" if whole else "0 %"


def figure_text(value: object, unit: str = "") -> str:
    """A figure in a list or comparison (hpckg.numbers.figure): whole numbers with thousands separators,
    others to four significant digits, with its unit in the unit of its magnitude when one is given; anything
    else as it is."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, int | float):
        return numbers.figure(value, unit)
    return str(value)
