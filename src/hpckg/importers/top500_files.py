"""Reading the TOP500 list's files: one `Entry` per row of an edition, whatever the format or year.

The list has been published twice a year since June 1993 in three formats (see ../shared/data/README.md):
XML (1993-06 … 2014-11), XLS (2011-11 … 2019-11) and XLSX (2020-06 on). Their columns changed over thirty
years; this module turns each into the same record, in one set of units:

- Rmax, Rpeak and HPCG in TFlop/s. The XML and the spreadsheets before 2017-06 give GFlop/s; a column whose
  header says `[TFlop/s]` is already in TFlop/s. Power in kW; efficiency in GFlop/s per watt.
- An empty cell, the spreadsheet's 'None' or the XML's 'N/A' is None; so is 0 where the list uses it for
  "not measured" (Nmax, Nhalf, power, HPCG, accelerator cores).
- Figures are Decimals made from the cell's shortest text, so 0.1 stays 0.1.

The XML files of 1993-06 … 2014-11 escape some texts twice ("Toyota Central Research &amp;amp; Development"):
after parsing, a text's remaining XML character references are read once more, so names say "&" as
top500.org and the spreadsheets do.

XML is parsed with defusedxml (no entity expansion, no external entities); XLS with xlrd; XLSX with
openpyxl in read-only mode. A file that is none of these, or whose header lacks Rank, Rmax or Computer, is
refused whole with an InputError naming it; a row that cannot be read is reported in `Entry.problems`
with its column and kept out of nothing else.
"""

from __future__ import annotations

import html
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from hpckg.errors import InputError

XML_NAMESPACE = "{http://www.top500.org/xml/top500/1.0}"
FILE_NAME = re.compile(r"TOP500_(\d{4})(\d{2})\.(xml|xls|xlsx)$", re.IGNORECASE)
THOUSAND = Decimal(1000)


@dataclass
class Entry:
    """One row of one edition of the list, in hpckg's units."""

    edition: str  # "2019-06"
    rank: int
    row: int  # the row in the spreadsheet (header is row 1) or the position of the XML element (1-based)
    computer: str
    site: str
    manufacturer: str | None = None
    country: str | None = None
    name: str | None = None
    system_id: str | None = None
    site_id: str | None = None
    previous_rank: int | None = None
    first_appearance: str | None = None  # an edition, "2018-06"
    first_rank: int | None = None
    year: int | None = None
    segment: str | None = None
    cores: int | None = None
    accelerator_cores: int | None = None
    rmax_tflops: Decimal | None = None
    rpeak_tflops: Decimal | None = None
    nmax: int | None = None
    nhalf: int | None = None
    hpcg_tflops: Decimal | None = None
    power_kw: Decimal | None = None
    power_source: str | None = None
    gflops_per_watt: Decimal | None = None
    memory: str | None = None
    architecture: str | None = None
    processor: str | None = None
    processor_technology: str | None = None
    processor_speed_mhz: Decimal | None = None
    operating_system: str | None = None
    os_family: str | None = None
    accelerator: str | None = None
    cores_per_socket: int | None = None
    processor_generation: str | None = None
    system_model: str | None = None
    system_family: str | None = None
    interconnect_family: str | None = None
    interconnect: str | None = None
    region: str | None = None
    continent: str | None = None
    town: str | None = None
    state: str | None = None
    system_url: str | None = None
    site_url: str | None = None
    problems: list[str] = field(default_factory=list)  # "column Rmax: 'n/a' is not a number"


def edition_of(path: Path) -> str:
    """The edition a file holds, from its official name: TOP500_201906.xls -> "2019-06"."""
    match = FILE_NAME.search(Path(path).name)
    if not match:
        raise InputError(f"{path}: not a TOP500 list file (expected a name like TOP500_201906.xls)")
    return f"{match.group(1)}-{match.group(2)}"


def read_entries(path: Path) -> list[Entry]:
    """Every entry of one edition file, in rank order as the file lists them."""
    path = Path(path)
    suffix = path.suffix.lower()
    edition = edition_of(path)
    if suffix == ".xml":
        entries = list(_read_xml(path, edition))
    elif suffix in (".xls", ".xlsx"):
        entries = list(_read_sheet(path, edition))
    else:  # pragma: no cover - edition_of only accepts the three
        raise InputError(f"{path}: unknown TOP500 file format {suffix}")
    if not entries:
        raise InputError(f"{path}: no list entries in the file")
    return entries


# --- values -------------------------------------------------------------------------------------------


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        value = repr(value).removesuffix(".0")
    text = " ".join(str(value).split())
    return None if text in ("", "None", "N/A", "n/a") else text


def _decimal(value: object, column: str, problems: list[str], *, zero_is_none: bool = False) -> Decimal | None:
    text = _text(value)
    if text is None:
        return None
    try:
        number = Decimal(repr(value) if isinstance(value, float) else text.replace(",", ""))
    except InvalidOperation:
        problems.append(f"column {column}: {text!r} is not a number")
        return None
    if zero_is_none and number <= 0:  # the list writes 0 (and since 2020 sometimes -1) for "not measured"
        return None
    if not number.is_finite() or number < 0:
        problems.append(f"column {column}: {text!r} is not a usable figure")
        return None
    return _tidy(number)


