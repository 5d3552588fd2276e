"""Accounts, category groups and payees as the list tools show them."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.accounts import bank_link, listed_accounts
from avenir_mcp.tools.logic.category_groups import creatable_groups
from avenir_mcp.tools.logic.payee_stats import payee_usage
from tests.logic.plan_rows import account, group, line, payee, snapshot, transaction


def test_bank_link_tells_unlinked_broken_and_healthy_apart():
    plan = snapshot(
        accounts=[
            account("a", direct_import_linked=False, direct_import_in_error=False),
            account("b", direct_import_linked=True, direct_import_in_error=True),
            account("c", direct_import_linked=True, direct_import_in_error=False),
        ]
    )

    assert [bank_link(plan.accounts[key]) for key in "abc"] == ["none", "broken", "healthy"]


def test_accounts_come_open_first_then_budget_before_tracking_then_by_name():
    plan = snapshot(
        accounts=[
            account("old", "Old bank", closed=True),
            account("loan", "Car loan", on_budget=False, type="autoLoan"),
            account("sav", "savings"),
            account("chk", "Checking"),
        ]
    )

    assert [a.id for a in listed_accounts(plan)] == ["chk", "sav", "loan", "old"]


def test_groups_that_cannot_take_a_category_are_left_out():
    plan = snapshot(
        category_groups=[
            group("bills", "Bills"),
            group("fun", "fun"),
            group("hidden", "Old stuff", hidden=True),
            group("internal", "Internal Master Category", internal=True),
            group("cards", "Credit Card Payments"),
        ]
    )

    assert [g.id for g in creatable_groups(plan)] == ["bills", "fun"]


def payee_plan():
    return snapshot(
        accounts=[account("chk"), account("sav", "Savings")],
        payees=[
            payee("netflix", "CB NETFLIX.COM 12/01"),
            payee("market", "Market"),
            payee("amazon", "amazon"),
            payee("unused", "Bakery"),
            payee("transfer", "Transfer : Savings", transfer_account_id="sav"),
        ],
        transactions=[
            transaction("t1", "chk", "2026-03-01", -1, payee_id="netflix"),
            transaction("t2", "chk", "2026-04-01", -1, payee_id="netflix"),
            transaction("t3", "chk", "2026-02-01", -1, payee_id="market"),
            transaction("t4", "chk", "2026-05-01", -2, payee_id="amazon"),
            transaction("t5", "chk", "2026-05-02", -1, payee_id="transfer"),
        ],
        subtransactions=[line("l1", "t4", -1, payee_id="market"), line("l2", "t4", -1)],
    )


def test_payees_come_most_used_first_then_by_name_without_transfer_payees():
    usage = payee_usage(payee_plan())

    assert [(u.payee.id, u.transactions, u.last_date) for u in usage] == [
        ("netflix", 2, date(2026, 4, 1)),  # "CB NETFLIX..." before "Market"
        ("market", 2, date(2026, 5, 1)),  # its own transaction and a split line
        ("amazon", 1, date(2026, 5, 1)),
        ("unused", 0, None),
    ]
    assert usage[0].merchant == "NETFLIX.COM"


def test_payee_search_matches_the_name_or_the_merchant_case_insensitively():
    assert [u.payee.id for u in payee_usage(payee_plan(), "netflix.com")] == ["netflix"]
    assert [u.payee.id for u in payee_usage(payee_plan(), "cb netflix")] == ["netflix"]
    assert [u.payee.id for u in payee_usage(payee_plan(), "AMA")] == ["amazon"]
    assert payee_usage(payee_plan(), "savings") == []
