"""The TOP500 list (top500.org): one named graph per edition ("2019-06"), one system entity per machine.

Files are read by hpckg.importers.top500_files (XML 1993-06 … 2014-11, XLS 2011-11 … 2019-11, XLSX from
2020-06; figures converted to TFlop/s and kW). Every claim is tier reported, basis imported, and cites the
edition's source (src:top500-2019-06, "TOP500 list, June 2019", published by orgn:top500) with a reference
locating the row in the file. Two kinds of claim:

- **Per-edition entries** (rank, Rmax, Rpeak, Nmax, HPCG, power, cores, accelerator cores, GF/W): one
  claim per edition, `hpc:pointInTime` and `hpc:edition` the edition, IRI system + property + edition.
- **Values the list repeats** (name, site, country, segment, year, manufacturer, processor, accelerator,
  interconnect, processor family (Processor Technology), interconnect family, System ID): one claim per
  distinct value, its IRI minted from system + property + the value itself, so each edition's graph states
  the same claim again with its own source, `hpc:edition` and reference (keyed by the edition). In the union
  of graphs a name listed in twenty editions is one claim with twenty sources, and the XML and the
  spreadsheet of one edition give the same claims. A value that changed (a site renamed, Cray Inc. listed as
  HPE) is a second claim; the two never share an edition, so they do not disagree (shapes/claims.ttl,
  disagreeing-normal-claims), and the latest is truthy.

Names. A system's rdfs:label is not written here: the build derives it from its truthy name, else its
truthy `systemDescription` (the list's Computer column), queries/rules/12-display-label.rq; the record's own
name ("TOP500 system 177232") is a skos:hiddenLabel. A site claim keeps the words the edition printed
(hpc:statedAs), so each edition's list shows the site's name of the day.

Entities. Sites are `site:top500-site-<Site ID>`, an entry without one placed by hpckg.importers.top500_sites
(its machine's or its name's Site ID, else a record keyed by the name), titled by the latest edition's name;
a site whose name names an organisation has it as operator, from which rule 05-site-operator derives the
systems' operators (docs/decisions/20261204-top500-sites-and-operators.md);
countries come from data/ttl/countries.ttl and manufacturers from the organisations' names in data/ttl
(hpckg.reference, dated: "SGI" in 1998 is Silicon Graphics): a name no curated entity answers to becomes an
organisation or part of its own in the graph (`orgn:top500-maker-<slug>`, `part:top500-<slug>`), listed by
the import summary. The manufacturer is the supplier of an integrator component; processor, accelerator and
interconnect are components whose part model is named by the list's text. "Self-made" names no supplier.

Identity: hpckg.importers.top500_identity (System ID from the file, or recovered from the same edition's
XML, the Previous Rank chain, a matching entry near it, or the next edition; links need the entries to agree
and never cross a change of country; the basis and evidence are kept in each entry's rank-claim note). The
import summary adds how many distinct machines all editions hold, by how they were identified
(`summary_lines`); queries/system-moves.rq lists every system whose country or site changes.

One file per edition. 2011-11 … 2014-11 exist as XML and XLS: `select` keeps the XML (it has the System
ID), and each entry is completed from its twin in the other file (`merge_twins`: the spreadsheet adds
processor, interconnect, accelerator, segment, accelerator cores, GF/W and more precise figures, the XML the
IDs). Twins are paired by what their rows say (top500_identity.pair_twins), never by rank alone; an entry
without a twin keeps its own figures, and the rank is always the cited file's. Importing either file gives
the same claims where the two list the same entries.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Iterable, Iterator
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import (
    Reference,
    claim_quads,
    entity_quads,
    external_id_claim,
    list_edition_quads,
    make_claim,
    reference_quads,
    some_value_claim,
    source_quads,
)
from hpckg.importers.run import current_log, shared_graph_iri
from hpckg.importers.top500_files import Entry, edition_of
from hpckg.importers.top500_identity import Identity, entries_of, identities_for, same_figure, twin_file, twins
from hpckg.importers.top500_sites import SiteChoice, anonymised, sites_for
from hpckg.machinegraphs import graph_file
from hpckg.names import SlugError, slugify
from hpckg.namespaces import entity, hpc
from hpckg.reference import Reference as Names
from hpckg.terms import PROV_HAD_PRIMARY_SOURCE, RDF_TYPE, SKOS_ALT_LABEL
from hpckg.values import Iri, Value, Year, YearMonth

TITLE = "The TOP500 list (top500.org), one file per edition"
WHERE = "https://top500.org/lists/top500/ (TOP500_YYYYMM.xml / .xls / .xlsx)"
PATTERNS = ("TOP500_*.xml", "TOP500_*.xls", "TOP500_*.xlsx")
USES_REFERENCE = True

LIST = "top500"
PUBLISHER = "top500"
MONTHS = {"06": "June", "11": "November"}
# The format kept when one edition is present in several: XML first (it carries the System ID), see above.
PREFERENCE = {".xml": 0, ".xls": 1, ".xlsx": 2}
NO_SUPPLIER = {"selfmade", "self-made"}  # the site built it itself: no supplier to name
# Per-edition figures: Entry field -> claim property.
PER_EDITION = (("rank", "listRank"), ("rmax_tflops", "rmax"), ("rpeak_tflops", "rpeak"), ("nmax", "nmax"),
               ("hpcg_tflops", "hpcg"), ("power_kw", "powerKW"), ("cores", "cores"),
               ("accelerator_cores", "acceleratorCores"), ("gflops_per_watt", "gflopsPerWatt"))
COMPONENTS = (("processor", "cpu"), ("accelerator", "accelerator"), ("interconnect", "interconnect"))
# What an edition's graph says about a repeated claim: that this edition states it, and where.
ATTESTATION = {ox.NamedNode(PROV_HAD_PRIMARY_SOURCE), ox.NamedNode(hpc("edition")), ox.NamedNode(hpc("reference"))}


# How an entry without a Site ID was tied to its site record (top500_sites), noted on its site claim.
SITE_BASIS = {
    "same system": "This edition gives no Site ID: the site is the one this machine is listed at, under this "
                   "name, in the editions that do.",
    "same name": "This edition gives no Site ID: the site is the one Site ID this name has in this country in "
                 "the editions that do.",
    "name": "This edition gives no Site ID, and no edition that does ties this name to one: the site is "
            "known by its name (an anonymised one by its letter and country).",
    "anonymous": "This edition gives no Site ID, and the list's anonymised name without a letter names no one "
                 "site: the site is this machine's own record.",
}


def graph_key(path: Path) -> str:
    return edition_of(path)


def select(files: Iterable[Path]) -> list[Path]:
    """One file per edition from a folder's files: the XML where an edition is also a spreadsheet."""
    chosen: dict[str, Path] = {}
    for path in files:
        key = edition_of(path)
        if key not in chosen or PREFERENCE[path.suffix.lower()] < PREFERENCE[chosen[key].suffix.lower()]:
            chosen[key] = path
    return sorted(chosen.values())


