"""Epoch AI's "Data on GPU Clusters" (gpu_clusters.csv): one system per row, with its status, owners,
accelerators, power, H100 equivalents, place, dates and the links Epoch draws between its records.

Identity. Every row is a system `sys:epoch-<slug of Name>` (the "epoch-" prefix keeps an Epoch record from
ever landing on a curated system's IRI: the same machine is linked with hpc:sameMachineAs, never merged).
Names that give the same slug (Epoch has several "Anonymized Chinese System" rows) are told apart in file
order: the first keeps the slug, the next get -2, -3... The Name itself is an hpc:epochClusterName claim.

Tiers. Epoch rates each row Confirmed / Likely / Unlikely; the tier of every claim of the row comes from
this one table (TIERS), keyed by the certainty and by whether the row cites a source:

    Certainty   row cites a source   row cites none
    Confirmed   reported             lead
    Likely      lead                 lead
    Unlikely    lead                 lead

The certainty is kept verbatim on each claim's references (hpc:sourceCertainty), next to the tier.

Sources. Source 1..5 become hpc:Sources, one per distinct citation (slug `epoch-cited-<SHA-256 prefix>`):
a URL as schema:url (words after it, "(mentioned at 15:01)", become the reference's locator); a citation in
words ("Private correspondence with ... staff") as dcterms:identifier, reported as not a URL. A row that
cites nothing (about a third) is never shown as sourced: its claims cite the dataset itself
(src:epoch-gpu-clusters, "Epoch AI, Data on GPU Clusters", CC BY 4.0) with basis:dataset-gives-no-source,
which shapes/sourcing.ttl flags as a warning. The importer never invents a source.

Claims per row (empty cells state nothing): status (Existing -> operational, Planned -> planned,
Decommissioned -> decommissioned) with the file's retrieval date (its modification date) as hpc:asOf and
the operational or decommissioned date as hpc:startTime; operator per owner (comma-separated joint owners:
the first listed preferred, the others normal, as totals count a system under one operator; no owner is a
some-value claim); country (through hpckg.reference); location; operationalSince; decommissioned;
powerCapacityMW; h100Equivalents; buildsUpon, succeededBy and (at tier lead, as the claim-model decision
says) sameMachineAs for "Possible Duplicate Of", each naming the other record. Chips are components
`cmp:<system slug>-accelerator` (and `-accelerator-secondary`), role accelerator, with partModel (the part
IRI the epoch-hardware importer mints for that name, epoch_hardware.part_slug; every part named is declared
here too, so the graph stands alone), quantity and supplierAtBuild (an organisation through hpckg.reference,
else one minted here; "Unknown" and "Anonymized" are some-value claims). Notes ride on claims as skos:note
(the row's Note and Certainty Note on the status, Hardware note on the accelerators, First Operational Date
Note on operationalSince), each after the row's place in the file; the row's Quote is the hpc:quote of the
first reference of every claim of the row.

A cell that cannot be read (a count that is not a number, an unknown country, a link to a name not in the
file) is reported with file, row and column, and the rest of the row is imported. A file without Epoch's
columns is refused whole.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import (
    Reference,
    claim_quads,
    entity_quads,
    external_id_claim,
    make_claim,
    same_machine_claim,
    slug_of,
    some_value_claim,
    source_quads,
)
from hpckg.importers.epoch_csv import data_rows
from hpckg.importers.epoch_hardware import part_slug
from hpckg.importers.run import current_log
from hpckg.names import SlugError, slugify
from hpckg.namespaces import entity
from hpckg.reference import Reference as Names
from hpckg.values import AsOf, Iri, parse_date

TITLE = "Epoch AI, 'Data on GPU Clusters'"
WHERE = "https://epoch.ai/data/gpu-clusters (gpu_clusters.csv)"
PATTERNS = ("gpu_clusters.csv",)
USES_REFERENCE = True
REPORTS_PROBLEMS = True

DATASET = "epoch-gpu-clusters"
PUBLISHER = "epoch-ai"
LICENCE = "https://creativecommons.org/licenses/by/4.0/"
SOURCE_COLUMNS = tuple(f"Source {n}" for n in range(1, 6))
REQUIRED_COLUMNS = ("Name", "Status", "Certainty", "Owner", "Country", "Location", "Chip type (primary)",
                    "Chip quantity (primary)", "GPU Supplier (primary)", "Power Capacity (MW)",
                    "H100 equivalents", "First Operational Date", *SOURCE_COLUMNS)

# (Epoch's Certainty, whether the row cites a source) -> tier; the one table, see the module docstring.
TIERS: dict[tuple[str, bool], str] = {
    ("Confirmed", True): "reported",
    ("Likely", True): "lead",
    ("Unlikely", True): "lead",
    ("Confirmed", False): "lead",
    ("Likely", False): "lead",
    ("Unlikely", False): "lead",
}
STATUSES = {"Existing": "operational", "Planned": "planned", "Decommissioned": "decommissioned"}
STATUS = "https://w3id.org/hpckg/vocab/status/"
# Supplier cells that say a supplier exists without naming it.
UNNAMED = {"unknown", "anonymized", "anonymised"}
# (column, ontology property) of the links between records; the cell names other rows, comma-separated.
LINKS = (("Builds Upon", "buildsUpon"), ("Superseded by", "succeededBy"))
CHIPS = (("primary", "accelerator", "Chip type (primary)", "Chip quantity (primary)", "GPU Supplier (primary)"),
         ("secondary", "accelerator-secondary", "Chip type (secondary)", "Chip quantity (secondary)",
          "GPU supplier (secondary)"))

Report = Callable[[str], None]


def graph_key(path: Path) -> str:
    return "gpu-clusters"


@dataclass
class Row:
    """One data row: its number (1 = the first under the header), its line in the file, its cells."""

    number: int
    line: int
    cells: dict[str, str]

    def __getitem__(self, column: str) -> str:
        text = (self.cells.get(column) or "").strip()
        if column == "Name" and len(text) > 1 and text[0] == text[-1] == '"':
            # Five names are quoted twice in the export ("""Jupiter, Jülich""" reads as "Jupiter, Jülich" with
            # its quote marks): the marks are the spreadsheet's escaping of the comma, not part of the name.
            text = text[1:-1].strip()
        return text


def rows(path: Path) -> list[Row]:
    """Every data row; InputError for a file that is not Epoch's gpu_clusters.csv or not readable CSV."""
    return [Row(number, line, cells)
            for number, line, cells in data_rows(path, REQUIRED_COLUMNS, expected="gpu_clusters.csv", where=WHERE)]


