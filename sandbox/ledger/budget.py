"""A plan's month figures, read from the materialised rows and computed by `budget_math`.

One query for the MonthCategory rows (categories x months, not transactions) and one for
the categories; the arithmetic is `budget_math.months` and `budget_math.goals`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any

from sandbox.budget_math.calendar import add_months, month_of, months_between
from sandbox.budget_math.goals import Goal, GoalProgress, goal_progress
from sandbox.budget_math.months import CategoryMonth, MonthFigures, plan_months
from sandbox.ledger.session import utc_today
from sandbox.models import Category, MonthCategory, Plan

CATEGORY_FIELDS = (
    "id",
    "group_id",
    "group__name",
    "name",
    "hidden",
    "internal",
    "role",
    "note",
    "goal_type",
    "goal_needs_whole_amount",
    "goal_day",
    "goal_cadence",
    "goal_cadence_frequency",
    "goal_creation_month",
    "goal_target",
    "goal_target_date",
    "goal_snoozed_at",
    "deleted",
    "knowledge",
)


@dataclass
class PlanBudget:
    """Every month's figures of a plan, with its category rows (split category excluded)."""

    plan: Plan
    months: dict[date, MonthFigures]
    categories: list[dict[str, Any]]  # rows with CATEGORY_FIELDS, in display order
    current_month: date

    def figures(self, category_id: str, month: date) -> CategoryMonth:
        return self.months[month].categories.get(category_id, CategoryMonth(0, 0, 0, 0))

    def progress(self, category: dict[str, Any], month: date) -> GoalProgress:
        return goal_progress(goal_of(category), month, self.figures(category["id"], month))


def plan_month_range(plan: Plan) -> list[date]:
    """The plan's months: first month through its last (at least next month, UTC)."""
    last = max(plan.last_month, add_months(month_of(utc_today()), 1))
    return list(months_between(plan.first_month, last))


def load_budget(plan: Plan) -> PlanBudget:
    categories = list(
        Category.objects.filter(plan=plan)
        .exclude(role=Category.ROLE_SPLIT)
        .order_by("group__sort_order", "group__name", "sort_order", "name")
        .values(*CATEGORY_FIELDS)
    )
    amounts: dict[str, dict[date, tuple[int, int]]] = defaultdict(dict)
    rows = (
        MonthCategory.objects.filter(plan=plan)
        .order_by()
        .values_list("category_id", "month", "budgeted", "activity")
    )
    for category_id, month, budgeted, activity in rows:
        amounts[category_id][month] = (budgeted, activity)
    ready = next(c["id"] for c in categories if c["role"] == Category.ROLE_READY_TO_ASSIGN)
    figures = plan_months(plan_month_range(plan), [c["id"] for c in categories], amounts, ready)
    return PlanBudget(plan, {f.month: f for f in figures}, categories, month_of(utc_today()))


def goal_of(category: dict[str, Any]) -> Goal:
    return Goal(
        goal_type=category["goal_type"],
        target=category["goal_target"],
        target_date=category["goal_target_date"],
        needs_whole_amount=category["goal_needs_whole_amount"],
        cadence=category["goal_cadence"],
        cadence_frequency=category["goal_cadence_frequency"],
        day=category["goal_day"],
        creation_month=category["goal_creation_month"],
    )
