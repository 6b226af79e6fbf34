"""Query answers compared by value across engines: numbers numerically, IRIs and strings exactly, blank nodes
as blank, rows in order where the query orders them and as a multiset where it does not."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {XSD + t for t in ("integer", "decimal", "double", "float", "int", "long", "short", "byte",
                             "nonNegativeInteger", "positiveInteger", "unsignedInt", "unsignedLong")}


def value(term) -> tuple:
    """A term as a comparable value."""
    if term is None:
        return ("unbound",)
    if isinstance(term, ox.NamedNode):
        return ("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return ("bnode",)
    if term.datatype.value in NUMERIC:
        try:
            number = Decimal(term.value)
        except InvalidOperation:
            return ("number", term.value)
        return ("number", round(number, 9).normalize())
    if term.datatype.value == XSD + "boolean":
        return ("boolean", term.value in ("true", "1"))
    return ("literal", term.value, term.language or "", term.datatype.value)


CONCAT = re.compile(r'GROUP_CONCAT\s*\((?:DISTINCT\s+)?[^;]*;\s*separator\s*=\s*"([^"]*)"\s*\)\s*AS\s+\?(\w+)', re.I)


def concatenations(text: str) -> dict[str, str]:
    """The variables a query fills with GROUP_CONCAT, and their separators."""
    return {name: separator for separator, name in CONCAT.findall(text)}


def answer(result, concatenated: dict[str, str] | None = None) -> tuple[list[str], list[tuple]]:
    """(variables, rows of values) of a SELECT result; ASK is one row with a boolean. A GROUP_CONCAT
    column is compared as the set of its parts: SPARQL leaves their order to the engine, and engines answer
    an empty one as "" or unbound."""
    if isinstance(result, ox.QueryBoolean):
        return ["ask"], [(("boolean", bool(result)),)]
    concatenated = concatenated or {}
    names = [v.value for v in result.variables]

    def cell(name: str, term) -> tuple:
        if name in concatenated:
            parts = term.value.split(concatenated[name]) if term is not None and term.value else []
            return ("parts", tuple(sorted(parts)))
        return value(term)

    return names, [tuple(cell(name, row[name]) for name in names) for row in result]


def digest(found: tuple[list[str], list[tuple]]) -> str:
    """A short fingerprint of an answer by value, its rows as a multiset: equal answers on two engines (or two
    runs) give equal digests, so a benchmark can compare them without keeping both."""
    import hashlib

    return hashlib.sha256(repr((found[0], sorted(map(repr, found[1])))).encode()).hexdigest()[:16]


def ordered(text: str) -> bool:
    """Whether the query's outermost SELECT orders its rows (an ORDER BY after the last closing brace of
    its WHERE clause)."""
    body = re.sub(r"#[^\n]*", "", text)
    return bool(re.search(r"\}\s*(GROUP BY[^{}]*)?(HAVING[^{}]*)?ORDER\s+BY[^{}]*$", body, re.I | re.S))


def differences(expected: tuple[list[str], list[tuple]], found: tuple[list[str], list[tuple]], *,
                in_order: bool) -> str:
    """'' when the answers agree, else what differs."""
    if expected[0] != found[0]:
        return f"variables {expected[0]} != {found[0]}"
    if in_order and expected[1] != found[1]:
        for index, (a, b) in enumerate(zip(expected[1], found[1], strict=False)):
            if a != b:
                return f"row {index}: {a} != {b}"
        return f"{len(expected[1])} rows != {len(found[1])} rows"
    missing, extra = Counter(expected[1]) - Counter(found[1]), Counter(found[1]) - Counter(expected[1])
    if missing or extra:
        return (f"missing {list(missing)[:3]} (of {sum(missing.values())}), "
                f"extra {list(extra)[:3]} (of {sum(extra.values())})")
    return ""
