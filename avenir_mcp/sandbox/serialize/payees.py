"""Payees and payee locations (`Payee`, `PayeeLocation`)."""

from __future__ import annotations

from typing import Any

PAYEE_FIELDS = ("id", "name", "transfer_account_id", "deleted")
LOCATION_FIELDS = ("id", "payee_id", "latitude", "longitude", "deleted")


def payee(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in PAYEE_FIELDS}


def payee_location(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in LOCATION_FIELDS}
