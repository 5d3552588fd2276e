"""Applying a `PlanDelta` to a `PlanSnapshot`: the new snapshot, sharing what did not change.

`apply_delta(None, full_export)` builds a plan from its export; `apply_delta(snapshot,
delta)` merges a delta (updates replace by id, deletions drop, months merge per category).
Indexes are updated from the entities that changed only: a transaction leaves the index
keys it had and enters the ones it has now (its account, month, payee and categories,
including its split lines'), so a refresh of one change on a 50,000-transaction plan
touches a few small tuples, not the plan.

Transactions and their split lines: `tools.ynab.merge_transactions`.
"""

from __future__ import annotations

from dataclasses import replace

from tools.ynab.indexes import evolved, present, update_index
from tools.ynab.merge_transactions import merge_transactions
from tools.ynab.parse import PlanDelta
from tools.ynab.pmap import EMPTY_MAP
from tools.ynab.snapshot import PlanSnapshot, category_order, id_order


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
        accounts=evolved(base.accounts, delta.accounts),
        category_groups=evolved(base.category_groups, delta.category_groups),
        payees=evolved(base.payees, delta.payees),
        payee_locations=evolved(base.payee_locations, delta.payee_locations),
    )
    if delta.is_empty():
        return merged
    merged = _merge_categories(merged, delta)
    merged = _merge_months(merged, delta)
    merged = merge_transactions(merged, delta)
    return _merge_schedules(merged, delta)


def _merge_categories(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    changes = delta.categories
    if not (changes.upserts or changes.deleted_ids):
        return base
    categories = evolved(base.categories, changes)
    touched = [entity.id for entity in changes.upserts] + list(changes.deleted_ids)
    leaving = [(old.category_group_id, old) for old in present(base.categories, touched)]
    entering = [(new.category_group_id, new) for new in present(categories, touched)]
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
        figures[change.month] = evolved(previous, change.categories)
    return replace(
        base,
        months=base.months.evolve(totals, gone),
        month_figures=base.month_figures.evolve(figures, gone),
    )


def _merge_schedules(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    parents, lines = delta.scheduled_transactions, delta.scheduled_subtransactions
    if not (parents.upserts or parents.deleted_ids or lines.upserts or lines.deleted_ids):
        return base
    scheduled = evolved(base.scheduled_transactions, parents)
    dropped = list(lines.deleted_ids)
    for sid in parents.deleted_ids:
        dropped.extend(line.id for line in base.scheduled_subtransactions_of(sid))
    kept = [line for line in lines.upserts if line.scheduled_transaction_id in scheduled]
    sub_map = base.scheduled_subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [
        (old.scheduled_transaction_id, old) for old in present(base.scheduled_subtransactions, touched)
    ]
    entering = [(new.scheduled_transaction_id, new) for new in present(sub_map, touched)]
    return replace(
        base,
        scheduled_transactions=scheduled,
        scheduled_subtransactions=sub_map,
        scheduled_subtransactions_by_scheduled=update_index(
            base.scheduled_subtransactions_by_scheduled, leaving, entering, id_order
        ),
    )
