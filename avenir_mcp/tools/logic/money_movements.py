"""Money movements as the person reads them: newest first, each side a category's name, or
None for Ready to Assign (docs/tools.md#list_money_movements).

YNAB records an assignment moved between two categories, or between a category and Ready to
Assign, as a money movement (`ynab_client.movements`). Its Ready to Assign side is null, or
(in some answers) the internal "Inflow: Ready to Assign" category: both read as None here.
A category deleted since is named `DELETED_CATEGORY`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime

from avenir_mcp.tools.logic.recategorise import is_ready_to_assign
from avenir_mcp.ynab_client.movements import MoneyMovement
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

DELETED_CATEGORY = "(deleted category)"
_LONG_AGO = datetime.min.replace(tzinfo=UTC)


def newest_first(movements: Iterable[MoneyMovement]) -> list[MoneyMovement]:
    """By when YNAB processed them, newest first (then by month, then id); one without a
    time (YNAB's field is nullable) comes last."""
    return sorted(movements, key=_order, reverse=True)


def _order(movement: MoneyMovement) -> tuple[bool, datetime, date, str]:
    moved_at = movement.moved_at
    return (moved_at is not None, moved_at or _LONG_AGO, movement.month or date.min, movement.id)


def side_name(snapshot: PlanSnapshot, category_id: str | None) -> str | None:
    """One side of a movement: the category's name (raw: the tool makes it safe to show), None
    for Ready to Assign, `DELETED_CATEGORY` for a category the plan no longer has."""
    if category_id is None:
        return None
    category = snapshot.categories.get(category_id)
    if category is None:
        return DELETED_CATEGORY
    if is_ready_to_assign(snapshot, category):
        return None
    return category.name