def system_slug(name: str) -> str:
    """epoch-<slug>, parenthesised words kept ("Alps (Phase 2)" stays apart from "Alps (Phase 1)")."""
    return "epoch-" + slugify(name.replace("(", " ").replace(")", " "))


def assign_slugs(table: list[Row], path: Path, report: Report) -> dict[int, str]:
    """Row number -> system slug, unique: a slug taken by an earlier row gets -2, -3... in file order."""
    slugs: dict[int, str] = {}
    taken: set[str] = set()
    for row in table:
        try:
            base = system_slug(row["Name"])
        except SlugError:
            base = f"epoch-row-{row.number}"
            report(f"{path.name} row {row.number} (line {row.line}), column 'Name': {row['Name']!r} has no "
                   f"letters or digits to name the system by; it is {base}")
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        slugs[row.number] = slug
    return slugs


def cited_source(text: str) -> tuple[str, str | None, str | None]:
    """A Source cell -> (source slug, URL or None, words after the URL or None)."""
    first, _, rest = text.partition(" ")
    url = first if first.startswith(("http://", "https://")) and '"' not in first and "<" not in first else None
    key = url or text
    slug = "epoch-cited-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return slug, url, (rest.strip() or None) if url else None


def _decimal(row: Row, column: str, problems: list[str]) -> Decimal | None:
    text = row[column]
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        problems.append(f"column {column!r}: {text!r} is not a number")
        return None
    if not value.is_finite() or value < 0:
        problems.append(f"column {column!r}: {text!r} is not a usable figure")
        return None
    return value


def _count(row: Row, column: str, problems: list[str]) -> int | None:
    """A whole count; Epoch's float noise (30000.000000000004) is rounded, a real fraction is a problem."""
    value = _decimal(row, column, problems)
    if value is None:
        return None
    whole = int(value.to_integral_value())
    if whole <= 0 or abs(value - whole) > Decimal("1e-6") * max(whole, 1):
        problems.append(f"column {column!r}: {row[column]!r} is not a positive whole count")
        return None
    return whole


def _date(row: Row, column: str, problems: list[str]) -> AsOf | None:
    text = row[column]
    if not text:
        return None
    try:
        return parse_date(text[:10])
    except ValueError:
        problems.append(f"column {column!r}: {text!r} is not a date (yyyy, yyyy-mm or yyyy-mm-dd)")
        return None


class Organisations:
    """Organisation names -> IRIs: the curated one hpckg.reference knows, else one minted in this graph."""

    def __init__(self, names: Names, graph: str) -> None:
        self.names, self.graph, self.minted = names, graph, set()

    def iri(self, name: str, out: list[ox.Quad]) -> str:
        known = self.names.find("org", name)
        if known:
            return known
        slug = slugify(name)
        if slug not in self.minted:
            self.minted.add(slug)
            out += entity_quads("org", slug, label=name, graph=self.graph)
        return entity("org", slug)