def edition_label(edition: str) -> str:
    year, month = edition.split("-")
    return f"{MONTHS.get(month, month)} {year}"


def value_key(value: Value) -> str:
    """A short, stable digest of a value, for the IRI of a claim that states it."""
    return hashlib.sha256(repr(value).encode("utf-8")).hexdigest()[:12]


def _slug(text: str, prefix: str) -> str:
    try:
        return f"{prefix}-{slugify(text)}"[:120].rstrip("-")
    except SlugError:
        return f"{prefix}-{value_key(text)}"


def merged_entries(path: Path) -> list[Entry]:
    """The file's entries; for an edition published both as XML and as a spreadsheet (2011-11 … 2014-11), each
    entry completed from its twin in the other file by `merge_twins`. Twins are paired by what they say
    (top500_identity.twins: System ID, else site, computer, cores, Rmax and country), never by rank alone:
    the two files of 2014-06 list different entries from rank 93 on. An entry without a twin keeps its own
    figures. The rank is always the file's own (the row the claims cite)."""
    entries = list(entries_of(path))
    paired = twins(path)
    if not paired:
        return entries
    is_xml = path.suffix.lower() == ".xml"
    merged = []
    for entry in entries:
        twin, _ = paired.get(entry.rank, (None, None))
        if twin is not None:
            entry = merge_twins(entry, twin) if is_xml else dataclasses.replace(
                merge_twins(twin, entry), row=entry.row, rank=entry.rank, previous_rank=entry.previous_rank)
        merged.append(entry)
    return merged


