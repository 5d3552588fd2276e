"""Merging transactions and their split lines, and keeping the four transaction indexes.

A transaction is indexed under its account, its month (first day), its payees and its
categories, each including its split lines' (`PlanSnapshot.transactions_in_category`...).
After a delta, each affected transaction (changed itself, or one of its lines changed)
leaves the keys it had and enters the ones it has now: a refresh touches a few tuples.
A cold load instead sorts every transaction once and fills the indexes in that order.

Split lines follow their parent: they are dropped with it (whether or not YNAB reports
them deleted), and lines whose parent is not in the plan are ignored, so a chain of deltas
and a full export agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from functools import lru_cache

from tools.ynab.entities import Subtransaction, Transaction
from tools.ynab.indexes import evolved, present, update_index
from tools.ynab.parse import Changes, PlanDelta
from tools.ynab.pmap import PersistentMap
from tools.ynab.snapshot import PlanSnapshot, id_order, transaction_order

Lines = tuple[Subtransaction, ...]
# One affected transaction: (before, its lines before, after, its lines after); None = absent.
Move = tuple[Transaction | None, Lines, Transaction | None, Lines]
KeysOf = Callable[[Transaction, Lines], set]


def merge_transactions(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    """`base` with the delta's transactions and split lines merged, indexes updated."""
    txn_changes, sub_changes = delta.transactions, delta.subtransactions
    if not (txn_changes.upserts or txn_changes.deleted_ids or sub_changes.upserts or sub_changes.deleted_ids):
        return base
    transactions = evolved(base.transactions, txn_changes)
    subs, subs_by_txn, affected = _merge_lines(base, transactions, txn_changes, sub_changes)
    if base.transactions:
        indexes = _reindexed_all(base, transactions, subs_by_txn, affected)
    else:
        indexes = _built_indexes(transactions, subs_by_txn)
    return replace(
        base,
        transactions=transactions,
        subtransactions=subs,
        subtransactions_by_transaction=subs_by_txn,
        **indexes,
    )


def _merge_lines(
    base: PlanSnapshot, transactions: PersistentMap, txn_changes: Changes, sub_changes: Changes
) -> tuple[PersistentMap, PersistentMap, set[str]]:
    """Lines after the merge, their index by parent, and every parent whose lines or self changed."""
    dropped = list(sub_changes.deleted_ids)
    for tid in txn_changes.deleted_ids:  # a deleted parent takes its lines with it
        dropped.extend(line.id for line in base.subtransactions_of(tid))
    kept = [line for line in sub_changes.upserts if line.transaction_id in transactions]
    subs = base.subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [(old.transaction_id, old) for old in present(base.subtransactions, touched)]
    entering = [(new.transaction_id, new) for new in present(subs, touched)]
    subs_by_txn = update_index(base.subtransactions_by_transaction, leaving, entering, id_order)
    affected = {entity.id for entity in txn_changes.upserts} | set(txn_changes.deleted_ids)
    affected.update(line.transaction_id for _, line in leaving)
    affected.update(line.transaction_id for _, line in entering)
    return subs, subs_by_txn, affected


def _account_keys(transaction: Transaction, lines: Lines) -> set[str]:
    return {transaction.account_id}


@lru_cache(maxsize=4096)
def _first_of_month(day: date) -> date:
    return day.replace(day=1)


def _month_keys(transaction: Transaction, lines: Lines) -> set[date]:
    return {_first_of_month(transaction.date)}


def _category_keys(transaction: Transaction, lines: Lines) -> set[str]:
    keys = {line.category_id for line in lines if line.category_id}
    if transaction.category_id:
        keys.add(transaction.category_id)
    return keys


def _payee_keys(transaction: Transaction, lines: Lines) -> set[str]:
    keys = {line.payee_id for line in lines if line.payee_id}
    if transaction.payee_id:
        keys.add(transaction.payee_id)
    return keys


INDEXES: dict[str, KeysOf] = {
    "transactions_by_account": _account_keys,
    "transactions_by_category": _category_keys,
    "transactions_by_payee": _payee_keys,
    "transactions_by_month": _month_keys,
}


def _reindexed_all(
    base: PlanSnapshot, transactions: PersistentMap, subs_by_txn: PersistentMap, affected: set[str]
) -> dict[str, PersistentMap]:
    moves: list[Move] = [
        (
            base.transactions.get(tid),
            base.subtransactions_of(tid),
            transactions.get(tid),
            subs_by_txn.get(tid, ()),
        )
        for tid in affected
    ]
    return {name: _reindexed(getattr(base, name), moves, keys_of) for name, keys_of in INDEXES.items()}


def _reindexed(index: PersistentMap, moves: list[Move], keys_of: KeysOf) -> PersistentMap:
    """`index` after each affected transaction left its old keys and entered its new ones."""
    leaving: list[tuple[object, Transaction]] = []
    entering: list[tuple[object, Transaction]] = []
    for old, old_lines, new, new_lines in moves:
        old_keys = keys_of(old, old_lines) if old else set()
        new_keys = keys_of(new, new_lines) if new else set()
        if old is new and old_keys == new_keys:
            continue
        for key in old_keys:
            leaving.append((key, old))
        for key in new_keys:
            entering.append((key, new))
    return update_index(index, leaving, entering, transaction_order)


def _built_indexes(transactions: PersistentMap, subs_by_txn: PersistentMap) -> dict[str, PersistentMap]:
    """The four indexes from scratch: one sort, then each key's entries appended in order."""
    grouped: dict[str, dict[object, list[Transaction]]] = {name: {} for name in INDEXES}
    for transaction in sorted(transactions.values(), key=transaction_order):
        lines = subs_by_txn.get(transaction.id, ())
        for name, keys_of in INDEXES.items():
            entries = grouped[name]
            for key in keys_of(transaction, lines):
                entries.setdefault(key, []).append(transaction)
    return {
        name: PersistentMap({key: tuple(entries) for key, entries in keyed.items()})
        for name, keyed in grouped.items()
    }
