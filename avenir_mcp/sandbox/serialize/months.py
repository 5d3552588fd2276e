"""Months (`MonthSummaryBase`, `MonthSummary`, `MonthDetailBase`, `MonthDetail`)."""

from __future__ import annotations

from datetime import date
from typing import Any

from avenir_mcp.sandbox.ledger.budget import PlanBudget
from avenir_mcp.sandbox.serialize.categories import category, category_base
from avenir_mcp.sandbox.serialize.money import MoneyFormat

MONEY = ("income", "budgeted", "activity", "to_be_budgeted")


def month_summary_base(budget: PlanBudget, month: date, row: dict[str, Any] | None) -> dict[str, Any]:
    """A month's totals; `row` is its Month row (note, age of money, deleted) if it has one."""
    figures = budget.months[month]
    row = row or {}
    return {
        "month": month.isoformat(),
        "note": row.get("note"),
        "income": figures.income,
        "budgeted": figures.budgeted,
        "activity": figures.activity,
        "to_be_budgeted": figures.to_be_budgeted,
        "age_of_money": row.get("age_of_money"),
        "deleted": row.get("deleted", False),
    }


def month_summary(budget: PlanBudget, month: date, row: dict[str, Any] | None, money: MoneyFormat) -> dict:
    return money.add(month_summary_base(budget, month, row), MONEY)


def month_detail_base(budget: PlanBudget, month: date, row: dict[str, Any] | None) -> dict[str, Any]:
    item = month_summary_base(budget, month, row)
    item["categories"] = [category_base(c, budget, month) for c in budget.categories if not c["deleted"]]
    return item


def month_detail(budget: PlanBudget, month: date, row: dict[str, Any] | None, money: MoneyFormat) -> dict:
    item = month_summary(budget, month, row, money)
    item["categories"] = [category(c, budget, month, money) for c in budget.categories if not c["deleted"]]
    return item
