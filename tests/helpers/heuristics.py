"""The docs/conventions.md#heuristics rules the demo plan is built to exercise, stated here on
their own, from the rows the sandbox's API answers (so a slip in the seeding shows)."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.payees import normalise_payee

DUPLICATE_DAYS = 3
DUPLICATE_RECENT_DAYS = 60


def pending(rows: list[dict], accounts: list[dict], uncategorized_id: str) -> list[dict]:
    """docs/conventions.md#heuristics: not deleted; no category or Uncategorized; not a transfer; not split;
    on an on-budget account."""
    on_budget = {account["id"] for account in accounts if account["on_budget"]}
    return [
        row
        for row in rows
        if not row["deleted"]
        and row["category_id"] in (None, uncategorized_id)
        and row["transfer_account_id"] is None
        and not row["subtransactions"]
        and row["account_id"] in on_budget
    ]


def likely_duplicates(rows: list[dict], today: date) -> list[tuple[dict, dict]]:
    """Same account and amount, same normalised payee, ≤ 3 days apart, both in the last 60 days."""
    recent = [row for row in rows if (today - date.fromisoformat(row["date"])).days <= DUPLICATE_RECENT_DAYS]
    return [
        (first, second)
        for index, first in enumerate(recent)
        for second in recent[index + 1 :]
        if first["account_id"] == second["account_id"]
        and first["amount"] == second["amount"]
        and normalise_payee(first["payee_name"]) == normalise_payee(second["payee_name"])
        and _days_apart(first, second) <= DUPLICATE_DAYS
    ]


def transfer_pairs(pending_rows: list[dict]) -> list[tuple[dict, dict]]:
    """Pending transactions on different accounts, opposite amounts, ≤ 3 days apart."""
    return [
        (first, second)
        for index, first in enumerate(pending_rows)
        for second in pending_rows[index + 1 :]
        if first["account_id"] != second["account_id"]
        and first["amount"] == -second["amount"]
        and _days_apart(first, second) <= DUPLICATE_DAYS
    ]


def _days_apart(first: dict, second: dict) -> int:
    return abs((date.fromisoformat(first["date"]) - date.fromisoformat(second["date"])).days)
