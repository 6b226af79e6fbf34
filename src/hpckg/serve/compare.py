"""The compare page: two to four systems side by side, read by four canned queries (compare-systems,
compare-components, compare-sources, compare-history; each takes the systems' slugs as its system parameter)
and laid out here as one table of figures (each with its tier badge linking to its claim), their parts and
suppliers, their sources, and their TOP500 rank and Rmax in one chart. The table has CSV and JSON twins.

Nothing here touches the store or HTTP: the server runs the queries (hpckg.serve.pages.compare) and hands the rows in.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field

from markupsafe import Markup

from hpckg import numbers
from hpckg.errors import InputError, UnknownNameError
from hpckg.namespaces import PREFIXES
from hpckg.page.text import TOP500_EDITION_SOURCE, edition_of_source, editions_title, title_text
from hpckg.serve import charts, urls
from hpckg.serve.entities import BOUND_SYMBOLS
from hpckg.serve.lists import TIERS, figure_text

FEWEST, MOST = 2, 4
QUERIES = ("compare-systems", "compare-components", "compare-sources", "compare-history")
SLUG = re.compile(r"[A-Za-z0-9_~-]+")
SYSTEM = PREFIXES["sys"]
SECTIONS = {"about": "About", "performance": "Performance", "listings": "TOP500 listings",
            "timeline": "Timeline", "parts": "Parts and suppliers"}


def slugs_of(values: list[str]) -> list[str]:
    """The slugs of the systems asked for (?system=...: a slug, sys:slug, an IRI or a page URL), each once,
    in order; an InputError for a value that names no system."""
    slugs: list[str] = []
    for value in values:
        text = value.strip().rstrip("/")
        for prefix in (SYSTEM, "sys:", "/page/system/", "/id/system/"):
            if prefix in text:
                text = text.rsplit(prefix, 1)[1]
        if not text:
            continue
        if not SLUG.fullmatch(text):
            raise InputError(f"{value!r} is not a system: give a system's slug (kalos), sys:kalos or its IRI")
        if text not in slugs:
            slugs.append(text)
    return slugs


def check_count(slugs: list[str]) -> None:
    """An InputError saying how many to choose when there are not two to four systems."""
    if len(slugs) < FEWEST:
        raise InputError(("Choose two to four systems to compare" if not slugs else
                          f"Only one system chosen ({slugs[0]}); add one to three more")
                         + ": /compare?system=SLUG&system=SLUG")
    if len(slugs) > MOST:
        raise InputError(f"{len(slugs)} systems chosen; compare at most {MOST} at a time")


def parameters(slugs: list[str]) -> dict[str, str]:
    """The canned queries' parameter for the chosen systems: their slugs, comma-separated."""
    return {"system": ",".join(slugs)}


@dataclass
class Entry:
    """One value in a cell: its text, where it links, the tier and claim of the figure behind it."""

    text: str
    href: str | None = None
    tier: str | None = None
    claim: str | None = None
    note: str = ""
    exact: str = ""  # a rounded figure's value as the graph holds it: what the CSV and JSON twins give

    @property
    def lead(self) -> bool:
        return self.tier == "lead"


@dataclass
class Line:
    """A row of the comparison: a section, the fact's key and label, and one cell (entries) per system."""

    section: str
    key: str
    label: str
    cells: list[list[Entry]]


@dataclass
class System:
    slug: str
    iri: str
    name: str


@dataclass
class Source:
    iri: str
    title: str
    url: str | None
    kind: str
    claims: int
    tier: str | None


@dataclass
class ListEditions:
    """A system's TOP500 list editions among its sources, as one line: "TOP500 lists, 9 editions 2020-06 …
    2025-06", each edition still linked."""

    title: str
    editions: list[tuple[str, Source]]  # (YYYY-MM, the edition's source)
    claims: int
    tier: str | None  # the surest among them


