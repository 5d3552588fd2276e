"""Category groups and categories (`CategoryGroup`, `CategoryBase`, `Category`)."""

from __future__ import annotations

from datetime import date
from typing import Any

from avenir_mcp.sandbox.ledger.budget import PlanBudget
from avenir_mcp.sandbox.serialize.money import MoneyFormat, iso_date, iso_datetime

GROUP_FIELDS = ("id", "name", "hidden", "internal", "deleted")
MONEY = (
    "balance",
    "activity",
    "budgeted",
    "goal_target",
    "goal_under_funded",
    "goal_overall_funded",
    "goal_overall_left",
)


def category_group(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in GROUP_FIELDS}


def category_base(row: dict[str, Any], budget: PlanBudget, month: date) -> dict[str, Any]:
    """A category with its figures and goal progress in `month`."""
    figures = budget.figures(row["id"], month)
    progress = budget.progress(row, month)
    return {
        "id": row["id"],
        "category_group_id": row["group_id"],
        "category_group_name": row["group__name"],
        "name": row["name"],
        "hidden": row["hidden"],
        "internal": row["internal"],
        "original_category_group_id": None,  # deprecated by YNAB: always null
        "note": row["note"],
        "budgeted": figures.budgeted,
        "activity": figures.activity,
        "balance": figures.balance,
        "goal_type": row["goal_type"],
        "goal_needs_whole_amount": row["goal_needs_whole_amount"],
        "goal_day": row["goal_day"],
        "goal_cadence": row["goal_cadence"],
        "goal_cadence_frequency": row["goal_cadence_frequency"],
        "goal_creation_month": iso_date(row["goal_creation_month"]),
        "goal_target": row["goal_target"],
        "goal_target_month": None,  # deprecated by YNAB: use goal_target_date
        "goal_target_date": iso_date(row["goal_target_date"]),
        "goal_percentage_complete": progress.percentage_complete,
        "goal_months_to_budget": progress.months_to_budget,
        "goal_under_funded": progress.under_funded,
        "goal_overall_funded": progress.overall_funded,
        "goal_overall_left": progress.overall_left,
        "goal_snoozed_at": iso_datetime(row["goal_snoozed_at"]),
        "deleted": row["deleted"],
    }


def category(row: dict[str, Any], budget: PlanBudget, month: date, money: MoneyFormat) -> dict[str, Any]:
    return money.add(category_base(row, budget, month), MONEY)
