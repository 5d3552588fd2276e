"""Finding transactions by dates, exact amount, accounts, categories and payee text.

`matching(snapshot, criteria)` walks the plan's transactions newest first and yields
those that meet every criterion, lazily, so a page of 50 stops the walk early. It starts
from the narrowest of the snapshot's indexes a criterion allows (the accounts', the
categories', the matching payees', or the months of the window) rather than scanning
every transaction, and checks the other criteria on what that index gives.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction, transaction_order


@dataclass(frozen=True, slots=True)
class Criteria:
    """What a transaction must match; None means any. Dates are inclusive, `amount` is exact
    (milliunits, with its sign), `payee` is text matched on normalised payee names."""

    since: date
    until: date
    amount: int | None = None
    account_ids: frozenset[str] | None = None
    category_ids: frozenset[str] | None = None
    payee: str | None = None


def matching(snapshot: PlanSnapshot, criteria: Criteria) -> Iterator[Transaction]:
    """Transactions meeting every criterion, newest first (date, then id), each once.

    A split matches a category when one of its lines has it, and a payee when its own
    payee or a line's payee matches. Deleted transactions are never in a snapshot.
    """
    payee_ids = matching_payee_ids(snapshot, criteria.payee) if criteria.payee is not None else None
    for transaction in _candidates(snapshot, criteria, payee_ids):
        if _meets(snapshot, transaction, criteria, payee_ids):
            yield transaction


def matching_payee_ids(snapshot: PlanSnapshot, text: str) -> frozenset[str]:
    """Payees whose normalised name contains `text` normalised (docs/conventions.md#heuristics), so card
    numbers, dates and payment words on either side make no difference."""
    wanted = normalise_payee(text)
    return frozenset(payee.id for payee in snapshot.payees.values() if wanted in normalise_payee(payee.name))


def _candidates(
    snapshot: PlanSnapshot, criteria: Criteria, payee_ids: frozenset[str] | None
) -> Iterator[Transaction]:
    """The transactions of the smallest index a criterion allows, newest first."""
    options: list[tuple[int, list[tuple[Transaction, ...]]]] = []
    if criteria.account_ids is not None:
        options.append(_lists(snapshot.transactions_in_account, criteria.account_ids))
    if criteria.category_ids is not None:
        options.append(_lists(snapshot.transactions_in_category, criteria.category_ids))
    if payee_ids is not None:
        options.append(_lists(snapshot.transactions_with_payee, payee_ids))
    if not options:
        return snapshot.transactions_between(criteria.since, criteria.until)
    _size, lists = min(options, key=lambda option: option[0])
    return _within(_merged(lists), criteria.since, criteria.until)


def _lists(
    index: Callable[[str], tuple[Transaction, ...]], keys: Iterable[str]
) -> tuple[int, list[tuple[Transaction, ...]]]:
    lists = [index(key) for key in keys]
    return sum(map(len, lists)), lists


def _merged(lists: list[tuple[Transaction, ...]]) -> Iterator[Transaction]:
    """Several newest-first lists as one, without repeats (a split sits under each line)."""
    previous = None
    for transaction in heapq.merge(*lists, key=transaction_order):
        if transaction.id != previous:
            yield transaction
        previous = transaction.id


def _within(transactions: Iterator[Transaction], since: date, until: date) -> Iterator[Transaction]:
    for transaction in transactions:
        if transaction.date < since:
            return  # newest first: nothing older can be in the window
        if transaction.date <= until:
            yield transaction


def _meets(
    snapshot: PlanSnapshot, transaction: Transaction, criteria: Criteria, payee_ids: frozenset[str] | None
) -> bool:
    if criteria.amount is not None and transaction.amount != criteria.amount:
        return False
    if criteria.account_ids is not None and transaction.account_id not in criteria.account_ids:
        return False
    lines = snapshot.subtransactions_of(transaction.id)
    if criteria.category_ids is not None and not (
        transaction.category_id in criteria.category_ids
        or any(line.category_id in criteria.category_ids for line in lines)
    ):
        return False
    return payee_ids is None or (
        transaction.payee_id in payee_ids or any(line.payee_id in payee_ids for line in lines)
    )
