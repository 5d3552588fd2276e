"""`get_spending_trends`: activity per category over the last N full months, and its average."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PagedResult, money, plural, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.trends import MAX_MONTHS, CategoryTrend, full_months_before, spending_trends
from avenir_mcp.values.money import decimal_digits
from avenir_mcp.values.paging import paginate
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


class CategorySpending(BaseModel):
    category_id: str = Field(description="The category's id.")
    name: str = Field(description="The category's name (one line, at most 80 characters).")
    group: str = Field(description="Its category group's name (one line, at most 80 characters).")
    activity: list[str] = Field(
        description="Its activity in each month, aligned with months, currency units (spending negative)."
    )
    average: str = Field(
        description="Mean activity per month, rounded once to the plan's decimal digits, half away from zero."
    )


class SpendingTrends(PagedResult):
    months: list[str] = Field(
        description="The full months looked at, oldest first, YYYY-MM-01 (the current month is "
        "excluded; months before the plan began too)."
    )
    categories: list[CategorySpending] = Field(
        description="Categories with any activity in those months (hidden ones included, YNAB's "
        "internal ones not), the most money out first."
    )


@read_tool(title="Get spending trends", toolset="insights")
async def get_spending_trends(
    plan_id: PlanIdArg = None,
    months_count: Annotated[
        int,
        Field(ge=1, le=MAX_MONTHS, description=f"How many full months back, 1-{MAX_MONTHS}."),
    ] = 3,
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> Annotated[CallToolResult, SpendingTrends]:
    """Spending per category over the last `months_count` full months (the current month is
    not included), month by month, with each category's monthly average.

    Figures are YNAB's own monthly category activity in currency units: spending negative,
    refunds positive. Only categories with activity are listed, the biggest spending first,
    in pages. Use it to spot a category drifting up or an unusual month; for the current
    month's balances use get_category_balances, for a month's totals get_monthly_summary.
    """
    snapshot = await open_plan(plan_id)
    months = full_months_before(today(), months_count, snapshot.first_month)
    trends = spending_trends(snapshot, months, decimal_digits(snapshot.settings.currency_format))
    month_keys = [month.isoformat() for month in months]
    query = {"tool": "get_spending_trends", "plan": snapshot.plan_id, "months": month_keys}
    page = paginate(trends, limit=limit, cursor=cursor, query=query)
    result = SpendingTrends(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        months=month_keys,
        categories=[_entry(snapshot, trend) for trend in page.items],
        next_cursor=page.next_cursor,
    )
    return tool_result(result, _summary(result, months_count=months_count, total=len(trends)))


def _entry(snapshot: PlanSnapshot, trend: CategoryTrend) -> CategorySpending:
    return CategorySpending(
        category_id=trend.category_id,
        name=shown_name(trend.name),
        group=shown_name(trend.group),
        activity=[money(snapshot, amount) for amount in trend.activity],
        average=money(snapshot, trend.average),
    )


def _summary(result: SpendingTrends, *, months_count: int, total: int) -> str:
    """One line, e.g. `14 categories with activity from 2026-06-01 to 2026-08-01.`"""
    if not result.months:
        return "No full month in this plan yet: it began this month."
    span = f"from {result.months[0]} to {result.months[-1]}"
    text = f"{plural(total, 'category', 'categories')} with activity {span}"
    if len(result.months) < months_count:
        text += f" (the plan holds {plural(len(result.months), 'full month')} only)"
    if len(result.categories) < total:
        text += f", {len(result.categories)} on this page"
    return text + "."