def merge_twins(xml: Entry, sheet: Entry) -> Entry:
    """One entry from an edition's XML and spreadsheet rows of it: each field from the file that has it;
    where both do, text from the XML (which has the System and Site IDs the names go with) and figures from
    the spreadsheet where they are the XML's to its rounding (the XML rounds Rpeak to four decimals and power
    to one), else the XML's own (the files disagree: the XML is the file cited). Keeps the XML's row and rank."""
    values = {}
    for field in dataclasses.fields(Entry):
        name = field.name
        if name in ("edition", "row", "rank", "problems"):
            continue
        mine, theirs = getattr(xml, name), getattr(sheet, name)
        if mine in (None, ""):
            values[name] = theirs
        elif theirs not in (None, "") and not isinstance(mine, str) and same_figure(Decimal(mine), Decimal(theirs)):
            values[name] = theirs
    return dataclasses.replace(xml, **values)


REPORTS_PROBLEMS = True  # read() takes report=: cells it could not use (the row goes on)


def summary_lines(graphs: Path) -> list[str]:
    """What the import summary adds for the TOP500: how many distinct machines all the editions imported
    so far hold (the table's systems column counts each edition's), by how they were identified. Read from
    the shared graph under the project's `graphs` folder, where each system is typed once: one scan of the
    file, no store."""
    shared = graph_file(graphs, "import", LIST, "shared")
    if not shared.exists():
        return []
    typed = f"> <{RDF_TYPE}> <{hpc('System')}> <{shared_graph_iri(LIST)}> .".encode()
    start = entity("system", "").encode()
    by_id = without = 0
    with shared.open("rb") as lines:
        for line in lines:
            if line.startswith(b"<" + start) and line.rstrip().endswith(typed):
                slug = line[len(start) + 1:line.index(b">")].decode()
                if slug.removeprefix("top500-").isdigit():
                    by_id += 1
                else:
                    without += 1
    return [f"TOP500: {by_id + without:,} distinct machines: {by_id:,} by System ID (read from the file, or tied "
            f"to it through the same edition's XML, Previous Rank, a matching entry or the 2011 renumbering), "
            f"{without:,} without one "
            "(listed only in editions without IDs, keyed by their first listing)"]


def read(path: Path, graph: str, *, names: Names, report=None) -> Iterator[ox.Quad]:
    edition = edition_of(path)
    year, month = (int(part) for part in edition.split("-"))
    when = YearMonth(year, month)
    source = f"top500-{edition}"
    shared = shared_graph_iri("top500")
    # orgn:top500 is defined in data/ttl/organisations.ttl (one definition, not one per graph).
    yield from entity_quads("dataset", LIST, label="TOP500", graph=shared)
    yield from list_edition_quads(source, label=f"TOP500 {edition_label(edition)}", edition_of=LIST,
                                  issued=when, graph=graph)
    yield from source_quads(source, title=f"TOP500 list, {edition_label(edition)}", kind="dataset-release",
                            url=f"https://top500.org/lists/top500/{year}/{month:02d}/", publisher=PUBLISHER,
                            issued=when, graph=graph)
    context = EditionContext(path, edition, source, when, graph, names)
    log = current_log()
    for entry in merged_entries(path):
        log.row()
        for problem in entry.problems if report else ():
            report(f"{path.name} {context.row_word} {entry.row}: {problem}")
        yield from context.entry_quads(entry)


