"""The docs/conventions.md#heuristics rules the demo is built to exercise, as the seeding tests
state them on their own (tests/helpers/heuristics.py), pinned on rows made by hand."""

from __future__ import annotations

from datetime import date

from tests.helpers.heuristics import likely_duplicates, pending, transfer_pairs


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
