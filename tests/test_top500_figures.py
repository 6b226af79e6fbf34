"""Every figure the TOP500 import states for an edition (rank, Rmax, Rpeak, Nmax, HPCG, power, cores,
accelerator cores, GF/W) is the figure of the row it cites, over all 63 editions, twins included.

What is checked is what the importer yields (the quads of `hpckg.importers.top500.read`, each claim with the
reference locating its row), against the rows of the files read with the importer's reader: a figure of an
XML row equals the XML's to the XML's rounding, a spreadsheet's exactly; where an XML entry was completed
from its twin in the edition's spreadsheet (2011-11 … 2014-11, the locator names that row too) a figure the
XML does not give, or gives rounded, is the twin row's exactly. So a twin paired with the wrong row fails.
Each file is read once per session (top500_identity.entries_of is cached); read() costs about a second an edition.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from hpckg.importers.top500 import read, select
from hpckg.importers.top500_files import Entry, edition_of
from hpckg.importers.top500_identity import entries_of

from conftest import SHARED, checkout_names

pytestmark = pytest.mark.imports

DATA = SHARED / "data" / "top500"
FILES = select(sorted(DATA.glob("TOP500_*")))
GRAPH = "https://w3id.org/hpckg/graph/import/top500/"
HPC = "https://w3id.org/hpckg/ontology#"
# The per-edition claims' properties and the Entry field each states (the list's columns, see top500_files).
FIELDS = {"listRank": "rank", "rmax": "rmax_tflops", "rpeak": "rpeak_tflops", "nmax": "nmax",
          "hpcg": "hpcg_tflops", "powerKW": "power_kw", "cores": "cores", "acceleratorCores": "accelerator_cores",
          "gflopsPerWatt": "gflops_per_watt"}
LOCATOR = re.compile(r"^(?P<file>\S+) (?:site|row) (?P<row>\d+)"
                     r"(?:, completed from (?P<twin>\S+) (?:site|row) (?P<twin_row>\d+))?")


def test_the_editions_are_all_there():
    assert len(FILES) == 63 and len({edition_of(path) for path in FILES}) == 63


def stated_figures(path: Path) -> dict[tuple[str, int, str], Decimal]:
    """(file cited, row, property) -> value of every per-edition claim read() yields, with the twin file and
    row each cited row was completed from (keyed ('twin', row, file name) -> twin row)."""
    about: dict = {}
    claims: dict = {}
    locators: dict = {}
    for quad in read(path, GRAPH + edition_of(path), names=checkout_names()):
        predicate = quad.predicate.value
        if predicate == HPC + "pointInTime":
            about.setdefault(quad.subject, {})["dated"] = True
        elif predicate in (HPC + "property", HPC + "value", HPC + "reference"):
            claims.setdefault(quad.subject, {})[predicate.removeprefix(HPC)] = quad.object
        elif predicate == HPC + "locator":
            locators[quad.subject] = quad.object.value
    found: dict = {}
    for claim, parts in claims.items():
        prop = parts.get("property")
        if claim not in about or prop is None or prop.value.removeprefix(HPC) not in FIELDS:
            continue
        where = LOCATOR.match(locators[parts["reference"]])
        assert where and where["file"] == path.name, locators[parts["reference"]]
        row = int(where["row"])
        found[(path.name, row, prop.value.removeprefix(HPC))] = Decimal(parts["value"].value)
        if where["twin"]:
            found[("twin", row, where["twin"])] = Decimal(where["twin_row"])
    return found


def within_rounding(value: Decimal, raw: Decimal) -> bool:
    return abs(value - raw) <= Decimal(1).scaleb(raw.as_tuple().exponent) / 2  # type: ignore[arg-type]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_figure_of_the_edition_is_the_figure_of_the_row_it_cites(path: Path):
    stated = stated_figures(path)
    rows: dict[int, Entry] = {e.row: e for e in entries_of(path)}
    twins = {(row, name): int(twin_row) for (kind, row, name), twin_row in stated.items() if kind == "twin"}
    twin_rows = {name: {e.row: e for e in entries_of(DATA / name)} for _, name in twins}
    is_xml = path.suffix.lower() == ".xml"
    wrong, expected = [], set()
    for row, raw in rows.items():
        twin_of_row = next(((name, r) for (mine, name), r in twins.items() if mine == row), None)
        twin = twin_rows[twin_of_row[0]][twin_of_row[1]] if twin_of_row else None
        for prop, field in FIELDS.items():
            own = getattr(raw, field)
            theirs = getattr(twin, field) if twin is not None and field != "rank" else None
            if own is None and theirs is None:
                continue
            expected.add((path.name, row, prop))
            value = stated.get((path.name, row, prop))
            if value is None:
                wrong.append((row, prop, "not stated", own, theirs))
            elif own is not None and not (within_rounding(value, Decimal(own)) if is_xml else value == own):
                wrong.append((row, prop, value, "file says", own))
            elif value != own and value != theirs:
                wrong.append((row, prop, value, "neither", own, "nor the twin's", theirs))
    stray = {key for key in stated if key[0] != "twin"} - expected
    assert not wrong and not stray, (wrong[:10], sorted(stray)[:10])
    assert len({row for _, row, prop in expected if prop == "listRank"}) == 500