def list_editions(sources: list[Source]) -> ListEditions | None:
    """The TOP500 editions among one system's sources (as its page groups them), or None."""
    editions = sorted(((edition_of_source(s.iri), s) for s in sources if TOP500_EDITION_SOURCE in s.iri),
                      key=lambda pair: pair[0])
    if not editions:
        return None
    tiers = [s.tier for _, s in editions if s.tier in TIERS]
    return ListEditions(editions_title([label for label, _ in editions]), editions, sum(s.claims for _, s in editions),
                        max(tiers, key=TIERS.index) if tiers else None)


@dataclass
class Comparison:
    systems: list[System]
    lines: list[Line]
    sources: list[list[Source]]  # per system
    chart: charts.Chart | None
    figures: int = 0  # figures shown from claims
    leads: int = 0  # how many of them are leads
    sections: dict[str, str] = field(default_factory=lambda: dict(SECTIONS))

    def section(self, key: str) -> list[Line]:
        return [line for line in self.lines if line.section == key]

    @property
    def grouped_sources(self) -> list[tuple[ListEditions | None, list[Source]]]:
        """Per system: its TOP500 list editions as one line (a machine listed for years cites a source per
        edition), then its other sources."""
        return [(list_editions(sources), [s for s in sources if TOP500_EDITION_SOURCE not in s.iri])
                for sources in self.sources]


def systems_of(slugs: list[str], facts: list[dict[str, object]]) -> list[System]:
    """The systems compared (slugs, in order), named from compare-systems' rows; an UnknownNameError names
    the slugs no system has."""
    named = {str(r["system"]): str(r.get("name") or "") for r in facts if r.get("system")}
    unknown = [slug for slug in slugs if SYSTEM + slug not in named]
    if unknown:
        raise UnknownNameError(f"no system with the slug {', '.join(unknown)}; find systems with the search box")
    return [System(slug, SYSTEM + slug, named[SYSTEM + slug]) for slug in slugs]


def compare(slugs: list[str], rows: dict[str, list[dict[str, object]]]) -> Comparison:
    """The comparison of the systems (slugs, in order) from the rows of the four queries; an
    UnknownNameError names the slugs no system has. Its chart is an image drawn on a request of its own
    (history_svg, at /compare.svg): drawing is 140-300 ms of Vega, longer than the page's reads, so the
    page comes first and the browser asks for the chart as it reads it."""
    facts = rows["compare-systems"]
    systems = systems_of(slugs, facts)
    column = {system.iri: i for i, system in enumerate(systems)}
    lines = (fact_lines(facts, column) + listing_lines(rows["compare-history"], column)
             + part_lines(rows["compare-components"], column))
    lines.sort(key=lambda line: list(SECTIONS).index(line.section))  # stable: each section keeps its order
    sources: list[list[Source]] = [[] for _ in systems]
    for r in rows["compare-sources"]:
        sources[column[str(r["system"])]].append(Source(
            str(r["source"]), title_text(str(r.get("title") or r["source"])), _text(r.get("url")),
            str(r.get("kind") or ""), int(r.get("claims") or 0), _text(r.get("tier"))))
    shown = [entry for line in lines for cell in line.cells for entry in cell if entry.claim]
    return Comparison(systems, lines, sources, history_chart(systems, editions(rows["compare-history"], column),
                                                            urls.compare(slugs, format="svg")),
                      len(shown), sum(entry.lead for entry in shown))


def _text(value: object) -> str | None:
    return None if value in (None, "") else str(value)


