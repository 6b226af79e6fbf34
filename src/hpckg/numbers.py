"""Numbers as a reader takes them in: one formatter for pages, lists, charts and query result tables.

A figure is shown with about four significant digits, in the unit of its magnitude: a LINPACK figure the
graph holds in TFlop/s (the ontology's unit) reads "1.742 EFlop/s" for today's number 1 and "59.7 GFlop/s"
for 1993's, H100 equivalents read "200,000" rather than "200,000.000002945". A column of figures (a list, a
chart's data table) is shown in one unit, chosen by the magnitude of its values (their median), with one
number of decimals, as top500.org shows GFlop/s for the lists of the 1990s and PFlop/s for today's.

Only the display is rounded: the exact value stays in the graph, the CSV/JSON twins and a title attribute
(`exact`). Whole numbers are never rounded ("12,759 systems", "2,746,376 TFlop/s" keeps every digit).

    figure(value, unit) -> "1.742 EFlop/s"          a figure with its unit, scaled and rounded
    number(value) -> "58.89"                         the number alone (no unit, no scaling)
    scaled(value, unit) -> (Decimal, unit)           the value in the unit of its magnitude
    unit_label(unit) -> "TFlop/s"                    the one spelling of a unit ("TFLOP/s" is "TFlop/s")
    column_unit(values, unit) -> Scale               one unit and one number of decimals for a column;
        scale.text(value) -> "1,742.00", scale.unit -> "PFlop/s", scale.heading("Rmax") -> "Rmax (PFlop/s)"
    exact(value) -> "2746376.09"                     the value as stored, for a title attribute
    parse("2746376.09") -> Decimal("2746376.09")     a typed literal's text as a number (text is never parsed)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

SIGNIFICANT = 4  # digits a single figure shows (fewer when it is a whole number with fewer digits)
COLUMN_SIGNIFICANT = 3  # digits the median of a column shows (and its largest value SIGNIFICANT digits)
COLUMN_DECIMALS = 3  # never more decimals than this in a column

# One spelling of each unit: the ontology writes the TOP500's "TFlop/s" and Epoch AI's "TFLOP/s" for the same
# unit; pages show the TOP500's (the spelling top500.org uses).
SPELLINGS = {"TFLOP/s": "TFlop/s", "TFLOPS": "TFlop/s", "TFlops": "TFlop/s"}

# The rates whose prefix follows the magnitude: "Flop/s" with its SI prefixes.
RATE = "Flop/s"
PREFIXES = ("", "K", "M", "G", "T", "P", "E", "Z")

Number = int | float | Decimal

# The XSD number types a results table right-aligns and formats.
NUMERIC_TYPES = {"integer", "decimal", "double", "float", "long", "int", "short", "byte", "nonNegativeInteger",
                 "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedLong", "unsignedInt",
                 "unsignedShort", "unsignedByte"}


def unit_label(unit: str) -> str:
    """The one spelling of a unit: 'TFLOP/s' -> 'TFlop/s'; any other unit as it is."""
    return SPELLINGS.get(unit, unit)


def parse(text: str) -> int | Decimal | None:
    """A number's literal text ('1742000', '2746376.09', '1.2E3') as a number, None when it is not one: for
    the text of a typed literal (a SPARQL result), never for a string an identifier might be."""
    try:
        parsed = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        return None
    if not parsed.is_finite():
        return None
    return int(parsed) if parsed == parsed.to_integral_value() and "." not in text and "e" not in text.lower() \
        else parsed


def _decimal(value: object) -> Decimal | None:
    """A number as a Decimal; None for anything else (text stays text: '179999' may be an identifier)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(str(value)) if math.isfinite(value) else None
    return None


def _rate_prefix(unit: str) -> int | None:
    """The index in PREFIXES of a rate unit's prefix ('TFlop/s' -> 4), None for a unit that is not a rate."""
    unit = unit_label(unit)
    if unit.endswith(RATE) and unit[: -len(RATE)] in PREFIXES:
        return PREFIXES.index(unit[: -len(RATE)])
    return None


def _exponent(value: Decimal) -> int:
    """floor(log10(|value|)) for a value other than zero."""
    return value.copy_abs().adjusted()


def _shift(unit: str, magnitude: Decimal) -> int:
    """How many thousands to scale a rate by so that `magnitude` (in `unit`) lies in [1, 1000)."""
    prefix = _rate_prefix(unit)
    if prefix is None or not magnitude:
        return 0
    steps = math.floor(_exponent(magnitude) / 3)
    return max(-prefix, min(len(PREFIXES) - 1 - prefix, steps))


def _rescaled(unit: str, steps: int) -> str:
    prefix = _rate_prefix(unit)
    return unit_label(unit) if prefix is None or not steps else PREFIXES[prefix + steps] + RATE