def _tidy(number: Decimal) -> Decimal:
    """2200.0 -> 2200 and 0.10 -> 0.1, never exponent notation (Decimal.normalize gives 2.2E+3)."""
    if number == number.to_integral_value():
        return Decimal(int(number))
    return number.normalize()


def _integer(value: object, column: str, problems: list[str], *, zero_is_none: bool = False) -> int | None:
    number = _decimal(value, column, problems, zero_is_none=zero_is_none)
    if number is None:
        return None
    if number != number.to_integral_value():
        problems.append(f"column {column}: {number} is not a whole number")
        return None
    return int(number)


def _tflops(number: Decimal | None, in_gflops: bool) -> Decimal | None:
    if number is None:
        return None
    return _tidy(number / THOUSAND if in_gflops else number)


def _edition_of_date(value: object) -> str | None:
    """First Appearance is an edition written as a date or as '2018-06'/'06/2018'; None when unreadable."""
    text = _text(value)
    if text is None:
        return None
    match = re.match(r"^(\d{4})-(\d{2})", text) or re.match(r"^(\d{2})/(\d{4})$", text)
    if match is None:
        return None
    year, month = (match.group(1), match.group(2)) if len(match.group(1)) == 4 else (match.group(2),
                                                                                        match.group(1))
    return f"{year}-{month}"


# --- XML (1993-06 … 2014-11) ---------------------------------------------------------------------------


def _read_xml(path: Path, edition: str) -> Iterator[Entry]:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    position = 0
    try:
        for _event, element in iterparse(str(path), events=("end",), forbid_dtd=True):
            if element.tag != XML_NAMESPACE + "site":
                continue
            position += 1
            fields = {child.tag.removeprefix(XML_NAMESPACE): child for child in element}
            site = fields.get("installation-site")
            site_fields = {child.tag.removeprefix(XML_NAMESPACE): _unescaped(child.text) for child in site} \
                if site is not None else {}
            yield _xml_entry(edition, position, {k: _unescaped(v.text) for k, v in fields.items()}, site_fields)
            element.clear()
    except DefusedXmlException as error:
        raise InputError(f"{path}: refused: the XML declares a DTD or entities ({type(error).__name__})") from None
    except SyntaxError as error:  # xml.etree.ElementTree.ParseError
        raise InputError(f"{path}: not well-formed XML: {error}") from None


# The character references of XML (the five named ones and numeric ones): what a text escaped twice still holds.
_XML_REFERENCE = re.compile(r"&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")


def _unescaped(text: str | None) -> str | None:
    """A text of the XML with what its second escaping left read once more: 'R&amp;D' -> 'R&D'."""
    if text is None or "&" not in text:
        return text
    return _XML_REFERENCE.sub(lambda match: html.unescape(match.group(0)), text)


def _xml_entry(edition: str, position: int, values: dict[str, str | None], site: dict[str, str | None]) -> Entry:
    problems: list[str] = []
    rank = _integer(values.get("rank"), "rank", problems)
    entry = Entry(
        edition=edition, rank=rank or 0, row=position,
        computer=_text(values.get("computer")) or "", site=_text(site.get("installation-site-name")) or "",
        manufacturer=_text(values.get("manufacturer")), country=_text(values.get("country")),
        name=_text(values.get("system-name")), system_id=_text(values.get("system-id")),
        site_id=_text(site.get("site-id")), year=_integer(values.get("year"), "year", problems),
        cores=_integer(values.get("number-of-processors"), "number-of-processors", problems),
        rmax_tflops=_tflops(_decimal(values.get("r-max"), "r-max", problems), in_gflops=True),
        rpeak_tflops=_tflops(_decimal(values.get("r-peak"), "r-peak", problems), in_gflops=True),
        nmax=_integer(values.get("n-max"), "n-max", problems, zero_is_none=True),
        nhalf=_integer(values.get("n-half"), "n-half", problems, zero_is_none=True),
        power_kw=_decimal(values.get("power"), "power", problems, zero_is_none=True),
        town=_text(values.get("town")), state=_text(values.get("state")),
        system_url=_text(values.get("system-address")), site_url=_text(site.get("installation-site-address")),
        problems=problems)
    if rank is None:
        problems.append("column rank: missing")
    return entry


# --- XLS (2011-11 … 2019-11) and XLSX (2020-06 …) --------------------------------------------------------

