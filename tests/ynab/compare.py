"""Comparing plan snapshots entity by entity, and checking indexes against a plain scan."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from avenir_mcp.ynab_client.snapshot import PlanSnapshot, category_order, transaction_order


def differences(merged: PlanSnapshot, fresh: PlanSnapshot) -> list[str]:
    """Every field, entity and index entry where two snapshots differ (empty when equal), but
    `as_of`: it dates the sync that brought a snapshot, not what the plan holds."""
    found: list[str] = []
    for spec in fields(PlanSnapshot):
        if spec.name == "as_of":
            continue
        left, right = getattr(merged, spec.name), getattr(fresh, spec.name)
        if isinstance(left, Mapping):
            found.extend(_map_differences(spec.name, left, right))
        elif left != right:
            found.append(f"{spec.name}: {left!r} != {right!r}")
    return found


def _map_differences(name: str, left: Mapping, right: Mapping) -> list[str]:
    found = []
    for key in set(left) | set(right):
        if key not in right:
            found.append(f"{name}[{key!r}] only in the merged snapshot")
        elif key not in left:
            found.append(f"{name}[{key!r}] only in the fresh snapshot")
        elif isinstance(left[key], Mapping):
            found.extend(_map_differences(f"{name}[{key!r}]", left[key], right[key]))
        elif left[key] != right[key]:
            found.append(f"{name}[{key!r}]: {left[key]!r} != {right[key]!r}")
    return found


def index_errors(snapshot: PlanSnapshot) -> list[str]:
    """Where an index disagrees with the same index computed by scanning every entity."""
    expected = _scanned_indexes(snapshot)
    found = []
    for name, index in expected.items():
        actual = dict(getattr(snapshot, name).items())
        if actual != index:
            found.append(f"{name}: {sorted(set(actual) ^ set(index)) or 'entries differ'}")
    return found


def _scanned_indexes(snapshot: PlanSnapshot) -> dict[str, dict]:
    lines: dict = {}
    for line in snapshot.subtransactions.values():
        lines.setdefault(line.transaction_id, []).append(line)
    by = {"account": {}, "category": {}, "payee": {}, "month": {}}
    for txn in snapshot.transactions.values():
        own = lines.get(txn.id, [])
        keys = {
            "account": {txn.account_id},
            "category": {txn.category_id, *(line.category_id for line in own)} - {None},
            "payee": {txn.payee_id, *(line.payee_id for line in own)} - {None},
            "month": {txn.date.replace(day=1)},
        }
        for index, index_keys in keys.items():
            for key in index_keys:
                by[index].setdefault(key, []).append(txn)
    groups: dict = {}
    for category in snapshot.categories.values():
        groups.setdefault(category.category_group_id, []).append(category)
    scheduled_lines: dict = {}
    for line in snapshot.scheduled_subtransactions.values():
        scheduled_lines.setdefault(line.scheduled_transaction_id, []).append(line)
    return {
        **{f"transactions_by_{index}": _sorted(keyed, transaction_order) for index, keyed in by.items()},
        "categories_by_group": _sorted(groups, category_order),
        "subtransactions_by_transaction": _sorted(lines, lambda line: line.id),
        "scheduled_subtransactions_by_scheduled": _sorted(scheduled_lines, lambda line: line.id),
    }


def _sorted(keyed: dict, order) -> dict:
    return {key: tuple(sorted(items, key=order)) for key, items in keyed.items()}