def _fixed(value: Decimal, decimals: int) -> str:
    """value with thousands separators and `decimals` decimals (rounded half up)."""
    quantum = Decimal(1).scaleb(-decimals)
    return f"{value.quantize(quantum, rounding=ROUND_HALF_UP):,f}"


def _trimmed(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def number(value: object, *, digits: int = SIGNIFICANT) -> str:
    """The number alone, with thousands separators: integers whole ('12,759'), other numbers to `digits`
    significant digits without trailing zeros ('58.89', '0.0123'), whole numbers never cut ('200,000');
    booleans 'yes'/'no', None '', text as it is (parse a literal's text first)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    if isinstance(value, int):
        return f"{value:,}"
    parsed = _decimal(value)
    if parsed is None:
        return str(value)
    if not parsed:
        return "0"
    decimals = max(0, digits - 1 - _exponent(parsed))
    text = _trimmed(_fixed(parsed, decimals))
    return "0" if text in ("-0", "") else text


def scaled(value: object, unit: str) -> tuple[Decimal | None, str]:
    """The value in the unit of its magnitude: (1742000, 'TFlop/s') -> (1.742, 'EFlop/s'); a unit other than
    a rate keeps its value and gets its one spelling."""
    parsed = _decimal(value)
    if parsed is None:
        return None, unit_label(unit)
    steps = _shift(unit, parsed)
    return parsed.scaleb(-3 * steps), _rescaled(unit, steps)


def figure(value: object, unit: str = "", *, digits: int = SIGNIFICANT) -> str:
    """A figure with its unit, scaled to its magnitude and rounded: (1742000, 'TFlop/s') -> '1.742 EFlop/s',
    (58.88919164, 'GF/W') -> '58.89 GF/W', (12759, '') -> '12,759'. A value that is not a number is shown as
    it is."""
    if isinstance(value, bool) or _decimal(value) is None:
        return number(value)
    if isinstance(value, int) and _rate_prefix(unit) is None:
        return f"{value:,} {unit_label(unit)}".rstrip()
    shown, label = scaled(value, unit)
    return f"{number(shown, digits=digits)} {label}".rstrip()


def exact(value: object) -> str:
    """The value as stored, without rounding or separators (a title attribute's text): '2746376.09'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


@dataclass(frozen=True)
class Scale:
    """One unit and one number of decimals for a column of figures (column_unit)."""

    unit: str  # the column's unit ('PFlop/s'), '' for a count
    steps: int = 0  # thousands the values are divided by (from the unit they are held in)
    decimals: int = 0

    def text(self, value: object) -> str:
        """A value of the column in the column's unit: '1,742.00'; a figure too small for the column's
        decimals keeps its significant digits ('0.004' rather than '0.00')."""
        if isinstance(value, bool) or value is None:
            return number(value)
        parsed = _decimal(value)
        if parsed is None:
            return str(value)
        shown = parsed.scaleb(-3 * self.steps)
        if isinstance(value, int) and not self.steps:
            return f"{value:,}"
        if shown and not shown.quantize(Decimal(1).scaleb(-self.decimals), rounding=ROUND_HALF_UP):
            return number(shown, digits=2)
        return _fixed(shown, self.decimals)

    def heading(self, name: str) -> str:
        """A column heading with the column's unit: 'Rmax (PFlop/s)'; the name alone for a count."""
        return f"{name} ({self.unit})" if self.unit else name


def column_unit(values: Iterable[object], unit: str = "") -> Scale:
    """The unit and decimals a column of figures is shown in, from the median of its values: a rate in the
    prefix that puts the median in [1, 1000) (GFlop/s for the 1993 TOP500, PFlop/s for 2025's), decimals
    enough for COLUMN_SIGNIFICANT digits of the median and SIGNIFICANT digits of the largest value (at most
    COLUMN_DECIMALS): '1,742.00' and '2.32' PFlop/s, '1.353' EFlop/s; whole numbers none."""
    parsed = [d for d in (_decimal(v) for v in values if not isinstance(v, bool)) if d is not None]
    present = [abs(d) for d in parsed if d]
    if not present:
        return Scale(unit_label(unit))
    middle = Decimal(statistics.median_low(present))
    steps = _shift(unit, middle)
    whole = not steps and all(d == d.to_integral_value() for d in parsed)
    wanted = max(COLUMN_SIGNIFICANT - 1 - _exponent(middle.scaleb(-3 * steps)),
                 SIGNIFICANT - 1 - _exponent(max(present).scaleb(-3 * steps)))
    decimals = 0 if whole else max(0, min(COLUMN_DECIMALS, wanted))
    return Scale(_rescaled(unit, steps), steps, decimals)
