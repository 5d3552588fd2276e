"""Applying a `PlanDelta` to a `PlanSnapshot`: the new snapshot, sharing what did not change.

`apply_delta(None, full_export)` builds a plan from its export; `apply_delta(snapshot,
delta)` merges a delta (updates replace by id, deletions drop, months merge per category).
Indexes are updated from the entities that changed only: a transaction leaves the index
keys it had and enters the ones it has now (its account, month, payee and categories,
including its split lines'), so a refresh of one change on a 50,000-transaction plan
touches a few small tuples, not the plan.

Subtransactions follow their parent: they are dropped with it, and lines whose parent is
not in the plan are ignored (the full export and a chain of deltas then agree).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import date

from tools.ynab.entities import Subtransaction, Transaction
from tools.ynab.indexes import update_index
from tools.ynab.parse import Changes, PlanDelta
from tools.ynab.pmap import EMPTY_MAP, PersistentMap
from tools.ynab.snapshot import PlanSnapshot, category_order, id_order, transaction_order


def apply_delta(snapshot: PlanSnapshot | None, delta: PlanDelta) -> PlanSnapshot:
    """`snapshot` (None: an empty plan) with everything `delta` says applied."""
    base = snapshot or PlanSnapshot(plan_id=delta.plan_id)
    if base.plan_id != delta.plan_id:
        raise ValueError(f"a delta of plan {delta.plan_id} cannot merge into plan {base.plan_id}")
    merged = replace(
        base,
        name=delta.name,
        server_knowledge=delta.server_knowledge,
        last_modified_on=delta.last_modified_on,
        first_month=delta.first_month,
        last_month=delta.last_month,
        settings=delta.settings,
        accounts=_evolved(base.accounts, delta.accounts),
        category_groups=_evolved(base.category_groups, delta.category_groups),
        payees=_evolved(base.payees, delta.payees),
        payee_locations=_evolved(base.payee_locations, delta.payee_locations),
    )
    if delta.is_empty():
        return merged
    merged = _merge_categories(merged, delta)
    merged = _merge_months(merged, delta)
    merged = _merge_transactions(merged, delta)
    return _merge_schedules(merged, delta)


def _evolved(entities: PersistentMap, changes: Changes) -> PersistentMap:
    return entities.evolve({entity.id: entity for entity in changes.upserts}, changes.deleted_ids)


def _merge_categories(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    changes = delta.categories
    if not (changes.upserts or changes.deleted_ids):
        return base
    categories = _evolved(base.categories, changes)
    touched = [entity.id for entity in changes.upserts] + list(changes.deleted_ids)
    leaving = [(old.category_group_id, old) for old in _present(base.categories, touched)]
    entering = [(new.category_group_id, new) for new in _present(categories, touched)]
    by_group = update_index(base.categories_by_group, leaving, entering, category_order)
    return replace(base, categories=categories, categories_by_group=by_group)


def _merge_months(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    if not delta.months:
        return base
    totals, gone, figures = {}, [], {}
    for change in delta.months:
        if change.totals is None:
            gone.append(change.month)
            continue
        totals[change.month] = change.totals
        previous = figures.get(change.month) or base.month_figures.get(change.month, EMPTY_MAP)
        figures[change.month] = _evolved(previous, change.categories)
    return replace(
        base,
        months=base.months.evolve(totals, gone),
        month_figures=base.month_figures.evolve(figures, gone),
    )


def _merge_transactions(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    txn_changes, sub_changes = delta.transactions, delta.subtransactions
    if not (txn_changes.upserts or txn_changes.deleted_ids or sub_changes.upserts or sub_changes.deleted_ids):
        return base
    transactions = _evolved(base.transactions, txn_changes)
    subs, subs_by_txn, affected = _merge_lines(base, transactions, txn_changes, sub_changes)
    moves = [
        (
            base.transactions.get(tid),
            base.subtransactions_of(tid),
            transactions.get(tid),
            subs_by_txn.get(tid, ()),
        )
        for tid in affected
    ]
    return replace(
        base,
        transactions=transactions,
        subtransactions=subs,
        subtransactions_by_transaction=subs_by_txn,
        transactions_by_account=_reindexed(base.transactions_by_account, moves, _account_keys),
        transactions_by_category=_reindexed(base.transactions_by_category, moves, _category_keys),
        transactions_by_payee=_reindexed(base.transactions_by_payee, moves, _payee_keys),
        transactions_by_month=_reindexed(base.transactions_by_month, moves, _month_keys),
    )


def _merge_lines(
    base: PlanSnapshot, transactions: PersistentMap, txn_changes: Changes, sub_changes: Changes
) -> tuple[PersistentMap, PersistentMap, set[str]]:
    """Split lines after the merge, their index by parent, and every parent whose lines or self changed."""
    dropped = list(sub_changes.deleted_ids)
    for tid in txn_changes.deleted_ids:  # a deleted parent takes its lines with it
        dropped.extend(line.id for line in base.subtransactions_of(tid))
    kept = [line for line in sub_changes.upserts if line.transaction_id in transactions]
    subs = base.subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [(old.transaction_id, old) for old in _present(base.subtransactions, touched)]
    entering = [(new.transaction_id, new) for new in _present(subs, touched)]
    subs_by_txn = update_index(base.subtransactions_by_transaction, leaving, entering, id_order)
    affected = {entity.id for entity in txn_changes.upserts} | set(txn_changes.deleted_ids)
    affected.update(line.transaction_id for _, line in leaving)
    affected.update(line.transaction_id for _, line in entering)
    return subs, subs_by_txn, affected


Lines = tuple[Subtransaction, ...]
# One affected transaction: (before, its lines before, after, its lines after); None = absent.
Move = tuple[Transaction | None, Lines, Transaction | None, Lines]
KeysOf = Callable[[Transaction, Lines], set]


def _reindexed(index: PersistentMap, moves: list[Move], keys_of: KeysOf) -> PersistentMap:
    """`index` after each affected transaction left its old keys and entered its new ones."""
    leaving: list[tuple[object, Transaction]] = []
    entering: list[tuple[object, Transaction]] = []
    for old, old_lines, new, new_lines in moves:
        old_keys = keys_of(old, old_lines) if old else set()
        new_keys = keys_of(new, new_lines) if new else set()
        if old is new and old_keys == new_keys:
            continue
        leaving.extend((key, old) for key in old_keys)
        entering.extend((key, new) for key in new_keys)
    return update_index(index, leaving, entering, transaction_order)


def _account_keys(transaction: Transaction, lines: Lines) -> set[str]:
    return {transaction.account_id}


def _month_keys(transaction: Transaction, lines: Lines) -> set[date]:
    return {transaction.date.replace(day=1)}


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


def _merge_schedules(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    parents, lines = delta.scheduled_transactions, delta.scheduled_subtransactions
    if not (parents.upserts or parents.deleted_ids or lines.upserts or lines.deleted_ids):
        return base
    scheduled = _evolved(base.scheduled_transactions, parents)
    dropped = list(lines.deleted_ids)
    for sid in parents.deleted_ids:
        dropped.extend(line.id for line in base.scheduled_subtransactions_of(sid))
    kept = [line for line in lines.upserts if line.scheduled_transaction_id in scheduled]
    sub_map = base.scheduled_subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [
        (old.scheduled_transaction_id, old) for old in _present(base.scheduled_subtransactions, touched)
    ]
    entering = [(new.scheduled_transaction_id, new) for new in _present(sub_map, touched)]
    return replace(
        base,
        scheduled_transactions=scheduled,
        scheduled_subtransactions=sub_map,
        scheduled_subtransactions_by_scheduled=update_index(
            base.scheduled_subtransactions_by_scheduled, leaving, entering, id_order
        ),
    )


def _present(entities: PersistentMap, ids: Iterable[str]) -> Iterator:
    """The entities among `ids` that `entities` holds (each once)."""
    for entity_id in dict.fromkeys(ids):
        entity = entities.get(entity_id)
        if entity is not None:
            yield entity
