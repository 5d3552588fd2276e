"""A plan's month figures, read from the materialised rows and computed by `budget_math`.

One query for the MonthCategory rows (categories x months, not transactions) and one for
the categories; the arithmetic is `budget_math.months` and `budget_math.goals`.

The result is kept per plan for as long as the plan's `server_knowledge` and the current
month (UTC) stay the same: every write raises the knowledge, so a kept result is never
stale. A write warms it once committed, so the first read after a write (a client's delta
request) does not pay for it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db import connection
from django.db.models import CharField
from django.db.models.functions import Cast

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of, months_between
from avenir_mcp.sandbox.budget_math.goals import Goal, GoalProgress, goal_progress
from avenir_mcp.sandbox.budget_math.months import CategoryMonth, MonthFigures, plan_months
from avenir_mcp.sandbox.ledger.clock import utc_today
from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.models import Category, MonthCategory, Plan

CATEGORY_FIELDS = (
    "id",
    "group_id",
    "group__name",
    "name",
    "hidden",
    "internal",
    "role",
    "note",
    *Category.GOAL_FIELDS,
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


_KNOWLEDGE = PreparedRows(lambda plan_id: Plan.objects.filter(pk=plan_id).values_list("server_knowledge"))
_CATEGORIES = PreparedRows(
    lambda plan_id: (
        Category.objects.filter(plan_id=plan_id)
        .exclude(role=Category.ROLE_SPLIT)
        .order_by("group__sort_order", "group__name", "sort_order", "name")
        .values_list(*CATEGORY_FIELDS)
    )
)
# The month as text, parsed once per month below, not once per row.
_AMOUNTS = PreparedRows(
    lambda plan_id: (
        MonthCategory.objects.filter(plan_id=plan_id)
        .order_by()
        .values_list("category_id", Cast("month", CharField()), "budgeted", "activity")
    ),
    plain=True,
)

_KEPT_PLANS = 8
_kept: OrderedDict[str, tuple[tuple[int, date], PlanBudget]] = OrderedDict()
_kept_lock = threading.Lock()


def load_budget(plan: Plan) -> PlanBudget:
    """The plan's month figures as committed now (kept between requests, see above)."""
    knowledge = next(iter(_KNOWLEDGE.fetch(plan.pk)), (0,))[0]
    key = (knowledge, month_of(utc_today()))
    with _kept_lock:
        kept = _kept.get(plan.pk)
    if kept is not None and kept[0] == key:
        return kept[1]
    budget = compute_budget(plan)
    _keep(plan.pk, key, budget)
    return budget


def warm_budget(plan: Plan) -> None:
    """Compute and keep the figures of a plan a write has just committed (`plan` as the write
    left it, its `server_knowledge` the write's). Should a later write have committed
    meanwhile, the figures are kept under this write's knowledge, which no read asks for."""
    _keep(plan.pk, (plan.server_knowledge, month_of(utc_today())), compute_budget(plan))


def _keep(plan_id: str, key: tuple[int, date], budget: PlanBudget) -> None:
    if connection.in_atomic_block:  # inside a write, rows may not be committed yet
        return
    with _kept_lock:
        _kept[plan_id] = (key, budget)
        _kept.move_to_end(plan_id)
        while len(_kept) > _KEPT_PLANS:
            _kept.popitem(last=False)


def compute_budget(plan: Plan) -> PlanBudget:
    categories = [dict(zip(CATEGORY_FIELDS, row, strict=True)) for row in _CATEGORIES.fetch(plan.pk)]
    amounts: dict[date, dict[str, tuple[int, int]]] = defaultdict(dict)
    months: dict[str, date] = {}
    for category_id, month, budgeted, activity in _AMOUNTS.fetch(plan.pk):
        day = months.get(month) or months.setdefault(month, date.fromisoformat(str(month)[:10]))
        amounts[day][category_id] = (budgeted, activity)
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
