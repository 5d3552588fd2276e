"""Money as YNAB shows it beside milliunits: `<field>_formatted` and `<field>_currency`.

Milliunits stay integers; the two companions are display values computed at the edge.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

from avenir_mcp.sandbox.ledger.setup import USD


class MoneyFormat:
    """A plan's currency format, rendering milliunits (`-54330` -> `"-$54.33"` and `-54.33`)."""

    def __init__(self, currency_format: dict[str, Any] | None) -> None:
        spec = {**USD, **(currency_format or {})}  # a plan's format, any field it lacks as USD's
        self.digits = max(0, min(3, int(spec["decimal_digits"])))
        self.decimal_separator = spec["decimal_separator"]
        self.group_separator = spec["group_separator"]
        self.symbol = spec["currency_symbol"] if spec["display_symbol"] else ""
        self.symbol_first = spec["symbol_first"]

    def formatted(self, milliunits: int) -> str:
        step = 10 ** (3 - self.digits)
        units, rest = divmod(abs(milliunits), step)
        units += 1 if rest * 2 >= step else 0  # half away from zero
        whole, fraction = divmod(units, 10**self.digits)
        number = f"{whole:,}".replace(",", self.group_separator)
        if self.digits:
            number += self.decimal_separator + str(fraction).zfill(self.digits)
        number = self.symbol + number if self.symbol_first else number + self.symbol
        return ("-" if milliunits < 0 and units else "") + number

    @staticmethod
    def currency(milliunits: int) -> float:
        return milliunits / 1000

    def add(self, item: dict[str, Any], fields: Iterable[str]) -> dict[str, Any]:
        """Add the `_formatted` / `_currency` companions of `fields` (null stays null)."""
        for name in fields:
            value = item[name]
            item[f"{name}_formatted"] = None if value is None else self.formatted(value)
            item[f"{name}_currency"] = None if value is None else value / 1000
        return item


def iso_date(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def iso_datetime(value: datetime | None) -> str | None:
    """YNAB's date-times: UTC with milliseconds, `2026-08-31T14:02:11.000Z`."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
