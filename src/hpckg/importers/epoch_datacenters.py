"""Epoch AI's "Data on Frontier AI Data Centers": data_centers.csv (one data center per row, as it is now)
and data_center_timelines.csv (one dated row per observed change), each file its own graph.

Identity. A data center is an hpc:Datacenter (a site) `site:epoch-dc-<slug of Handle>` in both files, so the
timeline's rows land on the entity the other file describes; its label is the Handle in both, and the
Title of data_centers.csv is an alias.

Claims, all citing the dataset (src:epoch-data-centers, "Epoch AI, Data on Frontier AI Data Centers",
CC BY 4.0) with basis imported and a reference locating the row:
- data_centers.csv: operator (Owner), user (Users), location (Address), latitude and longitude (Epoch's
  degrees-minutes-seconds in decimal degrees), country (the address's country through hpckg.reference; a US
  address, which names a state and not the country, by its state), and the current powerCapacityMW,
  h100Equivalents and capitalCostBillionUSD, rank preferred and dated by the file's retrieval date (its
  modification date), so they stay the figure shown however far the timeline's plans reach.
- data_center_timelines.csv: per row, claims with `hpc:pointInTime` the row's Date of powerCapacityMW,
  h100Equivalents, buildingsOperational and constructionStatus (Epoch's words). A date after the file was
  retrieved is a plan: its claims say so in their note.
Epoch tags owners and users with its confidence (#confident, #likely, #speculative); TAG_TIERS maps the tag
to the claim's tier and the tag is kept verbatim as the reference's hpc:sourceCertainty. Untagged values are
reported. Project, investors, construction and energy companies are not imported yet.

The "Sentinel satellite timelapse" column is not copied: it holds Airtable attachment URLs that expire
within hours, so they would be dead links in the graph.

A cell that cannot be read is reported with file, row and column and the rest of the row is imported; a
file without the expected columns is refused whole.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import Reference, claim_quads, entity_quads, make_claim, slug_of, source_quads
from hpckg.importers.epoch_csv import data_rows
from hpckg.importers.run import current_log
from hpckg.names import SlugError, slugify
from hpckg.namespaces import entity, hpc
from hpckg.reference import Reference as Names
from hpckg.values import Iri, parse_date

TITLE = "Epoch AI, 'Data on Frontier AI Data Centers' (data_centers.csv, data_center_timelines.csv)"
WHERE = "https://epoch.ai/data/data-centers (data_centers.csv, data_center_timelines.csv)"
PATTERNS = ("data_centers.csv", "data_center_timelines.csv")
USES_REFERENCE = True
REPORTS_PROBLEMS = True

DATASET = "epoch-data-centers"
PUBLISHER = "epoch-ai"
LICENCE = "https://creativecommons.org/licenses/by/4.0/"
CENTERS_COLUMNS = ("Handle", "Title", "Address", "Latitude", "Longitude", "Owner", "Users",
                   "Current H100 equivalents", "Current power (MW)",
                   "Current total capital cost (2025 USD billions)")
TIMELINE_COLUMNS = ("Date", "Data center", "Construction status", "Power (MW)", "H100 equivalents",
                    "Buildings operational")
# Epoch's confidence tag -> tier (no tag: reported, as every other figure of the dataset).
TAG_TIERS = {None: "reported", "confident": "reported", "likely": "lead", "speculative": "lead"}
TAG = re.compile(r"\s*#([a-z]+)\s*$")
DMS = re.compile(r"""^\s*(\d+(?:\.\d+)?)\s*°\s*(?:(\d+(?:\.\d+)?)\s*'\s*)?(?:(\d+(?:\.\d+)?)\s*"\s*)?([NSEW])\s*$""")
# A US address names its state, not the country ("Canton, Mississippi", "Abilene, TX 79601").
US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho",
    "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas",
    "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington", "WV": "West Virginia",
    "WI": "Wisconsin", "WY": "Wyoming",
}
US_ADDRESS = re.compile(r"\b(" + "|".join(US_STATES) + r")\s+\d{5}\b|\b(" + "|".join(US_STATES.values()) + r")\b")

Report = Callable[[str], None]


def graph_key(path: Path) -> str:
    return "data-center-timelines" if "timeline" in path.name else "data-centers"


