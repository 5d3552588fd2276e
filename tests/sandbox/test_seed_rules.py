"""What the seeding tests share: reading a plan back over the sandbox's HTTP API, and the
docs/conventions.md#heuristics rules the demo is built to exercise, stated here on their own (so a slip in
the seeding shows) and pinned by the tests at the end of this module."""

from __future__ import annotations

from datetime import date

import httpx2

from tools.logic.payees import normalise_payee

DUPLICATE_DAYS = 3
DUPLICATE_RECENT_DAYS = 60


def get(api: httpx2.Client, path: str, key: str, **params) -> list[dict] | dict:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()["data"][key]


def transactions(api: httpx2.Client, plan_id: str, since: date) -> list[dict]:
    """Every (non-deleted) transaction of the plan dated `since` or later."""
    return get(api, f"/plans/{plan_id}/transactions", "transactions", since_date=since.isoformat())


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


def _row(account: str, day: str, amount: int, payee: str, **fields) -> dict:
    row = {"account_id": account, "date": day, "amount": amount, "payee_name": payee, "deleted": False}
    row |= {"category_id": None, "transfer_account_id": None, "subtransactions": []}
    return row | fields


def test_a_likely_duplicate_needs_the_same_account_amount_and_merchant_within_three_days():
    today = date(2026, 9, 30)
    first = _row("a", "2026-09-10", -8_990, "CARTE 10/09 DECATHLON 497010******8")
    twin = _row("a", "2026-09-13", -8_990, "CB DECATHLON 13/09")

    assert likely_duplicates([first, twin], today) == [(first, twin)]
    assert likely_duplicates([first, twin | {"date": "2026-09-14"}], today) == []
    assert likely_duplicates([first, twin | {"account_id": "b"}], today) == []
    assert likely_duplicates([first, twin | {"amount": -8_980}], today) == []
    assert likely_duplicates([first, twin | {"payee_name": "CB DARTY 13/09"}], today) == []
    assert likely_duplicates([first, twin], date(2026, 11, 10)) == []


def test_pending_leaves_out_categorised_transfers_splits_tracking_accounts_and_deleted_rows():
    accounts = [{"id": "a", "on_budget": True}, {"id": "loan", "on_budget": False}]
    kept = _row("a", "2026-09-10", -1_000, "X")
    rows = [
        kept,
        _row("a", "2026-09-10", -1_000, "X", category_id="uncat"),
        _row("a", "2026-09-10", -1_000, "X", category_id="food"),
        _row("a", "2026-09-10", -1_000, "X", transfer_account_id="b"),
        _row("a", "2026-09-10", -1_000, "X", subtransactions=[{"amount": -1_000}]),
        _row("loan", "2026-09-10", -1_000, "X"),
        _row("a", "2026-09-10", -1_000, "X", deleted=True),
    ]

    assert pending(rows, accounts, "uncat") == rows[:2]


def test_a_transfer_pair_is_opposite_amounts_on_two_accounts_within_three_days():
    out = _row("a", "2026-09-10", -400_000, "VIR INST VERS LIVRET")
    into = _row("b", "2026-09-13", 400_000, "VIR INST DE CPT")

    assert transfer_pairs([out, into]) == [(out, into)]
    assert transfer_pairs([out, into | {"date": "2026-09-14"}]) == []
    assert transfer_pairs([out, into | {"account_id": "a"}]) == []
    assert transfer_pairs([out, into | {"amount": -400_000}]) == []