class EditionContext:
    """What every entry of one edition file shares, and the entities it has already written."""

    def __init__(self, path: Path, edition: str, source: str, when: YearMonth, graph: str, names: Names):
        self.path, self.edition, self.source, self.when, self.graph = path, edition, source, when, graph
        # Entities and repeated claims go to the importer's shared graph; this edition's graph holds its
        # own figures and its attestation (source, edition, reference) of each repeated claim.
        self.shared = shared_graph_iri("top500")
        self.date = dt.date(when.year, when.month, 1)
        self.names = names
        self.identities = identities_for(path)
        self.twins = twins(path)  # rank -> the twin row the entry was completed from (2011-11 … 2014-11)
        twin = twin_file(path)
        self.twin_row_word = "site" if twin is not None and twin.suffix.lower() == ".xml" else "row"
        self.twin_name = twin.name if twin is not None else ""
        self.sites = sites_for(path)
        self.row_word = "site" if path.suffix.lower() == ".xml" else "row"
        self.written: set[str] = set()  # entity IRIs already written into this graph
        self.seen: set[str] = set()  # system slugs of this edition

    def system_slug(self, entry: Entry) -> tuple[str, Identity | None]:
        identity = self.identities.of(entry, self.path)
        if identity is not None:
            slug = f"top500-{identity.system_id}"
        elif entry.rank:
            slug = f"top500-{entry.edition}-rank-{entry.rank}"
        else:
            slug = f"top500-{entry.edition}-row-{entry.row}"
        if slug in self.seen:
            # Two entries of one edition with one System ID stay apart: the second is its own entity.
            slug, identity = f"top500-{entry.edition}-row-{entry.row}", None
        self.seen.add(slug)
        return slug, identity

    def entry_quads(self, entry: Entry) -> Iterator[ox.Quad]:
        slug, identity = self.system_slug(entry)
        system = entity("system", slug)
        # One reference node per row of the file, which every claim read from that row points at.
        locator = f"{self.path.name} {self.row_word} {entry.row}"
        twin, link = self.twins.get(entry.rank, (None, None))
        if twin is not None and link is not None:
            # The figures the twin adds or makes more precise come from its row: the reference names both.
            locator += f", completed from {self.twin_name} {self.twin_row_word} {twin.row} ({link.evidence})"
        reference = Reference(self.source, locator=locator,
                              iri=entity("reference", f"top500-{self.edition}-{self.row_word}-{entry.row}"))
        yield from reference_quads(None, 0, reference, graph=self.graph)
        common = dict(tier="reported", basis="imported", edition=self.source, references=[reference])
        # The record's own name ("TOP500 system 177232") finds it but titles nothing: the build labels the
        # system with its truthy name, else the list's description of it (queries/rules/12-display-label.rq),
        # as top500.org titles it; a label written here would be one edition's and multiply across editions.
        if identity is not None and not identity.synthetic:
            record = f"TOP500 system {identity.system_id}"
        else:  # first listed in an edition without System IDs, and never again in one with them
            key = identity.system_id if identity else f"{entry.edition}-rank-{entry.rank}"
            record = "TOP500 " + key.replace("-rank-", " rank ")
        alt = [entry.name] if entry.name else []
        if entry.computer:
            alt.append(f"{entry.computer} ({entry.site})" if entry.site else entry.computer)
        yield from entity_quads("system", slug, label=None, alt_labels=alt, hidden_labels=[record],
                                graph=self.shared)

        def repeated(prop: str, value: Value, subject: str = system, note: str | None = None,
                     stated_as: str | None = None) -> list[ox.Quad]:
            key = value_key(value if stated_as is None else (value, stated_as))
            return self.split(make_claim(subject, prop, value, qualifier=key, note=note, stated_as=stated_as,
                                         **common))

        for field, prop in PER_EDITION:
            value = getattr(entry, field)
            if value is None or (field == "rank" and not value):
                continue
            note = None
            if field == "rank" and identity is not None and identity.basis not in ("file", "first listed"):
                what = "the entry first listed at" if identity.synthetic else "TOP500 System ID"
                note = (f"Tied to {what} {identity.system_id} by {identity.basis} ({identity.via}); this "
                        "edition's file has no System ID.")
            claim = make_claim(system, prop, value, point_in_time=self.when, qualifier=self.edition, note=note,
                               **common)
            yield from claim_quads(claim, graph=self.graph)
        if identity is not None and not identity.synthetic:
            yield from self.split(external_id_claim(system, "top500SystemId", identity.system_id, **common))
        if entry.name:
            yield from repeated("name", entry.name)
        if entry.computer:
            yield from repeated("systemDescription", entry.computer)
        if entry.segment:
            yield from repeated("segment", entry.segment)
        # The list's own grouping of processors and interconnects (the spreadsheets from 2011-11), for the
        # statistics per edition: the part models alone are hundreds of spellings.
        if entry.processor_technology:
            yield from repeated("processorFamily", entry.processor_technology)
        if entry.interconnect_family:
            yield from repeated("interconnectFamily", entry.interconnect_family)
        if entry.year:
            yield from repeated("operationalSince", Year(entry.year),
                                note="The list's Year: when the system was installed or last upgraded.")
        site = None
        if entry.site:
            machine = identity.system_id if identity else f"{entry.edition}-rank-{entry.rank}"
            site = self.sites.choose(entry, identity.system_id if identity else None, machine)
            yield from self.site_quads(entry, site, common)
            note = None if site.basis == "file" else f"{edition_label(self.edition)}: {SITE_BASIS[site.basis]}"
            # Stated as this edition printed it, so a historical list shows the site's name of the day.
            yield from repeated("site", Iri(entity("site", site.slug)), note=note, stated_as=entry.site)
        country = self.names.find("country", entry.country)
        if country:
            yield from repeated("country", Iri(country))
        site_name = (self.sites.label(site.slug) or entry.site) if site else None
        if site_name is None or anonymised(site_name):
            # The operator of a site the list names is derived from the site (rule 05-site-operator); an
            # anonymised site names no one, so the operator stays "not named".
            note = (f"The list names the site only as {site_name!r}, which names no organisation."
                    if site_name else "The list names no site.")
            yield from self.split(some_value_claim(system, "operator", note=note, qualifier="unknown", **common))
        yield from self.integrator_quads(entry, slug, repeated)
        for field, role in COMPONENTS:
            text = getattr(entry, field)
            if text:
                component = self.component(slug, role)
                yield from self.once(component, lambda c=component, r=role: entity_quads(
                    "component", c.rsplit("/", 1)[-1], label=f"{record} {r}", component_of=system, role=r,
                    graph=self.shared))
                part = self.names.find("part", text)
                if part is None:  # a curated part is defined by its file: the import only names it
                    part = entity("part", _slug(text, "top500"))
                    yield from self.once(part, lambda p=part, t=text: entity_quads(
                        "part", p.rsplit("/", 1)[-1], label=t, graph=self.shared))
                yield from repeated("partModel", Iri(part), subject=component)

    def integrator_quads(self, entry: Entry, slug: str, repeated) -> Iterator[ox.Quad]:
        maker = entry.manufacturer
        if not maker or maker.replace(" ", "").lower() in NO_SUPPLIER:
            return
        organisations = self.names.find_all("org", maker, when=self.date)
        if not organisations:
            organisations = [entity("org", _slug(maker, "top500-maker"))]
            yield from self.once(organisations[0], lambda: entity_quads(
                "org", organisations[0].rsplit("/", 1)[-1], label=maker, graph=self.shared))
        for organisation in organisations:
            # One integrator component per organisation: "Appro International / Cray Inc." is two suppliers,
            # each the one supplier of its component (supplierAtBuild is single-valued).
            component = self.component(slug, f"integrator-{organisation.rsplit('/', 1)[-1]}")
            yield from self.once(component, lambda c=component: entity_quads(
                "component", c.rsplit("/", 1)[-1], label=f"{slug} integrator", component_of=entity("system", slug),
                role="integrator", graph=self.shared))
            yield from repeated("supplierAtBuild", Iri(organisation), subject=component,
                                note=f"Listed as manufacturer: {maker}.")

    def component(self, slug: str, role: str) -> str:
        return entity("component", f"{slug}-{role}")

    def site_quads(self, entry: Entry, site: SiteChoice, common: dict) -> Iterator[ox.Quad]:
        """The site record: labelled by the name the latest edition gives it (top500_sites, read from every
        edition of the folder, so each edition's import writes the same one label), every name an
        alternative label; this edition's Site ID as a claim; and, for a site whose name names an
        organisation, that organisation as the site's operator."""
        iri = entity("site", site.slug)
        label = self.sites.label(site.slug) or entry.site
        yield from self.once(iri, lambda: entity_quads("site", site.slug, label=label, alt_labels=[entry.site],
                                                       graph=self.shared))
        yield ox.Quad(ox.NamedNode(iri), ox.NamedNode(SKOS_ALT_LABEL), ox.Literal(entry.site, language="en"),
                      ox.NamedNode(self.shared))
        if entry.site_id and entry.site_id.isdigit():
            yield from self.split(external_id_claim(iri, "top500SiteId", entry.site_id, **common))
        minted = self.sites.operator(site.slug, label)  # None for an anonymised site
        if minted is not None:
            organisation = self.names.find("org", label) or entity("org", minted[0])
            if organisation == entity("org", minted[0]):
                yield from self.once(organisation, lambda: entity_quads(
                    "org", minted[0], label=minted[1], graph=self.shared))
            note = (f"The list names the site {label!r}: a laboratory, university or company site is the "
                    "organisation that runs its systems.")
            yield from self.split(make_claim(iri, "operator", Iri(organisation), qualifier=value_key(organisation),
                                             note=note, **common))

    def split(self, claim) -> list[ox.Quad]:
        """A repeated claim's quads: what it states in the shared graph, this edition's attestation of it
        (source, edition, reference) in the edition's graph."""
        quads = claim_quads(claim, graph=self.shared)
        edition = ox.NamedNode(self.graph)
        return [ox.Quad(q.subject, q.predicate, q.object, edition) if q.predicate in ATTESTATION else q
                for q in quads]

    def once(self, iri: str, make) -> list[ox.Quad]:
        if iri in self.written:
            return []
        self.written.add(iri)
        return make()
