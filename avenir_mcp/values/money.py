"""Money at the tool boundary: decimal currency units in, integer milliunits inside.

YNAB counts money in milliunits (1 unit = 1000, whatever the currency's decimal digits).
Every sum and comparison in avenir-mcp is on `int` milliunits; these functions are the only
crossings between that and the decimal text an agent gives or reads. None of them goes
through a float: a float's binary value is not the decimal the person wrote.

In: `parse_amount`. Out, two texts, both in the plan's currency format (a `DecimalFormat`:
the snapshot's `CurrencyFormat`, or None when YNAB gives none) and one decimal-digits rule
(`decimal_digits`): `amount_text` for tool results (machine-readable, `.` before the
decimals) and `shown_amount` for what a person reads (previews, summaries, messages: the
plan's own separator; `statement=True` as a bank statement shows a transaction). Where a
person reads an amount by itself, as YNAB's own screens show it (the admin's pages),
`displayed_amount` adds the plan's symbol and grouping (a `CurrencyDisplay`).

Computed amounts (a mean, interest, a share of a total: what avenir-mcp works out rather
than reads from YNAB) are rounded once to the plan's smallest unit, halves away from zero
(`round_to_unit`, `average`; docs/conventions.md#rounding), so they read exactly in the
plan's digits; amounts YNAB gives, and their sums, keep every milliunit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol

from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted

MILLIUNITS_PER_UNIT = 1000
MAX_UNITS = 1_000_000_000
MAX_MILLIUNITS = MAX_UNITS * MILLIUNITS_PER_UNIT
DEFAULT_DECIMAL_DIGITS = 2
DEFAULT_DECIMAL_SEPARATOR = "."

_DECIMAL_TEXT = re.compile(r"(?P<sign>[+-]?)(?P<whole>[0-9]+)(?:\.(?P<fraction>[0-9]+))?")
_LONGEST_TEXT = 40
_EXAMPLE = 'give currency units as a decimal like "-42.50"'


def parse_amount(value: str | int | Decimal, *, field: str = "Amount") -> int:
    """A decimal amount in currency units (`"-42.50"`, `12`, `Decimal("3.5")`) as milliunits.

    Read from its decimal text: optional sign, digits, optionally `.` and 1 to 3 decimals,
    within ±1,000,000,000 units. Refused with a `Refusal` (message starts with `field`):
    bool, float, empty, spaces inside, `+`/`-` alone, thousands separators or `,`,
    exponents (`1e3`), NaN and infinities, more than 3 decimals, out of range.
    Surrounding whitespace is ignored.
    """
    if isinstance(value, float):
        raise Refusal(
            f'{field} {quoted(value)} came as a binary float: give it as decimal text like "-42.50".'
        )
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise Refusal(f"{field} {quoted(value)} is not a decimal amount: {_EXAMPLE}.")
    if isinstance(value, int):
        return _within_range(value * MILLIUNITS_PER_UNIT, field, value)
    return _parse_decimal_text(str(value).strip(), field)


def _parse_decimal_text(text: str, field: str) -> int:
    if not text:
        raise Refusal(f"{field} is empty: {_EXAMPLE}.")
    match = _DECIMAL_TEXT.fullmatch(text) if len(text) <= _LONGEST_TEXT else None
    if match is None:
        raise Refusal(f"{field} {quoted(text)} {_flaw(text)}: {_EXAMPLE}.")
    fraction = match["fraction"] or ""
    if len(fraction) > 3:
        raise Refusal(f"{field} {quoted(text)} has {len(fraction)} decimals: give at most 3.")
    magnitude = int(match["whole"]) * MILLIUNITS_PER_UNIT + int(fraction.ljust(3, "0"))
    return _within_range(-magnitude if match["sign"] == "-" else magnitude, field, text)


def _flaw(text: str) -> str:
    """Why `text` is not a plain decimal, in words the agent can act on."""
    lowered = text.lower()
    if "nan" in lowered or "inf" in lowered:
        return "is not a finite number"
    if len(text) > _LONGEST_TEXT:
        return "is too long"
    if any(char.isspace() for char in text):
        return "has a space inside"
    if "," in text or "_" in text or "'" in text:
        return "has a thousands separator or a decimal comma (only '.' before the decimals)"
    if "e" in lowered:
        return "has an exponent (write the number out)"
    return "is not a decimal number"


def _within_range(milliunits: int, field: str, given: str | int) -> int:
    if abs(milliunits) <= MAX_MILLIUNITS:
        return milliunits
    raise Refusal(f"{field} {quoted(given)} is beyond ±{MAX_UNITS:,} units: give a smaller amount.")


class DecimalFormat(Protocol):
    """What the money text reads of a plan's currency format: its decimal digits and separator.

    The snapshot's `CurrencyFormat` is one. Its values come from YNAB's data, so they are
    checked where they are read (`decimal_digits`, `shown_amount`), never trusted.
    """

    @property
    def decimal_digits(self) -> int: ...

    @property
    def decimal_separator(self) -> str: ...


def decimal_digits(currency: DecimalFormat | None) -> int:
    """The plan's decimal digits (0 to 3), 2 when the plan has no usable currency format.

    Milliunits hold 3 decimals at most, so a larger value could only add zeros; it is
    clamped to 3. A missing or non-integer value falls back to 2.
    """
    digits = currency.decimal_digits if currency is not None else None
    if type(digits) is not int:
        return DEFAULT_DECIMAL_DIGITS
    return min(max(digits, 0), 3)


def amount_text(currency: DecimalFormat | None, milliunits: int) -> str:
    """Machine-readable decimal text for tool results: `-` when negative, `.` separator.

    At least the plan's decimal digits (0 to 3, `decimal_digits`), more only when the
    milliunits need them, so no milliunit is ever lost: 150000 → `150.00`, -42500 → `-42.50`,
    1234 → `1.234`; with 0 digits 5000 → `5` and 5500 → `5.5`. `parse_amount` reads it back
    exactly.
    """
    return _decimal_text(milliunits, decimal_digits(currency))


def shown_amount(currency: DecimalFormat | None, milliunits: int, *, statement: bool = False) -> str:
    """Person-readable text for previews and sentences: the plan's decimal digits and
    separator, no symbol, no grouping.

    `statement=False` (assigned, available, moved, targets): `-` when negative, `-12.00`.
    `statement=True` (transactions, as a bank statement reads): outflow bare (-86400 →
    `86.40`), inflow with `+` (`+86.40`), zero `0.00`. Like `amount_text`, never drops a
    milliunit: 1234 in a 2-digit plan shows `1.234`.
    """
    digits = _decimal_text(abs(milliunits), decimal_digits(currency))
    shown = digits.replace(".", _decimal_separator(currency))
    if statement:
        return f"+{shown}" if milliunits > 0 else shown
    return f"-{shown}" if milliunits < 0 else shown


class CurrencyDisplay(DecimalFormat, Protocol):
    """All of a plan's currency format that YNAB's screens use: its symbol, where it goes,
    whether it shows, and the thousands separator (the snapshot's `CurrencyFormat` is one)."""

    @property
    def group_separator(self) -> str: ...

    @property
    def currency_symbol(self) -> str: ...

    @property
    def symbol_first(self) -> bool: ...

    @property
    def display_symbol(self) -> bool: ...


def displayed_amount(currency: CurrencyDisplay | None, milliunits: int) -> str:
    """An amount as YNAB shows it in the plan's currency format: symbol, grouping, separator.

    `$1,250.00` (USD), `1.250,00€` (EUR: symbol after, `.` grouping, `,` decimals), `¥1,250`
    (JPY, 0 digits), `-$12.50` when negative (the sign before the symbol, as YNAB writes it).
    The decimals are `shown_amount`'s (the plan's digits; more only when the milliunits need
    them: 1234 in a 2-digit plan shows `$1.234`), so no milliunit is lost. Without a usable
    format (None, or values YNAB's data got wrong): `1,250.00`, no symbol.
    """
    whole, _, decimals = _decimal_text(abs(milliunits), decimal_digits(currency)).partition(".")
    grouped = f"{int(whole):,}".replace(",", _group_separator(currency))
    number = grouped + (_decimal_separator(currency) + decimals if decimals else "")
    symbol = _symbol(currency)
    shown = symbol + number if currency is not None and currency.symbol_first is True else number + symbol
    return f"-{shown}" if milliunits < 0 else shown


def _group_separator(currency: CurrencyDisplay | None) -> str:
    """The plan's thousands separator: one character that is not a digit, sign or the decimal
    separator (a space, a no-break space or an apostrophe are), or none; `,` without a format."""
    if currency is None:
        return ","
    separator = currency.group_separator
    if separator == "" or (
        isinstance(separator, str)
        and len(separator) == 1
        and (separator.isprintable() or separator.isspace())
        and not separator.isdigit()
        and separator not in "+-"
        and separator != _decimal_separator(currency)
    ):
        return separator
    return ""


def _symbol(currency: CurrencyDisplay | None) -> str:
    """The plan's currency symbol when YNAB shows it: printable, without digits or signs."""
    if currency is None or currency.display_symbol is not True:
        return ""
    symbol = currency.currency_symbol
    if isinstance(symbol, str) and symbol.isprintable() and not any(c.isdigit() or c in "+-" for c in symbol):
        return symbol
    return ""


def _decimal_text(milliunits: int, digits: int) -> str:
    """`milliunits` in units with at least `digits` decimals, `.` before them."""
    whole, fraction = divmod(abs(milliunits), MILLIUNITS_PER_UNIT)
    decimals = f"{fraction:03d}".rstrip("0").ljust(digits, "0")
    sign = "-" if milliunits < 0 else ""
    return f"{sign}{whole}.{decimals}" if decimals else f"{sign}{whole}"


def _decimal_separator(currency: DecimalFormat | None) -> str:
    """The plan's decimal separator, `.` unless it is one visible character that is not a
    digit or sign (it comes from YNAB's data: a separator that could be misread is not used)."""
    separator = currency.decimal_separator if currency is not None else None
    if (
        isinstance(separator, str)
        and len(separator) == 1
        and separator.isprintable()
        and not separator.isspace()
        and not separator.isdigit()
        and separator not in "+-"
    ):
        return separator
    return DEFAULT_DECIMAL_SEPARATOR


def round_half_away_from_zero(numerator: int, denominator: int) -> int:
    """The integer nearest numerator ÷ denominator; halves go away from zero (2.5 → 3, −2.5 → −3).

    avenir-mcp's one rounding rule (docs/conventions.md#rounding): computed amounts
    (`round_to_unit`), percentages and months of runway in tenths all round with it. Exact:
    integers only. A zero denominator raises Python's own ZeroDivisionError (every caller
    checks it first).
    """
    sign = -1 if (numerator < 0) != (denominator < 0) else 1
    quotient, remainder = divmod(abs(numerator), abs(denominator))
    if 2 * remainder >= abs(denominator):
        quotient += 1
    return sign * quotient


def smallest_unit(digits: int) -> int:
    """Milliunits in the smallest amount a plan with `digits` decimal digits shows: 10 with 2
    (a cent), 1000 with 0 (a yen), 1 with 3 (a fils). `digits` as `decimal_digits` gives it, 0 to 3."""
    if not 0 <= digits <= 3:
        raise ValueError(f"decimal digits must be 0 to 3, not {digits}")
    return 10 ** (3 - digits)


def round_to_unit(milliunits: int, digits: int, *, divided_by: int = 1) -> int:
    """`milliunits` ÷ `divided_by`, rounded ONCE to the smallest unit of a plan with `digits`
    decimal digits, halves away from zero: every amount avenir-mcp computes goes through it.

    In a 2-digit plan, 188_383_550 ÷ 3 (62,794.5166… units) is 62_794_520 (62794.52), never
    62794.516; 10_005 is 10_010 (10.01) and −10_005 is −10_010. The division is done here, on
    the exact figure, so nothing is rounded twice (`round_to_unit(a // b, …)` would be).
    """
    unit = smallest_unit(digits)
    return round_half_away_from_zero(milliunits, divided_by * unit) * unit


def average(values: Sequence[int], digits: int) -> int:
    """The mean of `values` (milliunits) rounded once to the plan's smallest unit
    (`round_to_unit`); 0 for no values.

    `average([-10_000, -10_000, -10_010], 2)` is −10_003.3… milliunits, so −10_000 (−10.00).
    """
    if not values:
        return 0
    return round_to_unit(sum(values), digits, divided_by=len(values))
