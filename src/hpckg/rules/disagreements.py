"""Rule 45 streamed (queries/rules/45-disagreements.rq): `?claim hpc:disagreesWith ?other` for two live claims
on one entity and property at the same date whose values differ beyond their precision, one entity at a time.
The comparisons are the rule's, in SPARQL's terms: numbers by value (an integer and a decimal of one value
agree), within half the unit of an approximate value's last digit, and a date agreeing with the coarser date
it falls in."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from hpckg.namespaces import PREFIXES, hpc
from hpckg.rules.reading import ABOUT, DEPRECATED, TRUE, XSD, claims_of, distinct, editions_issued, once, optional
from hpckg.store import Store

DISAGREES_WITH = ox.NamedNode(hpc("disagreesWith"))
MULTI_VALUED = ox.NamedNode(hpc("multiValued"))
EXACT = ox.NamedNode(PREFIXES["precision"] + "exact")
FIELDS = {hpc(name): name for name in
          ("property", "value", "rank", "endTime", "pointInTime", "startTime", "asOf", "edition", "precision")}
PLAIN_NUMBER = re.compile(r"[0-9]+([.][0-9]+)?")
DATE_TYPES = {XSD + name for name in ("date", "dateTime", "gYearMonth", "gYear")}
DECIMAL_TYPES = {XSD + name for name in (
    "integer", "decimal", "nonPositiveInteger", "negativeInteger", "long", "int", "short", "byte",
    "nonNegativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "positiveInteger")}
FLOAT_TYPES = {XSD + "float", XSD + "double"}


def disagreement_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 45 constructs, entity by entity (each entity's triples once)."""
    multi = {quad.subject for quad in store.quads_for_pattern(None, MULTI_VALUED, TRUE)}
    issued: dict = {}
    for entity in distinct(store, ABOUT):
        by_key: dict[tuple, list[tuple]] = {}  # the rule's join: (property, date) -> (claim, value, tolerance)
        for claim, fields in claims_of(store, entity, FIELDS).items():
            for property, date, row in claim_rows(store, claim, fields, multi, issued):
                by_key.setdefault((property, date), []).append(row)
        yield from once(ox.Triple(claim, DISAGREES_WITH, other) for rows in by_key.values()
                        for (claim, value, tolerance), (other, other_value, other_tolerance)
                        in itertools.permutations(rows, 2)
                        if claim != other and disagree(value, other_value, tolerance, other_tolerance))


def claim_rows(store: Store, claim, fields: dict[str, set], multi: set, issued: dict) -> Iterator[tuple]:
    """(property, date, (claim, value, tolerance)) per row of the rule's claim table: none for a deprecated
    or ended claim, or on a multi-valued property."""
    if DEPRECATED in fields.get("rank", ()) or fields.get("endTime"):
        return
    editions = editions_issued(store, fields, issued)
    for property, value, point, start, as_of, (_, when), precision in itertools.product(
            fields.get("property", ()), fields.get("value", ()), optional(fields, "pointInTime"),
            optional(fields, "startTime"), optional(fields, "asOf"), editions, optional(fields, "precision")):
        if property in multi:
            continue
        first = next((t for t in (point, start, as_of) if t is not None), None)
        date = first.value if first is not None else (when or "")
        yield property, date, (claim, value, tolerance_of(value, precision))


def tolerance_of(value, precision) -> Decimal | None:
    """Half the unit of an approximate or rounded plain number's last digit ("24000": 500, "1.1": 0.05), else 0;
    None where the rule's expression fails (STR of a blank node)."""
    if precision is None or precision == EXACT:
        return Decimal(0)
    if isinstance(value, ox.BlankNode):
        return None
    text = value.value
    if not PLAIN_NUMBER.fullmatch(text):
        return Decimal(0)
    if "." in text:
        return Decimal("0.5") / Decimal("1" + "0" * len(text.partition(".")[2]))
    return Decimal("0.5") * Decimal("1" + "0" * (len(text) - len(text.rstrip("0"))))


def disagree(value, other, tolerance: Decimal | None, other_tolerance: Decimal | None) -> bool:
    """The rule's FILTERs: the two values differ as terms and as numbers, beyond the larger tolerance, and
    neither date falls in the other."""
    if value == other:
        return False
    number, other_number = numeric(value), numeric(other)
    if number is not None and other_number is not None:
        if isinstance(number, float) or isinstance(other_number, float):
            number, other_number = float(number), float(other_number)
        if number == other_number:
            return False
        if tolerance is None or other_tolerance is None:
            return False  # the comparison is an error in SPARQL, and a FILTER keeps no row on an error
        larger = tolerance if tolerance > other_tolerance else other_tolerance
        if isinstance(number, float):
            larger = float(larger)
        if abs(number - other_number) <= larger:
            return False
    if (isinstance(value, ox.Literal) and isinstance(other, ox.Literal) and value.datatype.value in DATE_TYPES
            and other.datatype.value in DATE_TYPES
            and (value.value.startswith(other.value) or other.value.startswith(value.value))):
        return False
    return True


def numeric(term) -> Decimal | float | None:
    """A numeric literal's value (isNumeric in SPARQL: a numeric datatype and a valid lexical form), else None."""
    if not isinstance(term, ox.Literal):
        return None
    datatype = term.datatype.value
    try:
        if datatype in DECIMAL_TYPES:
            number = Decimal(term.value)
            return number if datatype != XSD + "integer" or number == number.to_integral_value() else None
        if datatype in FLOAT_TYPES:
            return float(term.value)
    except (InvalidOperation, ValueError):
        return None
    return None
