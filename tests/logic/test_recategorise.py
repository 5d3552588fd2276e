"""Recategorising, approving, and how a transaction reads in a preview: pure rules, rule by rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.approvals import approvals
from avenir_mcp.tools.logic.approvals import undo_state as approval_undo_state
from avenir_mcp.tools.logic.recategorise import recategorisation, undo_state
from avenir_mcp.tools.logic.transaction_lines import category_shown, transaction_line
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.refusal import Refusal
from tests.logic.plan_rows import account, category, group, line, payee, snapshot, transaction

EURO = {
    "iso_code": "EUR", "example_format": "123 456,78", "decimal_digits": 2, "decimal_separator": ",",
    "symbol_first": False, "group_separator": " ", "currency_symbol": "€", "display_symbol": True,
}  # fmt: skip


def household(**extra):
    """Checking and a tracking asset; Groceries, Dining, YNAB's internal ones, a card payment one."""
    rows = dict(
        accounts=[account("chk"), account("house", "House", on_budget=False, type="otherAsset")],
        category_groups=[
            group("internal", "Internal Master Category", internal=True),
            group("cards", "Credit Card Payments"),
            group("everyday", "Everyday"),
        ],
        categories=[
            category("rta", "internal", "Inflow: Ready to Assign", internal=True),
            category("uncat", "internal", "Uncategorized", internal=True),
            category("splitcat", "internal", "Split", internal=True, hidden=True),
            category("visa", "cards", "Visa"),
            category("groceries", "everyday", "Groceries"),
            category("dining", "everyday", "Dining Out"),
        ],
        payees=[payee("p-market", "CB MARKET FRESH 0509"), payee("p-to-house", "Transfer : House")],
        transactions=[
            transaction("t-market", "chk", "2026-09-12", -86_400, payee_id="p-market"),
            transaction("t-uncat", "chk", "2026-09-13", 120_000, category_id="uncat"),
            transaction("t-dining", "chk", "2026-09-14", -12_340, category_id="dining"),
            transaction("t-split", "chk", "2026-09-15", -30_000, category_id="splitcat"),
            transaction("t-transfer", "chk", "2026-09-16", -50_000, transfer_account_id="house"),
            transaction("t-house", "house", "2026-09-17", -500_000),
        ],
        subtransactions=[
            line("l1", "t-split", -20_000, category_id="groceries"),
            line("l2", "t-split", -10_000, category_id="dining"),
        ],
    )
    return snapshot(**{**rows, **extra})


def test_it_lists_what_changes_in_the_order_given_and_counts_what_already_has_its_category():
    plan = household()

    found = recategorisation(plan, [("t-dining", "dining"), ("t-uncat", "rta"), ("t-market", "groceries")])

    assert [(c.transaction.id, c.before, c.shown_before, c.after.id) for c in found.changes] == [
        ("t-uncat", "uncat", None, "rta"),
        ("t-market", None, None, "groceries"),
    ]
    assert found.unchanged_count == 1


@pytest.mark.parametrize(
    ("transaction_id", "category_id", "refusal"),
    [
        (
            "t-none",
            "groceries",
            "No transaction 't-none' in this plan; find_transactions gives",
        ),
        ("t-split", "groceries", "Transaction 't-split' is split"),
        ("t-transfer", "groceries", "Transaction 't-transfer' is a transfer"),
        ("t-house", "groceries", "Transaction 't-house' is on a tracking account"),
        (
            "t-market",
            "c-none",
            "No category 'c-none' in this plan; get_category_balances gives",
        ),
        ("t-market", "uncat", "Category 'uncat' is YNAB's Uncategorized, which means no category"),
        ("t-market", "splitcat", "Category 'splitcat' is one of YNAB's internal categories"),
        ("t-market", "visa", "Category 'visa' is a credit card payment category"),
    ],
)
def test_it_refuses_each_case_tools_md_lists(transaction_id, category_id, refusal):
    with pytest.raises(Refusal) as refused:
        recategorisation(household(), [("t-market", "groceries"), (transaction_id, category_id)])

    assert str(refused.value).startswith(refusal)
    assert "\n" not in str(refused.value)


def test_undo_restores_what_is_as_set_and_tells_back_as_before_from_changed_since():
    plan = household()

    def state(transaction_id: str, before: str | None, after: str) -> tuple[str, str]:
        return undo_state(plan, transaction_id, before=before, after=after)

    assert state("t-dining", "groceries", "dining") == ("restore", "")
    assert state("t-dining", "dining", "groceries") == ("already_as_before", "")
    assert state("t-uncat", None, "groceries") == ("already_as_before", "")  # Uncategorized is none
    assert state("t-market", "uncat", "groceries") == ("already_as_before", "")
    assert state("t-dining", None, "groceries") == ("conflict", "its category is now Dining Out")
    assert state("t-split", None, "groceries") == ("conflict", "it was split since")
    assert state("t-gone", None, "groceries") == ("conflict", "it was deleted")


def test_approving_skips_the_approved_and_refuses_the_unknown():
    plan = household(
        transactions=[
            transaction("a", "chk", "2026-09-12", -1_000, approved=False),
            transaction("b", "chk", "2026-09-12", -2_000, approved=True),
        ]
    )

    found = approvals(plan, ["b", "a"])

    assert ([t.id for t in found.to_approve], found.unchanged_count) == (["a"], 1)
    with pytest.raises(Refusal, match=r"^No transaction 'zz' in this plan"):
        approvals(plan, ["a", "zz"])
    assert approval_undo_state(plan, "b") == ("restore", "")
    assert approval_undo_state(plan, "a") == ("already_as_before", "")
    assert approval_undo_state(plan, "zz") == ("conflict", "it was deleted")


def test_a_transaction_line_reads_like_a_statement_in_the_plans_own_format():
    plan = household(currency_format=EURO)

    assert transaction_line(plan, plan.transactions["t-market"]) == "2026-09-12; CB MARKET FRESH 0509; 86,40"
    assert transaction_line(plan, plan.transactions["t-uncat"]) == "2026-09-13; (no payee); +120,00"
    assert category_shown(plan, None) == "(uncategorised)"
    assert category_shown(plan, "gone") == "(a deleted category)"


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_a_statement_amount_never_loses_a_milliunit_and_shows_direction_by_its_sign(milliunits):
    plan = household()

    shown = shown_amount(plan.settings.currency_format, milliunits, statement=True)

    digits = shown.removeprefix("+")
    whole, _, fraction = digits.partition(".")
    assert int(whole) * 1000 + int(fraction.ljust(3, "0")) == abs(milliunits)
    assert shown.startswith("+") == (milliunits > 0)
