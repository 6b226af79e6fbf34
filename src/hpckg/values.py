"""Python values as RDF terms and back: the types a claim's value, bounds and dates are written and read as.

int -> xsd:integer, Decimal (and float) -> xsd:decimal, bool -> xsd:boolean, date -> xsd:date,
datetime -> xsd:dateTime, YearMonth -> xsd:gYearMonth, Year -> xsd:gYear, AnyUri -> xsd:anyURI,
Text -> a literal with a language tag, str -> a plain string, Iri -> an IRI (a node, not text).
`term` writes a value, `value_of` reads one back, so a value survives the round trip unchanged.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

import pyoxigraph as ox

from hpckg import terms as t


class Iri(str):
    """An IRI as a claim value (an organisation, a part, a concept), as opposed to a text value."""


class AnyUri(str):
    """A URL as a literal value (xsd:anyURI), not as a node of the graph."""


class YearMonth(NamedTuple):
    """An xsd:gYearMonth, such as 2024-03."""

    year: int
    month: int

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"


class Year(NamedTuple):
    """An xsd:gYear, such as 2024."""

    year: int

    def __str__(self) -> str:
        return f"{self.year:04d}"


class Text(NamedTuple):
    """Text in a language (a literal with a language tag): Text("Rechenzentrum", "de")."""

    text: str
    language: str


Value = Iri | AnyUri | str | Text | bool | int | Decimal | float | dt.date | dt.datetime | YearMonth | Year
AsOf = dt.date | YearMonth | Year

_LEXICAL_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def parse_date(text: str | AsOf) -> AsOf:
    """A date as written in sources, at the precision given: "2024" -> Year, "2024-03" -> YearMonth,
    "2024-03-11" -> date."""
    if not isinstance(text, str):
        return text
    match = _LEXICAL_DATE.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a date written as yyyy, yyyy-mm or yyyy-mm-dd")
    year, month, day = match.groups()
    if day:
        return dt.date(int(year), int(month), int(day))
    if month:
        if not 1 <= int(month) <= 12:
            raise ValueError(f"{text!r}: month must be 01-12")
        return YearMonth(int(year), int(month))
    return Year(int(year))


def _named(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


_DATATYPES = {name: _named(iri) for name, iri in (
    ("bool", t.XSD_BOOLEAN), ("int", t.XSD_INTEGER), ("decimal", t.XSD_DECIMAL), ("date", t.XSD_DATE),
    ("datetime", t.XSD_DATE_TIME), ("year_month", t.XSD_G_YEAR_MONTH), ("year", t.XSD_G_YEAR),
    ("any_uri", t.XSD_ANY_URI))}


def term(value: Value) -> ox.NamedNode | ox.Literal:
    """A Python value as an RDF term: Iri -> IRI, int -> xsd:integer, Decimal/float -> xsd:decimal,
    date -> xsd:date, YearMonth -> xsd:gYearMonth, Year -> xsd:gYear, AnyUri -> xsd:anyURI, str -> string."""
    if isinstance(value, Iri):
        return ox.NamedNode(value)
    if isinstance(value, AnyUri):
        return ox.Literal(value, datatype=_DATATYPES["any_uri"])
    if isinstance(value, str):
        return ox.Literal(value)
    if isinstance(value, Text):
        return ox.Literal(value.text, language=value.language)
    if isinstance(value, bool):  # before int: bool is an int
        return ox.Literal("true" if value else "false", datatype=_DATATYPES["bool"])
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=_DATATYPES["int"])
    if isinstance(value, float):
        value = Decimal(repr(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a number xsd:decimal can hold")
        text = format(value, "f")
        return ox.Literal(text if "." in text else text + ".0", datatype=_DATATYPES["decimal"])
    if isinstance(value, dt.datetime):  # before date: a datetime is a date
        return ox.Literal(value.isoformat(), datatype=_DATATYPES["datetime"])
    if isinstance(value, dt.date):
        return ox.Literal(value.isoformat(), datatype=_DATATYPES["date"])
    if isinstance(value, YearMonth):
        return ox.Literal(str(value), datatype=_DATATYPES["year_month"])
    if isinstance(value, Year):
        return ox.Literal(str(value), datatype=_DATATYPES["year"])
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) as an RDF term")


INTEGER_TYPES = {t.XSD + name for name in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "unsignedInt",
    "unsignedLong", "unsignedShort", "unsignedByte", "negativeInteger", "nonPositiveInteger")}


def value_of(node: ox.NamedNode | ox.Literal | ox.BlankNode) -> Value:
    """An RDF term as the Python value `term` would write it as (ill-formed literals stay text)."""
    if isinstance(node, ox.NamedNode):
        return Iri(node.value)
    if not isinstance(node, ox.Literal):
        return str(node)
    text, datatype = node.value, node.datatype.value
    if node.language:
        return Text(text, node.language)
    try:
        if datatype in INTEGER_TYPES:
            return int(text)
        if datatype == t.XSD_DECIMAL:
            return Decimal(text)
        if datatype == t.XSD_BOOLEAN:
            return text in ("true", "1")
        if datatype == t.XSD_DATE:
            return dt.date.fromisoformat(text)
        if datatype == t.XSD_DATE_TIME:
            return dt.datetime.fromisoformat(text)
        if datatype in (t.XSD_G_YEAR_MONTH, t.XSD_G_YEAR):
            return parse_date(text)
        if datatype == t.XSD_ANY_URI:
            return AnyUri(text)
    except (ValueError, InvalidOperation):
        pass
    return text
