"""The TOP500 list (top500.org): one named graph per edition ("2019-06"), one system entity per machine.

Files are read by hpckg.importers.top500_files (XML 1993-06 … 2014-11, XLS 2011-11 … 2019-11, XLSX from
2020-06; figures in TFlop/s and kW). Per edition the graph holds the edition (an hpc:ListEdition,
ds:top500-2019-06, edition of ds:top500), its source (src:top500-2019-06, a dataset release published by
orgn:top500) and per entry a system with these claims, each at tier reported, basis imported, with
`hpc:pointInTime` and `hpc:edition` the edition and a reference locating the row in the file:
listRank, rmax, rpeak, cores, powerKW (where given), name (where the list gives one), top500SystemId
(where the file has one) and a some-value operator (the list names a site, not an operator; the shapes
require every system to say something about its operator).

Identity. A system's slug is `top500-<System ID>`, so one machine across editions is one entity with one
claim per edition (claim IRIs are system + property + edition, so re-importing rewrites the same claims).
The spreadsheets of 2015-06 … 2017-06 have no System ID: their entries are `top500-<edition>-rank-<n>`,
one entity per entry, not yet linked to the machine's other records (a documented gap; `Previous Rank`
could link them to the edition before).

One file per edition. 2011-11 … 2014-11 exist as both XML and XLS. `select` keeps the XML of those
editions when a folder holds both: the XLS of those years has no System ID column, so it would cut those
eight editions off from the machines' other records, and every column this importer reads is in the XML.
(The XLS has more columns — segment, processor, interconnect — which a later importer may merge by rank.)

Not yet imported: country (the graph has few country entities; the list's names need a mapping), site and
manufacturer as organisations (their strings vary over thirty years and need normalising first).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import (
    Reference,
    claim_quads,
    entity_quads,
    external_id_claim,
    list_edition_quads,
    make_claim,
    some_value_claim,
    source_quads,
)
from hpckg.importers.top500_files import Entry, edition_of, read_entries
from hpckg.namespaces import entity
from hpckg.values import YearMonth

TITLE = "The TOP500 list (top500.org), one file per edition"
WHERE = "https://top500.org/lists/top500/ (TOP500_YYYYMM.xml / .xls / .xlsx)"
PATTERNS = ("TOP500_*.xml", "TOP500_*.xls", "TOP500_*.xlsx")

LIST = "top500"
PUBLISHER = "top500"
MONTHS = {"06": "June", "11": "November"}
# The format kept when one edition is present in several: XML first (it carries the System ID), see above.
PREFERENCE = {".xml": 0, ".xls": 1, ".xlsx": 2}


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


def system_slug(entry: Entry) -> str:
    if entry.system_id and entry.system_id.isdigit():
        return f"top500-{entry.system_id}"
    return f"top500-{entry.edition}-rank-{entry.rank}" if entry.rank else f"top500-{entry.edition}-row-{entry.row}"


def read(path: Path, graph: str) -> Iterator[ox.Quad]:
    edition = edition_of(path)
    year, month = (int(part) for part in edition.split("-"))
    when = YearMonth(year, month)
    source = f"top500-{edition}"
    yield from entity_quads("org", PUBLISHER, label="TOP500 project", graph=graph)
    yield from entity_quads("dataset", LIST, label="TOP500", graph=graph)
    yield from list_edition_quads(source, label=f"TOP500 {edition_label(edition)}", edition_of=LIST,
                                  issued=when, graph=graph)
    yield from source_quads(source, title=f"TOP500 list, {edition_label(edition)}", kind="dataset-release",
                            url=f"https://top500.org/lists/top500/{year}/{month:02d}/", publisher=PUBLISHER,
                            issued=when, graph=graph)
    row_word = "site" if path.suffix.lower() == ".xml" else "row"
    seen: set[str] = set()
    for entry in read_entries(path):
        slug = system_slug(entry)
        # Two entries of one edition with one System ID (or rank) stay apart: the second one's claims and
        # entity are qualified by its row, so they never collide with the first's.
        qualifier = edition if slug not in seen else f"{edition}-row-{entry.row}"
        if slug in seen:
            slug = f"top500-{edition}-row-{entry.row}"
        seen.add(slug)
        yield from entry_quads(entry, slug, qualifier, source, when, f"{path.name} {row_word} {entry.row}", graph)


def entry_quads(entry: Entry, slug: str, qualifier: str, source: str, when: YearMonth, locator: str,
                graph: str) -> Iterator[ox.Quad]:
    system = entity("system", slug)
    reference = [Reference(source, locator=locator)]
    common = dict(tier="reported", basis="imported", point_in_time=when, edition=source, references=reference,
                  qualifier=qualifier)
    label = f"TOP500 system {entry.system_id}" if slug == f"top500-{entry.system_id}" else \
        f"TOP500 {entry.edition} rank {entry.rank}"
    alt = [entry.name] if entry.name else []
    if entry.computer:
        alt.append(f"{entry.computer} ({entry.site})" if entry.site else entry.computer)
    yield from entity_quads("system", slug, label=label, alt_labels=alt, graph=graph)
    for prop, value in (("listRank", entry.rank or None), ("rmax", entry.rmax_tflops),
                        ("rpeak", entry.rpeak_tflops), ("cores", entry.cores), ("powerKW", entry.power_kw),
                        ("name", entry.name)):
        if value is not None:
            yield from claim_quads(make_claim(system, prop, value, **common), graph=graph)
    if slug == f"top500-{entry.system_id}":
        # One ID claim per edition too: each edition's graph cites its own source.
        yield from claim_quads(external_id_claim(system, "top500SystemId", entry.system_id, **common), graph=graph)
    note = f"The list names the site ({entry.site}), not an operator." if entry.site else None
    yield from claim_quads(some_value_claim(system, "operator", note=note, **common), graph=graph)