# Header (case and spelling as the files have used them) -> Entry field. Rmax/Rpeak/HPCG are handled apart
# because their unit depends on the header.
COLUMNS = {
    "rank": "rank", "previous rank": "previous_rank", "first rank": "first_rank", "name": "name",
    "computer": "computer", "site": "site", "manufacturer": "manufacturer", "country": "country", "year": "year",
    "segment": "segment", "total cores": "cores", "accelerator cores": "accelerator_cores",
    "accelerator/co-processor cores": "accelerator_cores", "nmax": "nmax", "nhalf": "nhalf",
    "power": "power_kw", "power (kw)": "power_kw", "power source": "power_source",
    "mflops/watt": "mflops_per_watt", "power effeciency [gflops/watts]": "gflops_per_watt",
    "power efficiency [gflops/watts]": "gflops_per_watt", "energy efficiency [gflops/watts]": "gflops_per_watt",
    "memory": "memory", "architecture": "architecture", "processor": "processor",
    "processor technology": "processor_technology", "processor speed (mhz)": "processor_speed_mhz",
    "operating system": "operating_system", "os family": "os_family", "accelerator": "accelerator",
    "accelerator/co-processor": "accelerator", "cores per socket": "cores_per_socket",
    "processor generation": "processor_generation", "system model": "system_model",
    "system family": "system_family", "interconnect family": "interconnect_family",
    "interconnect": "interconnect", "region": "region", "continent": "continent", "site id": "site_id",
    "system id": "system_id", "first appearance": "first_appearance",
}
FIGURES = {"rmax": "rmax_tflops", "rpeak": "rpeak_tflops", "hpcg": "hpcg_tflops"}
INTEGERS = {"rank", "previous_rank", "first_rank", "year", "cores", "accelerator_cores", "nmax", "nhalf",
            "cores_per_socket"}
ZERO_IS_NONE = {"accelerator_cores", "nmax", "nhalf", "power_kw", "hpcg_tflops", "gflops_per_watt",
                "mflops_per_watt", "previous_rank"}
DECIMALS = {"power_kw", "gflops_per_watt", "mflops_per_watt", "processor_speed_mhz"}


def _sheet_rows(path: Path) -> Iterator[list[object]]:
    if path.suffix.lower() == ".xls":
        import xlrd

        try:
            sheet = xlrd.open_workbook(str(path), on_demand=True).sheet_by_index(0)
        except xlrd.XLRDError as error:
            raise InputError(f"{path}: not a readable .xls workbook: {error}") from None
        for index in range(sheet.nrows):
            yield sheet.row_values(index)
        return
    import openpyxl

    try:
        workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise InputError(f"{path}: not a readable .xlsx workbook: {error}") from None
    try:
        for values in workbook.worksheets[0].iter_rows(values_only=True):
            yield list(values)
    finally:
        workbook.close()


def _header(path: Path, cells: list[object]) -> list[tuple[int, str, str, bool]]:
    """(column index, header text, Entry field, figure given in GFlop/s) for every column we read."""
    columns = []
    for index, cell in enumerate(cells):
        header = _text(cell) or ""
        key = header.lower()
        base = re.sub(r"\s*\[.*?\]\s*$", "", key)
        if base in FIGURES:
            columns.append((index, header, FIGURES[base], "[tflop/s]" not in key))
        elif key in COLUMNS:
            columns.append((index, header, COLUMNS[key], False))
    found = {name for _, _, name, _ in columns}
    missing = [name for name in ("rank", "rmax_tflops", "computer") if name not in found]
    if missing:
        raise InputError(f"{path}: not a TOP500 list: the header row has no {', '.join(missing)} column")
    return columns


def _read_sheet(path: Path, edition: str) -> Iterator[Entry]:
    rows = _sheet_rows(path)
    header = next(rows, None)
    if header is None:
        raise InputError(f"{path}: the workbook is empty")
    columns = _header(path, header)
    for number, cells in enumerate(rows, start=2):
        if not any(_text(cell) for cell in cells):
            continue
        problems: list[str] = []
        values: dict[str, object] = {}
        for index, header_text, name, in_gflops in columns:
            cell = cells[index] if index < len(cells) else None
            zero = name in ZERO_IS_NONE
            if name in FIGURES.values():
                values[name] = _tflops(_decimal(cell, header_text, problems, zero_is_none=zero), in_gflops)
            elif name in INTEGERS:
                values[name] = _integer(cell, header_text, problems, zero_is_none=zero)
            elif name in DECIMALS:
                values[name] = _decimal(cell, header_text, problems, zero_is_none=zero)
            elif name == "first_appearance":
                values[name] = _edition_of_date(cell)
            elif name in ("system_id", "site_id"):
                identifier = _integer(cell, header_text, problems) if not isinstance(cell, str) else None
                values[name] = str(identifier) if identifier is not None else _text(cell)
            else:
                values[name] = _text(cell)
        mflops = values.pop("mflops_per_watt", None)
        if values.get("gflops_per_watt") is None and isinstance(mflops, Decimal):
            values["gflops_per_watt"] = mflops / THOUSAND
        if values.get("rank") is None:
            problems.append("column Rank: missing")
        yield Entry(edition=edition, rank=values.pop("rank") or 0, row=number,  # type: ignore[arg-type]
                    computer=values.pop("computer") or "", site=values.pop("site") or "",  # type: ignore[arg-type]
                    problems=problems, **values)  # type: ignore[arg-type]
