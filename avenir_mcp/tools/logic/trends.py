"""Spending per category over the last full months, from YNAB's own month figures.

Pure functions over a `PlanSnapshot`; "today" is an argument. Activity is YNAB's per-month
category activity (`month_category(...).activity`), never re-added from transactions, in
`int` milliunits: money out negative, refunds and money received positive.

Which categories: every one but YNAB's internal ones (Ready to Assign, Uncategorized),
hidden ones included, that had any activity in the months looked at. A category hidden
since still held real spending in those months, and leaving it out would make the trend
look smaller than it was.

The average is the exact mean (sum ÷ number of months) rounded ONCE to the plan's smallest
unit (a cent with 2 decimal digits: 10 milliunits), halves away from zero
(`values.money.average`, docs/conventions.md#rounding), so it reads exactly with the plan's
digits and nothing is rounded twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.budget import display_order, group_name, is_internal
from avenir_mcp.values.money import average
from avenir_mcp.values.months import add_months, month_start
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot

MAX_MONTHS = 24


@dataclass(frozen=True, slots=True)
class CategoryTrend:
    """One category's activity in each month looked at (aligned with them), its total and mean."""

    category_id: str
    name: str
    group: str
    activity: tuple[int, ...]
    total: int
    average: int


def full_months_before(today: date, months_count: int, first_month: date | None) -> list[date]:
    """The last `months_count` full months before `today`'s month, oldest first.

    Months before the plan's `first_month` are left out (the plan holds nothing for them), so
    the list is shorter for a young plan, and empty for one that began this month.
    """
    if not 1 <= months_count <= MAX_MONTHS:
        raise ValueError(f"months_count must be 1 to {MAX_MONTHS}, not {months_count}")
    current = month_start(today)
    months = [add_months(current, -offset) for offset in range(months_count, 0, -1)]
    return [month for month in months if first_month is None or month >= first_month]


def spending_trends(
    snapshot: PlanSnapshot, months: Sequence[date], decimal_digits: int
) -> list[CategoryTrend]:
    """Each non-internal category with activity in `months`, most money out first.

    Order: total activity ascending (the biggest spending first, categories that mostly
    received money last), then group and category name, then id, so pages are stable.
    """
    ranked = []
    for category in snapshot.categories.values():
        if is_internal(snapshot, category):
            continue
        trend = _trend(snapshot, category, months, decimal_digits)
        if trend is not None:
            ranked.append(((trend.total, *display_order(snapshot, category)), trend))
    ranked.sort(key=lambda pair: pair[0])
    return [trend for _key, trend in ranked]


def _trend(
    snapshot: PlanSnapshot, category: Category, months: Sequence[date], decimal_digits: int
) -> CategoryTrend | None:
    """The category's trend, or None when it had no activity in any of `months`."""
    activity = tuple(_activity(snapshot, month, category.id) for month in months)
    if not any(activity):
        return None
    return CategoryTrend(
        category_id=category.id,
        name=category.name,
        group=group_name(snapshot, category),
        activity=activity,
        total=sum(activity),
        average=average(activity, decimal_digits),
    )


def _activity(snapshot: PlanSnapshot, month: date, category_id: str) -> int:
    figures = snapshot.month_category(month, category_id)
    return figures.activity if figures else 0