def fact_lines(facts: list[dict[str, object]], column: dict[str, int]) -> list[Line]:
    """The about, performance and timeline rows where some system has a figure, in the ontology's display
    order: a listed performance figure (the query's rows with no system) none of them has would be a row of
    '-' (Accelerators, for TOP500 records, which give accelerator cores, not a count), which says nothing."""
    count = len(column)
    found: dict[str, Line] = {}
    order: dict[str, float] = {}
    for r in facts:
        prop = _text(r.get("property"))
        if prop is None:
            continue
        if prop not in found:
            found[prop] = Line(str(r["section"]), prop, _label(r), [[] for _ in range(count)])
            order[prop] = float(r.get("order") or 1000)  # type: ignore[arg-type]
        cell = found[prop].cells[column[str(r["system"])]] if r.get("system") else None
        # rows with no system name the figures listed for every comparison; a claim is shown once (a value
        # with labels in two graphs comes twice)
        if cell is not None and all(entry.claim != r.get("claim") for entry in cell):
            cell.append(_entry(r))
    shown = [line for line in found.values() if any(line.cells)]
    return sorted(shown, key=lambda line: (list(SECTIONS).index(line.section), order[line.key], line.key))


def _label(r: dict[str, object]) -> str:
    label = str(r.get("label") or str(r["property"]).rsplit("#", 1)[-1])
    label = label[:1].upper() + label[1:]
    unit = _text(r.get("unit"))
    return f"{label} ({unit})" if unit and unit not in ("accelerators",) else label


