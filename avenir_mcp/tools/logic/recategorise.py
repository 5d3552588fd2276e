"""Recategorising transactions (docs/tools.md#apply_categories), and undoing it
(docs/undo.md#apply_categories): pure.

`recategorisation(snapshot, assignments)` checks each `(transaction_id, category_id)` against
the plan and returns what would change, in the order given, and how many already have that
category. Refused (`Refusal`, one line each, the first problem found):

- a transaction that is not in the plan (deleted ones are not in a snapshot);
- a split (the API cannot change a split's lines), a transfer, one on a tracking account
  (tracking accounts carry no categories);
- a category that is not in the plan; one of YNAB's internal categories other than
  Inflow: Ready to Assign (Uncategorized means "no category", it is not one to choose);
  a credit card payment category (YNAB drops it from a transaction).

A transaction whose category is YNAB's internal Uncategorized has, for the person, none:
it shows as `(uncategorised)` and `from_category_id` is null; its real id is still what
undo puts back. Assignments are distinct by transaction (the tool refuses duplicates first).

`undo_state(snapshot, transaction_id, before=, after=)` compares one logged transaction with
the plan now, for undo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avenir_mcp.tools.logic.budget import is_card_payment, is_internal, is_uncategorized
from avenir_mcp.tools.logic.transaction_lines import category_shown
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot, Transaction

INFLOW_PREFIX = "Inflow:"  # "Inflow: Ready to Assign" (formerly "Inflow: To be Budgeted")
CATEGORY_SOURCE = "get_category_balances"


@dataclass(frozen=True)
class Recategorised:
    """One transaction whose category would change: from (as logged, and as shown) to target."""

    transaction: Transaction
    before: str | None  # the category id YNAB has now (Uncategorized's own id included)
    shown_before: str | None  # None when it has no category, for the person
    after: Category


@dataclass(frozen=True)
class Recategorisation:
    changes: tuple[Recategorised, ...]
    unchanged_count: int


def recategorisation(snapshot: PlanSnapshot, assignments: Sequence[tuple[str, str]]) -> Recategorisation:
    """What giving each transaction its category would change (see the module docstring)."""
    changes: list[Recategorised] = []
    unchanged = 0
    for transaction_id, category_id in assignments:
        transaction = categorisable_transaction(snapshot, transaction_id)
        category = assignable_category(snapshot, category_id)
        if transaction.category_id == category.id:
            unchanged += 1
            continue
        before = transaction.category_id
        changes.append(Recategorised(transaction, before, shown_category_id(snapshot, before), category))
    return Recategorisation(tuple(changes), unchanged)


def categorisable_transaction(snapshot: PlanSnapshot, transaction_id: str) -> Transaction:
    transaction = snapshot.transactions.get(transaction_id)
    shown = quoted(transaction_id, 40)
    if transaction is None:
        raise not_in_plan("transaction", transaction_id, "find_transactions")
    if snapshot.is_split(transaction):
        raise Refusal(
            f"Transaction {shown} is split: YNAB's API cannot change the categories of a split's "
            "lines; leave it out (the person can change them in YNAB)."
        )
    if transaction.transfer_account_id is not None:
        raise Refusal(
            f"Transaction {shown} is a transfer between accounts, which takes no category here; leave it out."
        )
    account = snapshot.accounts.get(transaction.account_id)
    if account is not None and not account.on_budget:
        raise Refusal(
            f"Transaction {shown} is on a tracking account, and tracking accounts carry no "
            "categories; leave it out."
        )
    return transaction


def assignable_category(snapshot: PlanSnapshot, category_id: str) -> Category:
    category = snapshot.categories.get(category_id)
    shown = quoted(category_id, 40)
    if category is None:
        raise not_in_plan("category", category_id, CATEGORY_SOURCE)
    if is_uncategorized(snapshot, category):
        raise Refusal(
            f"Category {shown} is YNAB's Uncategorized, which means no category: give a category "
            f"from {CATEGORY_SOURCE}."
        )
    if is_internal(snapshot, category) and not is_ready_to_assign(snapshot, category):
        raise Refusal(
            f"Category {shown} is one of YNAB's internal categories; give one from {CATEGORY_SOURCE} "
            "(of the internal ones only Inflow: Ready to Assign, for income)."
        )
    if is_card_payment(snapshot, category):
        raise Refusal(
            f"Category {shown} is a credit card payment category, which YNAB drops from a "
            f"transaction; give a spending category from {CATEGORY_SOURCE}."
        )
    return category


def is_ready_to_assign(snapshot: PlanSnapshot, category: Category) -> bool:
    return is_internal(snapshot, category) and category.name.startswith(INFLOW_PREFIX)


def shown_category_id(snapshot: PlanSnapshot, category_id: str | None) -> str | None:
    """The category as the person sees it: None for none and for YNAB's Uncategorized."""
    category = snapshot.categories.get(category_id) if category_id else None
    if category is not None and is_uncategorized(snapshot, category):
        return None
    return category_id


# --- undo ----------------------------------------------------------------------------------


def undo_state(
    snapshot: PlanSnapshot, transaction_id: str, *, before: str | None, after: str
) -> tuple[str, str]:
    """`(state, reason)` of one transaction an apply_categories operation moved from category
    `before` to `after`: `restore` while it still has `after`, `already_as_before` when it is
    back at `before`, else `conflict` and why."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "conflict", "it was deleted"
    if snapshot.is_split(transaction):
        return "conflict", "it was split since"
    current = transaction.category_id
    if _same_for_the_person(snapshot, current, before):
        return "already_as_before", ""
    if current == after:
        return "restore", ""
    return "conflict", f"its category is now {_category_words(snapshot, current)}"


def _same_for_the_person(snapshot: PlanSnapshot, current: str | None, before: str | None) -> bool:
    """Equal, or both "no category" (None and YNAB's Uncategorized are the same to the person)."""
    if current == before:
        return True
    return shown_category_id(snapshot, current) is None and shown_category_id(snapshot, before) is None


def _category_words(snapshot: PlanSnapshot, category_id: str | None) -> str:
    return category_shown(snapshot, shown_category_id(snapshot, category_id))