def datacenter_slug(handle: str) -> str:
    # "epoch-dc-": Epoch names clusters after their data centers too ("Google New Albany Ohio"), and claim
    # IRIs are minted from the entity slug alone, so a shared slug would merge a cluster's and a site's claims.
    return "epoch-dc-" + slugify(handle)


def rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(row number, line, cells stripped) of every data row; InputError for a file without the columns."""
    for number, line, cells in data_rows(path, required, expected=path.name, where=WHERE):
        yield number, line, {k: (v or "").strip() for k, v in cells.items() if k}


def degrees(text: str) -> Decimal | None:
    """32°35'25"N -> 32.590278; None when it is not degrees, minutes and seconds with a hemisphere."""
    match = DMS.match(text)
    if not match:
        return None
    d, m, s, hemisphere = match.groups()
    value = Decimal(d) + Decimal(m or 0) / 60 + Decimal(s or 0) / 3600
    if value > (90 if hemisphere in "NS" else 180):
        return None
    return round(-value if hemisphere in "SW" else value, 6)


def tagged(cell: str) -> list[tuple[str, str | None]]:
    """'OpenAI #likely, Microsoft #likely' -> [('OpenAI', 'likely'), ('Microsoft', 'likely')]."""
    found = []
    for item in (i.strip() for i in cell.split(",")):
        match = TAG.search(item)
        name = item[:match.start()].strip() if match else item
        if name:
            found.append((name, match.group(1) if match else None))
    return found


def number(cells: dict[str, str], column: str, problems: list[str]) -> Decimal | None:
    text = cells.get(column, "")
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value < 0:
        problems.append(f"column {column!r}: {text!r} is not a usable figure")
        return None
    return value


def country_of(address: str, names: Names) -> str | None:
    """The country an address names (its last parts first), else the US when it names a US state."""
    for part in reversed([p.strip() for p in address.split(",") if p.strip()]):
        found = names.find("country", part)
        if found:
            return found
    return names.find("country", "US") if US_ADDRESS.search(address) else None


def read(path: Path, graph: str, *, names: Names, report: Report | None = None) -> Iterator[ox.Quad]:
    report = report or (lambda message: None)
    retrieved = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date()
    # orgn:epoch-ai is defined in data/ttl/organisations.ttl (one definition, not one per graph).
    yield from source_quads(DATASET, title="Data on Frontier AI Data Centers", kind="dataset-release",
                            url="https://epoch.ai/data/data-centers", publisher=PUBLISHER, creators=[PUBLISHER],
                            graph=graph)
    yield ox.Quad(ox.NamedNode(entity("source", DATASET)), ox.NamedNode("http://purl.org/dc/terms/license"),
                  ox.NamedNode(LICENCE), ox.NamedNode(graph))
    timeline = graph_key(path) == "data-center-timelines"
    required = TIMELINE_COLUMNS if timeline else CENTERS_COLUMNS
    declared: set[str] = set()
    dated: set[tuple[str, str]] = set()  # (data center, Date) pairs seen: a second row of one date is its own claim
    log = current_log()
    for number_, line, cells in rows(path, required):
        log.row()
        problems: list[str] = []
        locator = f"{path.name} line {line}"
        handle = cells["Data center" if timeline else "Handle"]
        try:
            slug = datacenter_slug(handle)
        except SlugError:
            report(f"{path.name} row {number_} (line {line}), column 'Handle': {handle!r} names no data center")
            continue
        if slug not in declared:
            declared.add(slug)
            alt = [] if timeline or not cells.get("Title") else [cells["Title"]]
            yield from entity_quads("site", slug, label=handle, alt_labels=alt, rdf_type=hpc("Datacenter"),
                                    graph=graph)
        site = entity("site", slug)
        if timeline:
            key = (slug, cells["Date"])
            qualifier = f"{cells['Date'][:10]}-line-{line}" if key in dated else None
            dated.add(key)
            yield from timeline_quads(cells, site, locator, retrieved, graph, problems, qualifier)
        else:
            yield from center_quads(cells, site, locator, retrieved, graph, names, problems)
        for problem in problems:
            report(f"{path.name} row {number_} (line {line}), {problem}")