def _entry(r: dict[str, object]) -> Entry:
    value = r.get("value")
    if value is None and r.get("bound") is not None:
        text = f"{BOUND_SYMBOLS.get(str(r.get('boundKind')), '')} {figure_text(r['bound'])}".strip()
    elif isinstance(value, str) and value.startswith("http"):
        text = str(r.get("valueLabel") or value.rsplit("/", 1)[-1])
    elif value is None:
        text = "not named"  # a claim that there is a value, not saying which (hpc:unknown)
    else:
        text = figure_text(value)
    href = value if isinstance(value, str) and value.startswith("https://w3id.org/hpckg/id/") else None
    note = f"as of {r['asOf']}" if r.get("asOf") else ""
    exact = numbers.exact(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""
    return Entry(text, href, _text(r.get("tier")), _text(r.get("claim")), note, exact)


def editions(history: list[dict[str, object]], column: dict[str, int]) -> list[dict[str, object]]:
    """compare-history's rows (one per figure) as one row per system and edition: column (0-3), edition,
    rank, rankTier, rankClaim, rmaxTflops, rmaxTier, rmaxClaim."""
    found: dict[tuple[int, str], dict[str, object]] = {}
    for r in history:
        row = found.setdefault((column[str(r["system"])], str(r["edition"])),
                               {"column": column[str(r["system"])], "edition": str(r["edition"])})
        key = "rank" if str(r["property"]).endswith("listRank") else "rmax"
        row["rank" if key == "rank" else "rmaxTflops"] = r.get("value")
        row[f"{key}Tier"], row[f"{key}Claim"] = r.get("tier"), r.get("claim")
    return sorted(found.values(), key=lambda row: (row["column"], row["edition"]))


def listing_lines(history: list[dict[str, object]], column: dict[str, int]) -> list[Line]:
    """First and last TOP500 edition, best rank (with the claim of the best one) and editions listed."""
    count = len(column)
    by_column: dict[int, list[dict[str, object]]] = {}
    for r in editions(history, column):
        by_column.setdefault(int(str(r["column"])), []).append(r)
    if not by_column:
        return []
    lines = {key: Line("listings", key, label, [[] for _ in range(count)]) for key, label in (
        ("firstEdition", "First listed"), ("lastEdition", "Last listed"), ("bestRank", "Best rank"),
        ("editions", "Editions listed"), ("lastRmax", "Rmax in the last edition (TFlop/s)"))}
    for cells, listed in by_column.items():
        first, last = listed[0], listed[-1]
        best = min(listed, key=lambda r: (r.get("rank") or 10**9, str(r["edition"])))
        lines["firstEdition"].cells[cells].append(Entry(str(first["edition"]), None, _text(first.get("rankTier")),
                                                        _text(first.get("rankClaim")), f"rank {first.get('rank')}"))
        lines["lastEdition"].cells[cells].append(Entry(str(last["edition"]), None, _text(last.get("rankTier")),
                                                       _text(last.get("rankClaim")), f"rank {last.get('rank')}"))
        lines["bestRank"].cells[cells].append(Entry(figure_text(best.get("rank")), None, _text(best.get("rankTier")),
                                                    _text(best.get("rankClaim")), f"in {best['edition']}"))
        lines["editions"].cells[cells].append(Entry(figure_text(len(listed))))
        if last.get("rmaxTflops") is not None:
            lines["lastRmax"].cells[cells].append(Entry(figure_text(last["rmaxTflops"]), None,
                                                        _text(last.get("rmaxTier")), _text(last.get("rmaxClaim")),
                                                        f"in {last['edition']}"))
    return list(lines.values())


PART_ORDER = ("partModel", "supplierAtBuild", "quantity")


def part_lines(components: list[dict[str, object]], column: dict[str, int]) -> list[Line]:
    """One row per component role: in each system's cell its parts, their supplier at build (and the company
    it belongs to today) and quantity, each with the tier of its claim."""
    found: dict[str, Line] = {}
    order: dict[str, float] = {}
    ordered = sorted(components, key=lambda r: (str(r["component"]),
                                                PART_ORDER.index(str(r["property"]).rsplit("#", 1)[-1])))
    for r in ordered:
        role = str(r.get("role") or "")
        if role not in found:
            found[role] = Line("parts", role, str(r.get("roleLabel") or role.rsplit("/", 1)[-1] or "Component"),
                               [[] for _ in range(len(column))])
            order[role] = float(r.get("roleOrder") or 1000)  # type: ignore[arg-type]
        cell = found[role].cells[column[str(r["system"])]]
        prop, value = str(r["property"]).rsplit("#", 1)[-1], r.get("value")
        tier, claim = _text(r.get("tier")), _text(r.get("claim"))
        if any(entry.claim == claim for entry in cell):
            continue  # one claim, several labels of its value
        if prop == "partModel" and value:
            cell.append(Entry(str(r.get("valueLabel") or value), str(value), tier, claim))
        elif prop == "supplierAtBuild" and value:
            supplier = str(r.get("valueLabel") or value)
            if r.get("parentLabel") and r.get("parent") != value:
                supplier = f"{supplier} (today: {r['parentLabel']})"
            cell.append(Entry(f"supplied by {supplier}", str(value), tier, claim))
        elif prop == "quantity" and (value is not None or r.get("bound") is not None):
            text = figure_text(value) if value is not None else f"> {figure_text(r['bound'])}"
            cell.append(Entry(f"× {text}", None, tier, claim))
    return sorted(found.values(), key=lambda line: (order[line.key], line.label))


def history_svg(slugs: list[str], rows: dict[str, list[dict[str, object]]]) -> str | None:
    """The history chart as an SVG document of its own, from compare-systems' and compare-history's rows
    alone; None when no system was listed."""
    systems = systems_of(slugs, rows["compare-systems"])
    spec = history_spec(systems, editions(rows["compare-history"], {s.iri: i for i, s in enumerate(systems)}))
    return None if spec is None else charts.standalone(charts.vega_svg(spec))


def history_spec(systems: list[System], history: list[dict[str, object]]) -> dict | None:
    """The Vega-Lite specification of the history chart (history_chart), None when no system was listed."""
    if not history:
        return None
    names = {i: system.name for i, system in enumerate(systems)}
    values = [{"edition": r["edition"], "system": names[int(str(r["column"]))], "rank": r.get("rank"),
               "rmax": r.get("rmaxTflops")} for r in history]
    x = charts.edition_axis(sorted({str(r["edition"]) for r in history}))  # every edition, a few labels
    colour = {"field": "system", "type": "nominal", "title": None, "sort": [s.name for s in systems]}
    return {"data": {"values": values}, "vconcat": [
        {"width": charts.WIDTH, "height": 160, "mark": {"type": "line", "point": True},
         "encoding": {"x": x, "color": colour,
                      "y": {"field": "rank", "type": "quantitative", "scale": {"reverse": True, "zero": False},
                            "title": "Rank"}}},
        {"width": charts.WIDTH, "height": 160, "mark": {"type": "line", "point": True},
         "encoding": {"x": x, "color": colour,
                      "y": {"field": "rmax", "type": "quantitative", "scale": {"type": "log"},
                            "axis": {"labelExpr": charts.RATE_LABELS}, "title": "Rmax (log scale)"}}}]}


def history_chart(systems: list[System], history: list[dict[str, object]], src: str) -> charts.Chart | None:
    """Every system's rank and Rmax per TOP500 edition in one chart (a line per system), its image at `src`
    (history_svg), with a text alternative and the data as a table; None when none of them was listed."""
    if not history:
        return None
    editions = sorted({str(r["edition"]) for r in history})
    sentences = []
    for i, system in enumerate(systems):
        listed = sorted((r for r in history if int(str(r["column"])) == i), key=lambda r: str(r["edition"]))
        if not listed:
            sentences.append(f"{system.name} was never listed")
            continue
        best = min(listed, key=lambda r: r.get("rank") or 10**9)
        sentences.append(f"{system.name} was listed {len(listed)} times from {listed[0]['edition']} to "
                         f"{listed[-1]['edition']}, best rank {best.get('rank')} in {best['edition']}, Rmax "
                         f"{figure_text(listed[-1].get('rmaxTflops'), 'TFlop/s')} in {listed[-1]['edition']}")
    alt = "Line charts of rank and Rmax per TOP500 edition: " + "; ".join(sentences) + "."
    cells = {(str(r["edition"]), int(str(r["column"]))): r for r in history}
    table = [[edition, *(value for i in range(len(systems)) for value in (
        figure_text(cells[(edition, i)].get("rank")) if (edition, i) in cells else "",
        figure_text(cells[(edition, i)].get("rmaxTflops")) if (edition, i) in cells else ""))] for edition in editions]
    columns = ["Edition", *(f"{s.name}: {what}" for s in systems for what in ("rank", "Rmax (TFlop/s)"))]
    return charts.Chart("compare-history", "Rank and Rmax in the TOP500, per edition", alt, Markup(""), columns,
                        table, src=src)


# ---- twins --------------------------------------------------------------------------------------------

def csv_bytes(comparison: Comparison) -> bytes:
    """The comparison table as CSV: a row per fact, per system its value, tier and claim."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["section", "fact", *(f"{s.slug} {what}" for s in comparison.systems
                                           for what in ("value", "tier", "claim"))])
    for line in comparison.lines:
        writer.writerow([line.section, line.label, *(
            value for cell in line.cells for value in (
                "; ".join(e.exact or e.text for e in cell), "; ".join(e.tier or "" for e in cell if e.tier),
                " ".join(e.claim or "" for e in cell if e.claim)))])
    return buffer.getvalue().encode("utf-8")


def json_bytes(comparison: Comparison, queries: dict[str, str]) -> bytes:
    document = {
        "systems": [{"slug": s.slug, "iri": s.iri, "name": s.name} for s in comparison.systems],
        "figures": comparison.figures, "leads": comparison.leads, "queries": queries,
        "rows": [{"section": line.section, "fact": line.label, "key": line.key, "values": [
            [{k: v for k, v in (("value", e.exact or e.text), ("link", e.href), ("tier", e.tier), ("claim", e.claim),
                                ("note", e.note)) if v} for e in cell] for cell in line.cells]}
                 for line in comparison.lines],
        "sources": [[{"iri": s.iri, "title": s.title, "url": s.url, "kind": s.kind, "claims": s.claims,
                      "tier": s.tier} for s in sources] for sources in comparison.sources],
    }
    return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")
