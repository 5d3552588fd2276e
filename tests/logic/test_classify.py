"""The inbox rules of docs/conventions.md#heuristics: pending, suggestion at 0.90, transfer pairs, likely
duplicates."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.classify import InboxMemo, pending_inbox
from avenir_mcp.tools.logic.pending import is_pending
from tests.logic.plan_rows import account, category, group, line, payee, snapshot, transaction

TODAY = date(2026, 9, 30)


def plan(transactions, *, extra_categories=(), extra_payees=(), subtransactions=()):
    """Checking, savings, a tracking asset; Groceries, Dining, a hidden Old one, YNAB's own."""
    return snapshot(
        accounts=[
            account("chk"),
            account("sav", "Savings", type="savings"),
            account("house", "House", on_budget=False, type="otherAsset"),
        ],
        category_groups=[
            group("internal", "Internal Master Category", internal=True),
            group("cards", "Credit Card Payments"),
            group("everyday", "Everyday"),
            group("attic", "Attic", hidden=True),
        ],
        categories=[
            category("rta", "internal", "Inflow: Ready to Assign", internal=True),
            category("uncat", "internal", "Uncategorized", internal=True),
            category("splitcat", "internal", "Split", internal=True, hidden=True),
            category("visa", "cards", "Visa"),
            category("groceries", "everyday", "Groceries"),
            category("dining", "everyday", "Dining Out"),
            category("old", "everyday", "Old", hidden=True),
            category("boxed", "attic", "Boxed"),
            *extra_categories,
        ],
        payees=[
            payee("p-market", "CB MARKET FRESH 12/08 525130******2"),
            payee("p-market-2", "CARTE 14/08 MARKET FRESH"),
            payee("p-cafe", "CORNER CAFE"),
            *extra_payees,
        ],
        transactions=transactions,
        subtransactions=list(subtransactions),
    )


def history(count, category_id, *, payee_id="p-market", amount=-10_000, start=1):
    return [
        transaction(f"h-{category_id}-{payee_id}-{n}", "chk", f"2026-0{1 + n % 7}-1{n % 10}", amount,
                    payee_id=payee_id, category_id=category_id)
        for n in range(start, start + count)
    ]  # fmt: skip


def pending(id="new", day="2026-09-20", amount=-42_000, payee_id="p-market", **fields):
    return transaction(id, "chk", day, amount, payee_id=payee_id, **fields)


def item_of(inbox, transaction_id):
    return next(item for item in inbox.items if item.transaction.id == transaction_id)


def test_a_payee_always_in_one_category_is_suggested_it_whatever_the_bank_writes():
    rows = history(4, "groceries") + history(3, "groceries", payee_id="p-market-2", start=10)

    inbox = pending_inbox(plan([*rows, pending()]), TODAY)

    suggestion = item_of(inbox, "new").suggestion
    assert (suggestion.category_id, suggestion.uses, suggestion.based_on) == ("groceries", 7, 7)
    assert suggestion.confidence_hundredths == 100
    assert inbox.suggested_count == 1


def test_nine_in_ten_is_suggested_at_ninety_and_eight_in_ten_is_not():
    nine = pending_inbox(plan([*history(9, "groceries"), *history(1, "dining", start=20), pending()]), TODAY)
    eight = pending_inbox(plan([*history(8, "groceries"), *history(2, "dining", start=20), pending()]), TODAY)

    assert item_of(nine, "new").suggestion.confidence_hundredths == 90
    assert item_of(nine, "new").suggestion.based_on == 10
    assert item_of(eight, "new").suggestion is None
    assert eight.suggested_count == 0


def test_history_in_the_other_direction_does_not_count():
    refunds = history(5, "dining", amount=+10_000, start=30)

    inbox = pending_inbox(plan([*history(9, "groceries"), *refunds, pending()]), TODAY)
    refund = pending_inbox(plan([*history(9, "groceries"), *refunds, pending(amount=+5_000)]), TODAY)

    assert item_of(inbox, "new").suggestion.based_on == 9
    assert item_of(refund, "new").suggestion.category_id == "dining"
    assert item_of(refund, "new").suggestion.based_on == 5


def test_hidden_categories_and_those_in_hidden_groups_are_never_suggested_nor_counted():
    only_hidden = pending_inbox(plan([*history(6, "old"), *history(6, "boxed", start=10), pending()]), TODAY)
    mostly_hidden = pending_inbox(
        plan([*history(9, "old"), *history(2, "groceries", start=20), pending()]), TODAY
    )

    assert item_of(only_hidden, "new").suggestion is None
    assert item_of(mostly_hidden, "new").suggestion.category_id == "groceries"
    assert item_of(mostly_hidden, "new").suggestion.based_on == 2


