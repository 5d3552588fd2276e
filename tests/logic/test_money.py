"""Money crosses the tool boundary exactly: decimal text in, int milliunits inside, text out;
computed amounts are rounded once to the plan's smallest unit, halves away from zero."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.values.money import (
    amount_text,
    average,
    decimal_digits,
    parse_amount,
    round_half_away_from_zero,
    round_to_unit,
    shown_amount,
    smallest_unit,
)
from avenir_mcp.values.refusal import Refusal
from tests.logic.plan_rows import account, currency, snapshot

AMOUNTS = st.integers(min_value=-(10**12), max_value=10**12)  # ±1,000,000,000 units
DIGITS = st.sampled_from([0, 2, 3])
SEPARATORS = st.sampled_from([".", ",", "٫"])


@given(AMOUNTS, DIGITS)
def test_it_reads_back_every_amount_it_writes(milliunits, digits):
    assert parse_amount(amount_text(currency(digits), milliunits)) == milliunits


@given(AMOUNTS, DIGITS)
def test_it_writes_at_least_the_currency_digits_and_at_most_three(milliunits, digits):
    text = amount_text(currency(digits), milliunits)
    decimals = text.partition(".")[2]

    assert digits <= len(decimals) <= 3
    assert text.startswith("-") == (milliunits < 0)


@given(AMOUNTS, DIGITS, SEPARATORS, st.booleans())
def test_its_preview_amounts_never_lose_a_milliunit(milliunits, digits, separator, statement):
    text = shown_amount(currency(digits, separator), milliunits, statement=statement)
    magnitude = parse_amount(text.replace(separator, ".").lstrip("+-"))

    assert magnitude == abs(milliunits)
    if statement:
        assert text.startswith("+") == (milliunits > 0)
        assert not text.startswith("-")
    else:
        assert text.startswith("-") == (milliunits < 0)


@pytest.mark.parametrize(
    ("milliunits", "digits", "expected"),
    [
        (150000, 2, "150.00"),
        (-42500, 2, "-42.50"),
        (1234, 2, "1.234"),
        (5000, 0, "5"),
        (5500, 0, "5.5"),
        (0, 2, "0.00"),
        (-1, 2, "-0.001"),
        (7, 3, "0.007"),
        (1200000000, 2, "1200000.00"),
    ],
)
def test_it_writes_amount_text_with_the_currency_digits(milliunits, digits, expected):
    assert amount_text(currency(digits), milliunits) == expected


@pytest.mark.parametrize(
    ("given_amount", "milliunits"),
    [
        ("-42.50", -42500),
        ("42", 42000),
        ("+86.4", 86400),
        ("0.001", 1),
        ("-0", 0),
        (" 12.5 ", 12500),
        ("007.10", 7100),
        (42, 42000),
        (-3, -3000),
        (Decimal("3.5"), 3500),
        (Decimal("-0.125"), -125),
        ("1000000000", 10**12),
        ("-1000000000.000", -(10**12)),
        (-1_000_000_000, -(10**12)),
    ],
)
def test_it_reads_decimal_amounts_as_milliunits(given_amount, milliunits):
    assert parse_amount(given_amount) == milliunits


@pytest.mark.parametrize(
    ("given_amount", "said"),
    [
        ("NaN", "finite"),
        ("inf", "finite"),
        ("-Infinity", "finite"),
        (Decimal("NaN"), "finite"),
        ("1e3", "exponent"),
        ("2E-2", "exponent"),
        (Decimal("1E+3"), "exponent"),
        ("", "empty"),
        ("   ", "empty"),
        ("1 000", "space"),
        ("-\t5", "space"),
        ("+", "not a decimal"),
        ("-", "not a decimal"),
        ("1,234.50", "separator"),
        ("12,50", "comma"),
        ("1_000", "separator"),
        (".5", "not a decimal"),
        ("5.", "not a decimal"),
        ("--5", "not a decimal"),
        ("0x10", "not a decimal"),
        ("١٢", "not a decimal"),
        ("1.2345", "at most 3"),
        ("1.2300", "at most 3"),
        ("1000000000.001", "1,000,000,000"),
        ("-1000000001", "1,000,000,000"),
        (1_000_000_001, "1,000,000,000"),
        ("9" * 60, "too long"),
        (True, "not a decimal amount"),
        (None, "not a decimal amount"),
        (42.5, "float"),
    ],
)
def test_it_refuses_amounts_it_cannot_take_exactly_saying_what_to_give(given_amount, said):
    with pytest.raises(Refusal) as refusal:
        parse_amount(given_amount)

    message = str(refusal.value)
    assert said in message
    assert "\n" not in message
    assert "give" in message


def test_it_names_the_argument_in_the_refusal():
    with pytest.raises(Refusal, match=r"^monthly_income '12,5' "):
        parse_amount("12,5", field="monthly_income")


def test_it_refuses_a_huge_integer_without_failing_to_print_it():
    with pytest.raises(Refusal, match="too long to show"):
        parse_amount(10**5000)


@pytest.mark.parametrize(
    ("milliunits", "statement", "expected"),
    [
        (-86400, True, "86.40"),
        (86400, True, "+86.40"),
        (0, True, "0.00"),
        (-12000, False, "-12.00"),
        (150000, False, "150.00"),
        (1200000, False, "1200.00"),
        (1234, True, "+1.234"),
    ],
)
def test_it_formats_preview_amounts_without_symbol_or_grouping(milliunits, statement, expected):
    usd = currency(2, ".")  # with a group separator "," and the symbol "$", neither shown

    assert shown_amount(usd, milliunits, statement=statement) == expected


@pytest.mark.parametrize(
    ("currency_format", "milliunits", "expected"),
    [
        (currency(2, ","), -1234560, "-1234,56"),
        (currency(0, "."), 5000, "5"),
        (currency(0, "."), 5500, "5.5"),
        (currency(3, "."), 1500, "1.500"),
        (None, 150000, "150.00"),
        (None, -150000, "-150.00"),
        (currency(7, "."), 1500, "1.500"),
        (currency(-1, "."), 1500, "1.5"),
        (currency("2", ""), 1500, "1.50"),
        (currency(None, None), 1500, "1.50"),
        (currency(True, "."), 1500, "1.50"),
        (currency(2, "5"), 1500, "1.50"),
        (currency(2, "\u202e"), 1500, "1.50"),
    ],
)
def test_it_formats_in_the_plans_digits_and_separator_when_they_are_usable(
    currency_format, milliunits, expected
):
    assert shown_amount(currency_format, milliunits) == expected


def test_a_plan_without_a_currency_format_shows_two_decimals():
    """YNAB's currency_format is nullable: such a plan's amounts still read back exactly."""
    plan = snapshot(accounts=[account("a1")])

    assert plan.settings.currency_format is None
    assert decimal_digits(plan.settings.currency_format) == 2
    assert (money(plan, 1_234_500), money(plan, -42_005)) == ("1234.50", "-42.005")


@pytest.mark.parametrize(
    ("numerator", "denominator", "expected"),
    [
        (5, 2, 3),
        (-5, 2, -3),
        (5, -2, -3),
        (-5, -2, 3),
        (7, 2, 4),
        (-7, 2, -4),
        (4, 3, 1),
        (-5, 3, -2),
        (0, 7, 0),
    ],
)
def test_halves_go_away_from_zero_whatever_the_signs(numerator, denominator, expected):
    assert round_half_away_from_zero(numerator, denominator) == expected


@given(st.integers(-(10**18), 10**18), st.integers(-(10**9), 10**9).filter(bool))
def test_rounding_takes_the_nearest_integer_and_halves_away_from_zero(numerator, denominator):
    exact = Fraction(numerator, denominator)

    rounded = round_half_away_from_zero(numerator, denominator)

    assert abs(rounded - exact) <= Fraction(1, 2)
    if abs(rounded - exact) == Fraction(1, 2):
        assert abs(rounded) > abs(exact)


@pytest.mark.parametrize(("digits", "unit"), [(0, 1000), (1, 100), (2, 10), (3, 1)])
def test_the_smallest_unit_is_what_the_plans_last_digit_counts(digits, unit):
    assert smallest_unit(digits) == unit


@pytest.mark.parametrize("digits", [-1, 4])
def test_digits_a_plan_cannot_have_are_a_programming_error(digits):
    with pytest.raises(ValueError, match="decimal digits"):
        smallest_unit(digits)


@pytest.mark.parametrize(
    ("milliunits", "digits", "divided_by", "expected"),
    [
        # Two digits (cents): halves of a cent go away from zero, either sign.
        (10_005, 2, 1, 10_010),
        (-10_005, 2, 1, -10_010),
        (10_004, 2, 1, 10_000),
        (-10_004, 2, 1, -10_000),
        (188_383_550, 2, 3, 62_794_520),  # 62,794.5166…: the debt plan's default budget, 62794.52
        (-1_000, 2, 3, -330),  # -0.333…
        # No digits (yen): halves of a yen.
        (1_500, 0, 1, 2_000),
        (-1_500, 0, 1, -2_000),
        (2_499, 0, 1, 2_000),
        (-2_499, 0, 1, -2_000),
        (3_001_000, 0, 2, 1_501_000),  # 1,500.5 yen
        (-3_001_000, 0, 2, -1_501_000),
        (100_000, 0, 3, 33_000),  # 33.33… yen
        # Three digits (dinars): halves of a fils, reachable only by dividing.
        (3, 3, 2, 2),  # 1.5 fils
        (-3, 3, 2, -2),
        (5, 3, 4, 1),  # 1.25 fils
        (3_002, 3, 3, 1_001),  # 1.000666…: 1.001, not the 1.000 a cut gives
        (12_345, 3, 1, 12_345),  # already a whole fils: unchanged
    ],
)
def test_a_computed_amount_is_rounded_once_to_the_plans_unit(milliunits, digits, divided_by, expected):
    assert round_to_unit(milliunits, digits, divided_by=divided_by) == expected


def test_a_computed_amount_reads_in_the_plans_digits_and_no_more():
    yen, cents, dinars = currency(0), currency(2), currency(3)

    assert amount_text(yen, round_to_unit(100_000, 0, divided_by=3)) == "33"
    assert amount_text(cents, round_to_unit(188_383_550, 2, divided_by=3)) == "62794.52"
    assert amount_text(dinars, round_to_unit(3_002, 3, divided_by=3)) == "1.001"


@given(AMOUNTS, st.integers(1, 1_200_000), DIGITS)
def test_a_computed_amount_is_the_nearest_one_the_plan_can_show(milliunits, divided_by, digits):
    unit = smallest_unit(digits)
    exact = Fraction(milliunits, divided_by)

    rounded = round_to_unit(milliunits, digits, divided_by=divided_by)

    assert rounded % unit == 0
    assert abs(rounded - exact) <= Fraction(unit, 2)
    if abs(rounded - exact) == Fraction(unit, 2):
        assert abs(rounded) > abs(exact)


@pytest.mark.parametrize(
    ("values", "digits", "expected"),
    [
        ([-10_000, -10_000, -10_010], 2, -10_000),  # -10.00333…
        ([-10_000, -10_010, -10_010], 2, -10_010),  # -10.00666…
        ([-10_000, -10_010], 2, -10_010),  # exactly -10.005: away from zero
        ([10_000, 10_010], 2, 10_010),
        ([-1_000, -2_000], 0, -2_000),  # -1.5 with no decimals
        ([1_000, 2_000], 0, 2_000),
        ([-1, -2], 3, -2),  # -1.5 milliunits
        ([1, 2], 3, 2),
        ([], 2, 0),
    ],
)
def test_the_average_is_rounded_once_to_the_plans_smallest_unit_halves_away_from_zero(
    values, digits, expected
):
    assert average(values, digits) == expected


@given(st.lists(st.integers(-(10**12), 10**12), min_size=1, max_size=24), st.integers(0, 3))
def test_the_average_is_the_nearest_amount_the_plan_can_show(values, digits):
    unit = smallest_unit(digits)
    exact = Fraction(sum(values), len(values))

    result = average(values, digits)

    assert result % unit == 0
    assert abs(result - exact) <= Fraction(unit, 2)
