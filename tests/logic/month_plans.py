"""Small plan snapshots with month figures, built directly, for the pure month-figure tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date

from avenir_mcp.ynab_client.snapshot import Category, CategoryGroup, Month, PersistentMap, PlanSnapshot


def group(id: str, name: str, *, hidden: bool = False, internal: bool = False) -> CategoryGroup:
    return CategoryGroup(id=id, name=name, hidden=hidden, internal=internal)


def category(id: str, name: str, group_id: str, *, hidden: bool = False, internal: bool = False) -> Category:
    """A category with no figures; `figures` gives it a month's."""
    return Category(
        id=id,
        category_group_id=group_id,
        category_group_name=None,
        name=name,
        hidden=hidden,
        internal=internal,
        note=None,
        budgeted=0,
        activity=0,
        balance=0,
        goal_type=None,
        goal_needs_whole_amount=None,
        goal_day=None,
        goal_cadence=None,
        goal_cadence_frequency=None,
        goal_creation_month=None,
        goal_target=None,
        goal_target_date=None,
        goal_percentage_complete=None,
        goal_months_to_budget=None,
        goal_under_funded=None,
        goal_overall_funded=None,
        goal_overall_left=None,
        goal_snoozed_at=None,
    )


def figures(base: Category, *, assigned: int = 0, activity: int = 0, available: int = 0) -> Category:
    return replace(base, budgeted=assigned, activity=activity, balance=available)


def month(
    first_day: date,
    *,
    income: int = 0,
    assigned: int = 0,
    activity: int = 0,
    ready_to_assign: int = 0,
    age_of_money: int | None = None,
) -> Month:
    return Month(
        month=first_day,
        note=None,
        income=income,
        budgeted=assigned,
        activity=activity,
        to_be_budgeted=ready_to_assign,
        age_of_money=age_of_money,
    )


def plan(
    groups: Iterable[CategoryGroup],
    categories: Iterable[Category],
    months: Mapping[date, tuple[Month, Iterable[Category]]],
    *,
    first_month: date | None = None,
) -> PlanSnapshot:
    """A snapshot holding these groups and categories, and per month its totals and figures."""
    return PlanSnapshot(
        plan_id="plan-1",
        first_month=first_month or (min(months) if months else None),
        last_month=max(months) if months else None,
        category_groups=PersistentMap({g.id: g for g in groups}),
        categories=PersistentMap({c.id: c for c in categories}),
        months=PersistentMap({key: totals for key, (totals, _rows) in months.items()}),
        month_figures=PersistentMap(
            {key: PersistentMap({c.id: c for c in rows}) for key, (_totals, rows) in months.items()}
        ),
    )
