"""Reading the TOP500 list files (../shared/data/top500): every edition and format into the same records,
checked against the raw files read independently here (xml.etree, xlrd, openpyxl), not against the reader."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
import xlrd

from hpckg.errors import InputError
from hpckg.importers.top500_files import edition_of, read_entries

from conftest import SHARED

TOP500 = SHARED / "data" / "top500"
FILES = sorted(TOP500.glob("TOP500_*"))
NS = "{http://www.top500.org/xml/top500/1.0}"


def raw_rmax_sum_tflops(path: Path) -> Decimal:
    """The sum of Rmax of a file in TFlop/s, read straight from the file."""
    if path.suffix == ".xml":
        root = ET.parse(path).getroot()
        return sum(Decimal(e.findtext(NS + "r-max")) for e in root.iter(NS + "site")) / 1000
    if path.suffix == ".xls":
        sheet = xlrd.open_workbook(str(path)).sheet_by_index(0)
        header = sheet.row_values(0)
        column = next(i for i, h in enumerate(header) if str(h).startswith("Rmax"))
        total = sum(Decimal(repr(sheet.cell_value(r, column))) for r in range(1, sheet.nrows))
        return total if "TFlop/s" in header[column] else total / 1000
    rows = list(openpyxl.load_workbook(str(path), read_only=True).worksheets[0].iter_rows(values_only=True))
    column = next(i for i, h in enumerate(rows[0]) if str(h).startswith("Rmax"))
    return sum(Decimal(repr(row[column])) for row in rows[1:] if row[column] is not None)


def test_the_shared_data_holds_63_editions_in_70_files():
    editions = {edition_of(path) for path in FILES}
    assert len(editions) == 63 and len(FILES) == 70
    assert "2022-11" not in editions and "2023-11" not in editions


@pytest.mark.imports  # every file of the shared data: 15 s
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_gives_500_ranked_entries_with_the_files_rmax_in_tflops(path):
    entries = read_entries(path)
    assert sorted(e.rank for e in entries) == list(range(1, 501))
    assert all(e.computer and e.site for e in entries)
    assert not [e.problems for e in entries if e.problems]
    total = sum(e.rmax_tflops for e in entries)
    assert abs(total - raw_rmax_sum_tflops(path)) < Decimal("0.001"), path.name


@pytest.mark.parametrize("name, rank_one, rmax_tflops", [
    ("TOP500_199306.xml", "CM-5/1024", Decimal("0.0597")),  # 59.7 GFlop/s
    ("TOP500_201111.xls", "K computer, SPARC64 VIIIfx 2.0GHz, Tofu interconnect", Decimal("10510")),
    ("TOP500_201906.xls", "IBM Power System AC922, IBM POWER9 22C 3.07GHz, NVIDIA Volta GV100, Dual-rail "
                          "Mellanox EDR Infiniband", Decimal("148600")),
    ("TOP500_202506.xlsx", "HPE Cray EX255a, AMD 4th Gen EPYC 24C 1.8GHz, AMD Instinct MI300A, Slingshot-11, "
                           "TOSS", Decimal("1742000")),
])
def test_rank_one_of_known_editions(name, rank_one, rmax_tflops):
    first = next(e for e in read_entries(TOP500 / name) if e.rank == 1)
    assert first.computer == rank_one
    assert first.rmax_tflops == rmax_tflops


def test_identity_columns_where_the_files_have_them():
    summit = next(e for e in read_entries(TOP500 / "TOP500_201906.xls") if e.rank == 1)
    assert (summit.system_id, summit.site_id, summit.name) == ("179397", "48553", "Summit")
    tianhe = next(e for e in read_entries(TOP500 / "TOP500_201411.xml") if e.rank == 1)
    assert (tianhe.system_id, tianhe.site_id) == ("177999", "50365")
    # 2011-11 … 2017-06 spreadsheets have no System ID; Previous Rank links entries from 2015-06 on.
    assert all(e.system_id is None for e in read_entries(TOP500 / "TOP500_201706.xls"))
    assert next(e for e in read_entries(TOP500 / "TOP500_201706.xls") if e.rank == 1).previous_rank == 1


def test_units_before_and_after_the_spreadsheets_switched_to_tflops():
    before = {e.rank: e for e in read_entries(TOP500 / "TOP500_201611.xls")}  # GFlop/s
    after = {e.rank: e for e in read_entries(TOP500 / "TOP500_201706.xls")}  # [TFlop/s]
    assert before[1].rmax_tflops == Decimal("93014.59388")  # TaihuLight: 93,014,593.88 GFlop/s in the file
    assert after[1].rmax_tflops == Decimal("93014.594")  # the same run, rounded in TFlop/s
    assert after[1].power_kw == Decimal("15371")


def test_not_measured_is_none_not_zero():
    entries = read_entries(TOP500 / "TOP500_202506.xlsx")
    assert all(e.nhalf is None or e.nhalf > 0 for e in entries)
    assert all(e.power_kw is None or e.power_kw > 0 for e in entries)


def test_xml_entity_expansion_is_refused(tmp_path):
    bomb = tmp_path / "TOP500_199306.xml"
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
                    '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
                    '<top500:list xmlns:top500="http://www.top500.org/xml/top500/1.0">&b;</top500:list>\n')
    with pytest.raises(InputError, match="refused: the XML declares a DTD or entities"):
        read_entries(bomb)


def test_files_that_are_not_list_editions_are_refused_whole(tmp_path):
    with pytest.raises(InputError, match="not a TOP500 list file"):
        read_entries(tmp_path / "list.xlsx")
    workbook = openpyxl.Workbook()
    workbook.active.append(["Name", "Country"])
    workbook.active.append(["x", "y"])
    workbook.save(tmp_path / "TOP500_202006.xlsx")
    with pytest.raises(InputError, match="no rank, rmax_tflops, computer column"):
        read_entries(tmp_path / "TOP500_202006.xlsx")
    (tmp_path / "TOP500_202011.xlsx").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a readable .xlsx workbook"):
        read_entries(tmp_path / "TOP500_202011.xlsx")


@pytest.mark.imports  # reads every XML edition
def test_texts_the_xml_escaped_twice_read_as_the_list_prints_them():
    # 29 XML files write "Toyota Central Research &amp;amp; Development": parsed once, that is "&amp;", which
    # the pages then showed as "EDF R&amp;amp;D" (escaped twice again on the way out).
    raw = [(e.findtext(NS + "rank"), e.find(NS + "installation-site").findtext(NS + "installation-site-name"))
           for e in ET.parse(TOP500 / "TOP500_199306.xml").getroot().iter(NS + "site")]
    escaped = {int(rank): site for rank, site in raw if "&amp;" in site}
    assert escaped
    entries = {e.rank: e for e in read_entries(TOP500 / "TOP500_199306.xml")}
    for rank, site in escaped.items():
        assert entries[rank].site == " ".join(site.replace("&amp;", "&").split()), rank
    assert not any("&amp;" in (e.site + e.computer + (e.name or "")) for path in FILES if path.suffix == ".xml"
                   for e in read_entries(path))