def read(path: Path, graph: str, *, names: Names, report: Report | None = None) -> Iterator[ox.Quad]:
    report = report or (lambda message: None)
    table = rows(path)
    retrieved = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date()
    # orgn:epoch-ai is defined in data/ttl/organisations.ttl (one definition, not one per graph).
    yield from source_quads(DATASET, title="Data on GPU Clusters", kind="dataset-release",
                            url="https://epoch.ai/data/gpu-clusters", publisher=PUBLISHER,
                            creators=[PUBLISHER], graph=graph)
    yield ox.Quad(ox.NamedNode(entity("source", DATASET)), ox.NamedNode("http://purl.org/dc/terms/license"),
                  ox.NamedNode(LICENCE), ox.NamedNode(graph))
    slugs = assign_slugs(table, path, report)
    by_name: dict[str, list[str]] = {}
    for row in table:
        by_name.setdefault(row["Name"], []).append(slugs[row.number])
    context = Context(path, graph, retrieved, slugs, by_name, Organisations(names, graph))
    log = current_log()
    for row in table:
        log.row()
        problems: list[str] = []
        yield from context.row_quads(row, problems)
        for problem in problems:
            report(f"{path.name} row {row.number} (line {row.line}), {problem}")


@dataclass
class Context:
    """What every row's claims share: the file, the graph, the names of all rows, the entities declared."""

    path: Path
    graph: str
    retrieved: dt.date
    slugs: dict[int, str]
    by_name: dict[str, list[str]]
    organisations: Organisations
    sources: set[str] = field(default_factory=set)  # source slugs declared so far, each once per graph
    parts: set[str] = field(default_factory=set)  # part slugs declared so far

    def row_quads(self, row: Row, problems: list[str]) -> list[ox.Quad]:
        out: list[ox.Quad] = []
        slug = self.slugs[row.number]
        system = entity("system", slug)
        locator = f"{self.path.name} line {row.line}"
        certainty = row["Certainty"]
        cited = [(column, row[column]) for column in SOURCE_COLUMNS if row[column]]
        tier = TIERS.get((certainty, bool(cited)))
        if tier is None:
            problems.append(f"column 'Certainty': {certainty!r} is not Confirmed, Likely or Unlikely; "
                            "its claims are leads")
            tier = "lead"
        quote = row["Quote"] or None
        references: list[Reference] = []
        for column, text in cited:
            source, url, words = cited_source(text)
            if source not in self.sources:
                self.sources.add(source)
                out += source_quads(source, title=text if url is None else url, kind="cited-by-dataset",
                                    url=url, graph=self.graph)
                if url is None:
                    out.append(ox.Quad(ox.NamedNode(entity("source", source)),
                                       ox.NamedNode("http://purl.org/dc/terms/identifier"), ox.Literal(text),
                                       ox.NamedNode(self.graph)))
            if url is None:
                problems.append(f"column {column!r}: {text[:80]!r} is not a URL; kept as a source cited in words")
            if source not in {r.source for r in references}:
                references.append(Reference(source, locator=words, certainty=certainty or None,
                                            quote=None if references else quote))
        basis = "imported"
        if not references:
            # The row cites nothing: the dataset is the only thing to cite, and the basis says so.
            basis = "dataset-gives-no-source"
            references = [Reference(DATASET, locator=locator, retrieved=self.retrieved,
                                    certainty=certainty or None, quote=quote)]

        def claim(about: str, prop: str, value, *, note: str | None = None, **extra) -> list[ox.Quad]:
            text = locator if not note else f"{locator}. {note}"
            return claim_quads(make_claim(about, prop, value, tier=tier, basis=basis, references=references,
                                          note=text, **extra), graph=self.graph)

        def unnamed(about: str, prop: str, note: str) -> list[ox.Quad]:
            return claim_quads(some_value_claim(about, prop, tier=tier, basis=basis, references=references,
                                                note=f"{locator}. {note}"), graph=self.graph)

        out += entity_quads("system", slug, label=row["Name"] or slug, graph=self.graph)
        out += claim_quads(external_id_claim(system, "epochClusterName", row["Name"], tier=tier, basis=basis,
                                             references=references, note=locator, qualifier="epoch"),
                           graph=self.graph)
        operational = _date(row, "First Operational Date", problems)
        decommissioned = _date(row, "Decommissioned Date (if applicable)", problems)
        status = STATUSES.get(row["Status"])
        if status is None:
            problems.append(f"column 'Status': {row['Status']!r} is not Existing, Planned or Decommissioned")
        else:
            start = {"operational": operational, "decommissioned": decommissioned}.get(status)
            notes = " ".join(n for n in (row["Note"], f"Certainty: {row['Certainty Note']}"
                                         if row["Certainty Note"] else "") if n)
            out += claim(system, "status", Iri(STATUS + status), as_of=self.retrieved, start=start,
                         note=notes or None)
        owners = [o.strip() for o in row["Owner"].split(",") if o.strip()]
        for n, owner in enumerate(owners):
            try:
                operator = self.organisations.iri(owner, out)
            except SlugError:
                problems.append(f"column 'Owner': {owner!r} has no letters or digits to name it by")
                continue
            out += claim(system, "operator", Iri(operator), rank="preferred" if n == 0 else None,
                         qualifier=slug_of(operator),
                         note=None if len(owners) == 1 else f"Joint owner {n + 1} of {len(owners)}.")
        if not owners:
            out += unnamed(system, "operator", "Epoch names no owner.")
        if row["Country"]:
            country = self.organisations.names.find("country", row["Country"])
            if country:
                out += claim(system, "country", Iri(country))
            else:
                problems.append(f"column 'Country': {row['Country']!r} is no country hpckg.reference knows")
        if row["Location"]:
            out += claim(system, "location", row["Location"])
        if operational is not None:
            out += claim(system, "operationalSince", operational, note=row["First Operational Date Note"] or None)
        if decommissioned is not None:
            out += claim(system, "decommissioned", decommissioned)
        for column, prop in (("Power Capacity (MW)", "powerCapacityMW"), ("H100 equivalents", "h100Equivalents")):
            value = _decimal(row, column, problems)
            if value is not None:
                out += claim(system, prop, value)
        out += self.chip_quads(row, slug, claim, unnamed, problems)
        out += self.link_quads(row, system, claim, basis, references, locator, problems)
        return out

    def chip_quads(self, row: Row, slug: str, claim, unnamed, problems: list[str]) -> list[ox.Quad]:
        """The accelerator rows: always the primary one (every cluster has accelerators, named or not), the
        secondary one when Epoch gives its chip or count."""
        out: list[ox.Quad] = []
        for which, suffix, type_column, quantity_column, supplier_column in CHIPS:
            chip, supplier = row[type_column], row[supplier_column]
            quantity = _count(row, quantity_column, problems)
            if which == "secondary" and not chip and quantity is None:
                continue
            component = entity("component", f"{slug}-{suffix}")
            out += entity_quads("component", f"{slug}-{suffix}", label=f"{row['Name']} {which} accelerators",
                                component_of=entity("system", slug), role="accelerator", graph=self.graph)
            note = row["Hardware note"] or None
            if chip:
                try:
                    part = part_slug(chip)
                except SlugError:
                    problems.append(f"column {type_column!r}: {chip!r} has no letters or digits to name a part by")
                else:
                    if part not in self.parts:
                        self.parts.add(part)
                        out += entity_quads("part", part, label=chip, graph=self.graph)
                    out += claim(component, "partModel", Iri(entity("part", part)), note=note)
            if quantity is not None:
                out += claim(component, "quantity", quantity, note=note)
            if supplier and supplier.lower() not in UNNAMED:
                out += claim(component, "supplierAtBuild", Iri(self.organisations.iri(supplier, out)))
            elif which == "primary":
                said = f"Epoch gives the supplier as {supplier!r}." if supplier else "Epoch names no supplier."
                out += unnamed(component, "supplierAtBuild", said)
        return out

    def link_quads(self, row: Row, system: str, claim, basis: str, references: list[Reference], locator: str,
                   problems: list[str]) -> list[ox.Quad]:
        """Builds Upon, Superseded by and Possible Duplicate Of: claims naming the other records."""
        out: list[ox.Quad] = []
        for column, prop in (*LINKS, ("Possible Duplicate Of", "sameMachineAs")):
            for other in self.linked(row, column, problems):
                if other == system:
                    continue
                if prop == "sameMachineAs":
                    out += claim_quads(same_machine_claim(
                        system, other, tier="lead", basis=basis, references=references,
                        note=f"{locator}. Epoch marks this record a possible duplicate of the other."),
                        graph=self.graph)
                else:
                    out += claim(system, prop, Iri(other), qualifier=slug_of(other))
        return out

    def linked(self, row: Row, column: str, problems: list[str]) -> list[str]:
        """The systems a link cell names: the whole cell as one name, else each comma-separated name."""
        text = row[column]
        if not text:
            return []
        names = [text] if text in self.by_name else [n.strip() for n in text.split(",") if n.strip()]
        if not all(name in self.by_name for name in names):
            problems.append(f"column {column!r}: no row is named {text!r}; not linked")
            return []
        found: list[str] = []
        for name in names:
            slugs = self.by_name[name]
            if len(slugs) > 1:
                problems.append(f"column {column!r}: {len(slugs)} rows are named {name!r}; not linked")
            else:
                found.append(entity("system", slugs[0]))
        return found