def _claim(about: str, prop: str, value, *, locator: str, graph: str, tag: str | None = None,
           note: str | None = None, **extra) -> list[ox.Quad]:
    reference = Reference(DATASET, locator=locator, certainty=f"#{tag}" if tag else None)
    return claim_quads(make_claim(about, prop, value, tier=TAG_TIERS.get(tag, "lead"), basis="imported",
                                  references=[reference], note=note, **extra), graph=graph)


def center_quads(cells: dict[str, str], site: str, locator: str, retrieved: dt.date, graph: str, names: Names,
                 problems: list[str]) -> Iterator[ox.Quad]:
    """One data center as it is now: organisations, place and current figures."""
    minted: list[ox.Quad] = []
    for column, prop in (("Owner", "operator"), ("Users", "user")):
        for n, (name, tag) in enumerate(tagged(cells.get(column, ""))):
            if tag not in TAG_TIERS:
                problems.append(f"column {column!r}: #{tag} is not #confident, #likely or #speculative")
            org = names.find("org", name)
            if org is None:
                try:
                    org_slug = slugify(name)
                except SlugError:
                    problems.append(f"column {column!r}: {name!r} has no letters or digits to name it by")
                    continue
                org = entity("org", org_slug)
                minted += entity_quads("org", org_slug, label=name, graph=graph)
            rank = "preferred" if prop == "operator" and n == 0 else None
            yield from _claim(site, prop, Iri(org), locator=locator, graph=graph, tag=tag, rank=rank,
                              qualifier=slug_of(org))
    yield from minted
    address = cells.get("Address", "")
    if address:
        yield from _claim(site, "location", address, locator=locator, graph=graph)
        country = country_of(address, names)
        if country:
            yield from _claim(site, "country", Iri(country), locator=locator, graph=graph,
                              note=f"{locator}. The country of the address.")
        else:
            problems.append(f"column 'Address': {address[-40:]!r} names no country hpckg.reference knows")
    for column, prop in (("Latitude", "latitude"), ("Longitude", "longitude")):
        if cells.get(column):
            value = degrees(cells[column])
            if value is None or (prop == "latitude") != (cells[column].rstrip()[-1] in "NS"):
                problems.append(f"column {column!r}: {cells[column]!r} is not degrees, minutes and seconds")
            else:
                yield from _claim(site, prop, value, locator=locator, graph=graph)
    for column, prop in (("Current power (MW)", "powerCapacityMW"), ("Current H100 equivalents", "h100Equivalents"),
                         ("Current total capital cost (2025 USD billions)", "capitalCostBillionUSD")):
        value = number(cells, column, problems)
        if value is not None:
            yield from _claim(site, prop, value, locator=locator, graph=graph, rank="preferred", as_of=retrieved,
                              qualifier="current", note=f"{locator}. Current as of the dataset's retrieval.")


def timeline_quads(cells: dict[str, str], site: str, locator: str, retrieved: dt.date, graph: str,
                   problems: list[str], qualifier: str | None = None) -> Iterator[ox.Quad]:
    """One dated timeline row: the figures and the construction status at its Date (claim IRIs qualified by
    the date, or by `qualifier` when an earlier row had the same date)."""
    try:
        when = parse_date(cells["Date"][:10])
    except ValueError:
        problems.append(f"column 'Date': {cells['Date']!r} is not a date; the row is not imported")
        return
    planned = isinstance(when, dt.date) and when > retrieved
    note = f"{locator}. Dated after the dataset was retrieved: a plan." if planned else locator
    common = dict(locator=locator, graph=graph, point_in_time=when, qualifier=qualifier or str(when), note=note)
    for column, prop in (("Power (MW)", "powerCapacityMW"), ("H100 equivalents", "h100Equivalents")):
        value = number(cells, column, problems)
        if value is not None:
            yield from _claim(site, prop, value, **common)
    buildings = number(cells, "Buildings operational", problems)
    if buildings is not None:
        if buildings != buildings.to_integral_value():
            problems.append(f"column 'Buildings operational': {cells['Buildings operational']!r} is not a count")
        else:
            yield from _claim(site, "buildingsOperational", int(buildings), **common)
    if cells.get("Construction status"):
        yield from _claim(site, "constructionStatus", cells["Construction status"], **common)
