"""Accounts (`AccountBase`, `Account`)."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.serialize.money import MoneyFormat, iso_datetime

ACCOUNT_FIELDS = (
    "id",
    "name",
    "type",
    "on_budget",
    "closed",
    "note",
    "cleared_balance",
    "uncleared_balance",
    "transfer_payee_id",
    "direct_import_linked",
    "direct_import_in_error",
    "last_reconciled_at",
    "debt_interest_rates",
    "debt_minimum_payments",
    "debt_escrow_amounts",
    "deleted",
)
MONEY = ("balance", "cleared_balance", "uncleared_balance")


def account_base(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "type": row["type"],
        "on_budget": row["on_budget"],
        "closed": row["closed"],
        "note": row["note"],
        "balance": row["cleared_balance"] + row["uncleared_balance"],
        "cleared_balance": row["cleared_balance"],
        "uncleared_balance": row["uncleared_balance"],
        "transfer_payee_id": row["transfer_payee_id"],
        "direct_import_linked": row["direct_import_linked"],
        "direct_import_in_error": row["direct_import_in_error"],
        "last_reconciled_at": iso_datetime(row["last_reconciled_at"]),
        "debt_original_balance": None,  # deprecated by YNAB: always null
        "debt_interest_rates": row["debt_interest_rates"] or {},
        "debt_minimum_payments": row["debt_minimum_payments"] or {},
        "debt_escrow_amounts": row["debt_escrow_amounts"] or {},
        "deleted": row["deleted"],
    }


def account(row: dict[str, Any], money: MoneyFormat) -> dict[str, Any]:
    return money.add(account_base(row), MONEY)
