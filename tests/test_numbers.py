"""The one number formatter (hpckg.numbers): the figures issue 35 found on the site, as they should read."""

from __future__ import annotations

from decimal import Decimal

import pytest

from hpckg.numbers import column_unit, exact, figure, number, parse, scaled, unit_label


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (Decimal("200000.000002945"), "H100e", "200,000 H100e"),  # Colossus, issue 35
    (Decimal("58.88919164"), "GF/W", "58.89 GF/W"),
    (Decimal("1742000"), "TFlop/s", "1.742 EFlop/s"),  # El Capitan's Rmax ...
    (Decimal("2746376.09"), "TFlop/s", "2.746 EFlop/s"),  # ... and its Rpeak, in the same unit and digits
    (Decimal("0.0597"), "TFlop/s", "59.7 GFlop/s"),  # 1993's number 1
    (Decimal("0.000422"), "TFlop/s", "422 MFlop/s"),
    (Decimal("1979.5"), "TFLOP/s", "1.98 PFlop/s"),  # Epoch AI's spelling, one spelling shown
    (12759, "", "12,759"),
    (Decimal("29580.98"), "kW", "29,581 kW"),  # a unit without prefixes keeps its unit
    (Decimal("0"), "TFlop/s", "0 TFlop/s"),
    (True, "", "yes"),
    ("n/a", "", "n/a"),
])
def test_a_figure_reads_in_the_unit_of_its_magnitude_with_four_significant_digits(value, unit, shown):
    assert figure(value, unit) == shown


def test_numbers_keep_whole_numbers_whole_and_round_the_rest():
    assert number(2746376) == "2,746,376"
    assert number(Decimal("2746376.09")) == "2,746,376"
    assert number(0.012345) == "0.01235"  # half up
    assert number(Decimal("-3.5")) == "-3.5"
    assert number(None) == ""
    assert scaled(Decimal("1742000"), "TFlop/s") == (Decimal("1.742"), "EFlop/s")
    assert unit_label("TFLOP/s") == unit_label("TFlop/s") == "TFlop/s"
    assert exact(Decimal("2746376.09")) == "2746376.09" and exact(2.0) == "2"
    # Text stays text (an identifier such as a TOP500 System ID); a literal's text is parsed on purpose.
    assert number("179999") == "179999" and figure("179999", "") == "179999"
    assert parse("2746376.09") == Decimal("2746376.09") and parse("1742000") == 1742000 and parse("n/a") is None


def test_a_column_is_shown_in_one_unit_chosen_by_its_median():
    # The 1993 list: 59.7 GFlop/s at the top, 0.4 GFlop/s at the bottom (top500.org shows GFlop/s).
    list_1993 = [Decimal("0.0597"), Decimal("0.0154"), Decimal("0.0011"), Decimal("0.000422")]
    scale = column_unit(list_1993, "TFlop/s")
    assert (scale.unit, scale.heading("Rmax")) == ("GFlop/s", "Rmax (GFlop/s)")
    assert [scale.text(v) for v in list_1993] == ["59.70", "15.40", "1.10", "0.42"]
    # Today's: PFlop/s, the whole column in it.
    list_2025 = [Decimal("1742000"), Decimal("1353000"), Decimal("5210.5"), Decimal("2316")]
    scale = column_unit(list_2025, "TFlop/s")
    assert scale.unit == "PFlop/s"
    assert [scale.text(v) for v in list_2025] == ["1,742.00", "1,353.00", "5.21", "2.32"]
    # Counts stay whole; a figure too small for the column's decimals keeps its digits.
    assert column_unit([8699904, 1024], "").text(8699904) == "8,699,904"
    assert column_unit([Decimal("500"), Decimal("0.004")], "kW").text(Decimal("0.004")) == "0.004"
    assert column_unit([], "TFLOP/s").unit == "TFlop/s"


def test_a_column_of_one_large_figure_keeps_four_digits():
    scale = column_unit([Decimal("1353000"), Decimal("1353000")], "TFlop/s")  # Frontier over two editions
    assert (scale.unit, scale.text(Decimal("1353000"))) == ("EFlop/s", "1.353")
