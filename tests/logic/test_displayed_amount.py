"""An amount as YNAB shows it (`displayed_amount`): the plan's symbol, grouping and separator,
every milliunit kept; the same text as the sandbox's `*_formatted` fields where both apply."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.values.money import displayed_amount
from avenir_mcp.ynab_client.snapshot import CurrencyFormat

USD = {
    "iso_code": "USD", "example_format": "123,456.78", "decimal_digits": 2, "decimal_separator": ".",
    "symbol_first": True, "group_separator": ",", "currency_symbol": "$", "display_symbol": True,
}  # fmt: skip
EUR = {
    **USD, "iso_code": "EUR", "example_format": "123.456,78", "decimal_separator": ",",
    "symbol_first": False, "group_separator": ".", "currency_symbol": "€",
}  # fmt: skip
JPY = {**USD, "iso_code": "JPY", "example_format": "123,456", "decimal_digits": 0, "currency_symbol": "¥"}
KWD = {
    **USD,
    "iso_code": "KWD",
    "example_format": "123,456.789",
    "decimal_digits": 3,
    "currency_symbol": "KD",
}
CHF = {**USD, "iso_code": "CHF", "group_separator": "'", "currency_symbol": "CHF ", "display_symbol": False}
FORMATS = {"USD": USD, "EUR": EUR, "JPY": JPY, "KWD": KWD, "CHF": CHF}


def plan_format(**fields: Any) -> CurrencyFormat:
    return CurrencyFormat(**fields)


@pytest.mark.parametrize(
    ("spec", "milliunits", "expected"),
    [
        (USD, 1_250_000, "$1,250.00"),
        (USD, -12_500, "-$12.50"),
        (USD, 0, "$0.00"),
        (USD, 1_234_567_890, "$1,234,567.89"),
        (EUR, 1_250_000, "1.250,00€"),
        (EUR, -120_000, "-120,00€"),
        (JPY, 1_250_000, "¥1,250"),
        (JPY, -500_000, "-¥500"),
        (KWD, 1_250_125, "KD1,250.125"),
        (CHF, 1_250_000, "1'250.00"),  # display_symbol false: no symbol
    ],
)
def test_it_shows_amounts_as_ynab_does_in_the_plans_format(spec, milliunits, expected):
    assert displayed_amount(plan_format(**spec), milliunits) == expected


@pytest.mark.parametrize(
    ("spec", "milliunits", "expected"),
    [
        (USD, 1_234, "$1.234"),  # a milliunit more than a cent: shown, not rounded away
        (EUR, -1_250_005, "-1.250,005€"),
        (JPY, 1_500, "¥1.5"),
        (JPY, -250, "-¥0.25"),
    ],
)
def test_it_never_loses_a_milliunit(spec, milliunits, expected):
    assert displayed_amount(plan_format(**spec), milliunits) == expected


def test_without_a_format_it_shows_grouped_digits_and_no_symbol():
    assert displayed_amount(None, -1_250_000) == "-1,250.00"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"group_separator": " "}, "$1 250.00"),
        ({"group_separator": "\u00a0"}, "$1\u00a0250.00"),
        ({"group_separator": ""}, "$1250.00"),
        ({"group_separator": "."}, "$1250.00"),  # the decimal separator: would misread
        ({"group_separator": "5"}, "$1250.00"),
        ({"group_separator": None}, "$1250.00"),
        ({"currency_symbol": "1$"}, "1,250.00"),
        ({"currency_symbol": None}, "1,250.00"),
        ({"display_symbol": "yes"}, "1,250.00"),
        ({"decimal_digits": "two"}, "$1,250.00"),
    ],
)
def test_values_ynab_got_wrong_are_not_used(fields, expected):
    assert displayed_amount(plan_format(**{**USD, **fields}), 1_250_000) == expected


@given(
    st.sampled_from(sorted(FORMATS)),
    st.integers(min_value=-(10**12), max_value=10**12),
)
def test_it_agrees_with_the_sandboxs_formatted_amounts(name, units_of_the_plan):
    spec = FORMATS[name]
    milliunits = units_of_the_plan * 10 ** (3 - spec["decimal_digits"])  # nothing to round

    assert displayed_amount(plan_format(**spec), milliunits) == MoneyFormat(spec).formatted(milliunits)