def test_a_category_deleted_since_counts_for_nothing():
    gone = history(6, "deleted-category")  # a deleted category is not in the snapshot

    inbox = pending_inbox(plan([*gone, pending()]), TODAY)

    assert item_of(inbox, "new").suggestion is None


def test_pending_means_uncategorised_not_a_transfer_not_split_and_on_budget():
    rows = [
        pending("none"),
        pending("uncat", category_id="uncat"),
        pending("done", category_id="groceries"),
        pending("transfer", transfer_account_id="sav"),
        pending("split", category_id="splitcat"),
        transaction("tracking", "house", "2026-09-20", -5_000),
    ]
    lines = [line("l1", "split", -20_000, category_id="groceries"), line("l2", "split", -22_000)]

    plan_now = plan(rows, subtransactions=lines)

    assert {t["id"] for t in rows if is_pending(plan_now, plan_now.transactions[t["id"]])} == {
        "none",
        "uncat",
    }
    assert [item.transaction.id for item in pending_inbox(plan_now, TODAY).items] == ["none", "uncat"]


def test_transfers_between_accounts_are_paired_up_to_three_days_apart_nearest_first():
    rows = [
        transaction("out", "chk", "2026-09-10", -100_000),
        transaction("in-3", "sav", "2026-09-13", 100_000),
        transaction("far-out", "chk", "2026-08-01", -70_000),
        transaction("far-in", "sav", "2026-08-05", 70_000),
        transaction("same-account-out", "chk", "2026-07-01", -30_000),
        transaction("same-account-in", "chk", "2026-07-01", 30_000),
    ]

    inbox = pending_inbox(plan(rows), TODAY)

    partners = {item.transaction.id: item.transfer_with for item in inbox.items}
    assert partners == {
        "in-3": "out", "out": "in-3", "far-in": None, "far-out": None,
        "same-account-in": None, "same-account-out": None,
    }  # fmt: skip


def test_a_transfer_side_takes_one_partner_the_nearest():
    rows = [
        transaction("out", "chk", "2026-09-10", -50_000),
        transaction("in-2", "sav", "2026-09-12", 50_000),
        transaction("in-1", "sav", "2026-09-11", 50_000),
    ]

    inbox = pending_inbox(plan(rows), TODAY)

    partners = {item.transaction.id: item.transfer_with for item in inbox.items}
    assert partners == {"out": "in-1", "in-1": "out", "in-2": None}


def test_a_second_import_of_the_same_purchase_is_a_likely_duplicate():
    rows = [
        pending("entered", day="2026-09-18", category_id="groceries"),
        pending("imported", day="2026-09-20", payee_id="p-market-2"),  # same merchant, other label
        pending("other-amount", day="2026-09-20", amount=-42_001),
        pending("too-late", day="2026-09-24"),  # 4 days after the import
        pending("old-1", day="2026-07-01", amount=-5_000),
        pending("old-2", day="2026-07-02", amount=-5_000),
    ]

    inbox = pending_inbox(plan(rows), TODAY)

    duplicates = {item.transaction.id: item.duplicate_of for item in inbox.items}
    assert duplicates == {
        "imported": "entered", "other-amount": None, "too-late": None, "old-1": None, "old-2": None,
    }  # fmt: skip


def test_the_inbox_lists_newest_first_and_the_assignable_categories_in_display_order():
    rows = [pending("a", day="2026-09-01"), pending("b", day="2026-09-03"), pending("c", day="2026-09-03")]

    inbox = pending_inbox(plan(rows), TODAY)

    assert [item.transaction.id for item in inbox.items] == ["b", "c", "a"]
    assert [c.name for c in inbox.categories] == ["Dining Out", "Groceries", "Inflow: Ready to Assign"]


def test_the_memo_answers_again_only_while_the_plan_is_unchanged():
    memo = InboxMemo()
    before = plan([pending()])
    after = plan([pending(), pending("more")])

    first = memo.inbox(before, TODAY)

    assert memo.inbox(before, TODAY) is first
    assert len(memo.inbox(after, TODAY).items) == 2
    assert memo.inbox(before, date(2026, 10, 1)) is not first


def test_a_zero_amount_pending_transaction_is_never_a_transfer_partner():
    rows = [
        pending("zero-chk", amount=0),
        transaction("zero-sav", "sav", "2026-09-20", 0, payee_id="p-cafe"),
        pending("out", amount=-5_000),
        transaction("in", "sav", "2026-09-21", 5_000, payee_id="p-cafe"),
    ]

    inbox = pending_inbox(plan(rows), TODAY)

    assert {item.transaction.id: item.transfer_with for item in inbox.items} == {
        "zero-chk": None,
        "zero-sav": None,
        "out": "in",
        "in": "out",
    }
