"""`get_monthly_summary`: a month's income, assigned, activity, Ready to Assign, age of money
and overspent categories, as YNAB gives them."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from tools.arguments import MonthArg, PlanIdArg
from tools.logic.budget import MonthTotals, month_totals
from tools.paging import MAX_PAGE
from tools.presenting import PlanResult, money, name, plural, tool_result
from tools.reads.month_figures import open_plan_at
from tools.registry import read_tool
from tools.ynab.snapshot import PlanSnapshot


class OverspentCategory(BaseModel):
    category_id: str = Field(description="The category's id.")
    name: str = Field(description="The category's name (one line, at most 80 characters).")
    group: str = Field(description="Its category group's name (one line, at most 80 characters).")
    available: str = Field(description="Available at the end of the month, currency units; below zero.")


class MonthlySummary(PlanResult):
    month: str = Field(description="The month, YYYY-MM-01.")
    income: str = Field(description="Income received this month, currency units.")
    assigned: str = Field(description="Total assigned (budgeted) to categories this month, currency units.")
    activity: str = Field(description="Total activity of the categories this month (spending negative).")
    ready_to_assign: str = Field(
        description="Ready to Assign: money not yet assigned, currency units (negative: more was "
        "assigned than there is)."
    )
    age_of_money: int | None = Field(description="YNAB's age of money in days; null when YNAB has none.")
    overspent: list[OverspentCategory] = Field(
        description=f"Categories whose available is below zero (hidden ones too), the most overspent "
        f"first; at most {MAX_PAGE}."
    )
    overspent_count: int = Field(description="How many categories are overspent (all of them).")


@read_tool(title="Get monthly summary", toolset="insights")
async def get_monthly_summary(
    plan_id: PlanIdArg = None, month: MonthArg = "current"
) -> Annotated[CallToolResult, MonthlySummary]:
    """A month at a glance: income, total assigned, activity, Ready to Assign, age of money, and
    the overspent categories, all as YNAB computes them.

    Start a monthly review here. Amounts are in currency units; spending is negative, and a
    negative `ready_to_assign` means more was assigned than there is money. Then look at
    get_category_balances (every category's figures), get_budget_vs_actual (how much of
    each budget was spent) and get_spending_trends (the last months) where something stands out.
    """
    snapshot, chosen = await open_plan_at(plan_id, month)
    totals = month_totals(snapshot, chosen)
    result = MonthlySummary(
        plan_id=snapshot.plan_id,
        month=chosen.isoformat(),
        income=money(snapshot, totals.income),
        assigned=money(snapshot, totals.assigned),
        activity=money(snapshot, totals.activity),
        ready_to_assign=money(snapshot, totals.ready_to_assign),
        age_of_money=totals.age_of_money,
        overspent=_overspent(snapshot, totals),
        overspent_count=len(totals.overspent),
    )
    return tool_result(result, _summary(result))


def _overspent(snapshot: PlanSnapshot, totals: MonthTotals) -> list[OverspentCategory]:
    return [
        OverspentCategory(
            category_id=row.category_id,
            name=name(row.name),
            group=name(row.group),
            available=money(snapshot, row.available),
        )
        for row in totals.overspent[:MAX_PAGE]
    ]


def _summary(result: MonthlySummary) -> str:
    """One line, e.g. `2026-09-01: income 3150.00, assigned 2900.00, activity -2750.25, Ready to
    Assign 12.34, age of money 41 days, 1 overspent category.`"""
    age = f"{result.age_of_money} days" if result.age_of_money is not None else "unknown"
    overspent = plural(result.overspent_count, "overspent category", "overspent categories")
    return (
        f"{result.month}: income {result.income}, assigned {result.assigned}, activity "
        f"{result.activity}, Ready to Assign {result.ready_to_assign}, age of money {age}, {overspent}."
    )
