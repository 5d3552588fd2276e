"""`get_age_of_money`: YNAB's age of money, month by month, and which way it is going."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PlanResult, plural, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.age_of_money import STEADY_DAYS, MonthAge, ages, overall_change, trend
from avenir_mcp.tools.logic.trends import MAX_MONTHS
from avenir_mcp.values.months import add_months, month_start


class MonthAgeEntry(BaseModel):
    month: str = Field(description="YYYY-MM-01.")
    days: int | None = Field(description="YNAB's age of money that month, in days; null when YNAB has none.")
    change: int | None = Field(
        description="Days more (or fewer, negative) than the month before; null if unknown."
    )


class AgeOfMoney(PlanResult):
    message: str = Field(description="The answer in one sentence.")
    days: int | None = Field(
        description="The latest age of money YNAB gives, in days; null when it has none."
    )
    latest_month: str | None = Field(description="The month that figure is for, YYYY-MM-01; null with it.")
    months: list[MonthAgeEntry] = Field(description="Oldest first, ending with the current month.")
    change: int | None = Field(
        description="The latest figure minus the oldest one listed, in days; null if unknown."
    )
    trend: str | None = Field(
        description=f"up or down (a change of more than {STEADY_DAYS} days), steady, or null when unknown."
    )
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Get age of money", toolset="insights")
async def get_age_of_money(
    plan_id: PlanIdArg = None,
    months_count: Annotated[
        int,
        Field(ge=1, le=MAX_MONTHS, description=f"How many months, the current one included, 1-{MAX_MONTHS}."),
    ] = 12,
) -> Annotated[CallToolResult, AgeOfMoney]:
    """How old the money is when it is spent (YNAB's age of money, in days), month by month,
    and whether it is going up (a bigger buffer) or down.

    The figures are YNAB's own, as its month data gives them; nothing is recomputed. A
    higher age means the person is spending money earned longer ago: living less paycheck
    to paycheck. For the month's other figures, use get_monthly_summary.
    """
    snapshot = await open_plan(plan_id)
    current = month_start(today())
    months = [add_months(current, -back) for back in range(months_count - 1, -1, -1)]
    months = [m for m in months if snapshot.first_month is None or m >= snapshot.first_month] or [current]
    rows = ages(snapshot, months)
    # The newest month YNAB gives a figure for: (month, days).
    latest = next(((row.month, row.days) for row in reversed(rows) if row.days is not None), None)
    change = overall_change(rows)
    direction = trend(change)
    days: int | None = None
    latest_month: str | None = None
    if latest is None:
        message = "YNAB gives no age of money for these months yet (it needs some spending history)."
    else:
        latest_month, days = latest[0].isoformat(), latest[1]
        message = f"Age of money is {plural(days, 'day')} as of {latest_month}"
        if change is not None:
            message += f", {direction} by {plural(abs(change), 'day')} since {_first_known(rows)}"
        message += "."
    notes = ["Age of money is YNAB's own figure, as its month data gives it; it is not recomputed here."]
    if any(row.days is None for row in rows):
        notes.append("Months where YNAB gives no figure are null.")
    result = AgeOfMoney(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        days=days,
        latest_month=latest_month,
        months=[MonthAgeEntry(month=row.month.isoformat(), days=row.days, change=row.change) for row in rows],
        change=change,
        trend=direction,
        notes=notes,
    )
    return tool_result(result, message)


def _first_known(rows: list[MonthAge]) -> str:
    return next(row.month.isoformat() for row in rows if row.days is not None)
