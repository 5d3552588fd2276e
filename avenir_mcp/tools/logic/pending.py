"""Pending transactions: the ones waiting for a category (docs/conventions.md#heuristics). Pure.

A transaction is pending when it is not deleted (a snapshot holds no deleted one), has no
category or YNAB's internal Uncategorized, is not a transfer, is not a split, and is on an
on-budget account (tracking accounts carry no categories). Until it gets a category, an
outflow is overspending that YNAB takes from the next month's Ready to Assign.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.budget import is_uncategorized
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction


def is_pending(snapshot: PlanSnapshot, transaction: Transaction) -> bool:
    """See the module docstring."""
    account = snapshot.accounts.get(transaction.account_id)
    if account is None or not account.on_budget:
        return False
    if transaction.transfer_account_id is not None or snapshot.is_split(transaction):
        return False
    if transaction.category_id is None:
        return True
    category = snapshot.categories.get(transaction.category_id)
    return category is not None and is_uncategorized(snapshot, category)


def pending_transactions(snapshot: PlanSnapshot) -> tuple[Transaction, ...]:
    """Every pending transaction of the plan, newest first (date, then id): `is_pending`'s rule
    with the plan-wide lookups made once rather than per transaction (50,000 of them)."""
    uncategorized = {c.id for c in snapshot.categories.values() if is_uncategorized(snapshot, c)}
    on_budget = {a.id for a in snapshot.accounts.values() if a.on_budget}
    splits = snapshot.subtransactions_by_transaction
    return tuple(
        t
        for t in snapshot.transactions_newest_first()
        if (t.category_id is None or t.category_id in uncategorized)
        and t.transfer_account_id is None
        and t.id not in splits
        and t.account_id in on_budget
    )


@dataclass(frozen=True, slots=True)
class PendingTotal:
    """How many pending transactions, and their amounts added up (milliunits, signed)."""

    count: int
    amount: int


def pending_total(snapshot: PlanSnapshot, transactions: Iterable[Transaction]) -> PendingTotal:
    count = amount = 0
    for transaction in transactions:
        if is_pending(snapshot, transaction):
            count += 1
            amount += transaction.amount
    return PendingTotal(count, amount)


def pending_in_month(snapshot: PlanSnapshot, month: date) -> PendingTotal:
    """The pending transactions dated in `month`."""
    return pending_total(snapshot, snapshot.transactions_in_month(month))
