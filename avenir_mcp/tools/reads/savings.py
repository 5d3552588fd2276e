"""`get_savings_rate`: how much of the income was kept, month by month and overall."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PlanResult, money, plural, shown_money, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.flows import complete_months, first_activity_month
from avenir_mcp.tools.logic.savings import MonthSavings, rate_tenths, savings_by_month
from avenir_mcp.tools.logic.trends import MAX_MONTHS
from avenir_mcp.values.money import average, decimal_digits
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


class MonthRate(BaseModel):
    month: str = Field(description="YYYY-MM-01, a complete month.")
    income: str = Field(description="Income (Ready to Assign inflows, no transfers), currency units.")
    spending: str = Field(description="Spending net of refunds, loan payments included (negative).")
    saved: str = Field(description="income + spending, currency units (negative: more spent than earned).")
    rate: float | None = Field(description="saved ÷ income × 100, one decimal; null without income.")


class SavingsRate(PlanResult):
    message: str = Field(description="The answer in one sentence.")
    months: list[MonthRate] = Field(description="The complete months looked at, oldest first.")
    income: str = Field(description="Income over those months.")
    spending: str = Field(description="Spending over those months (negative).")
    saved: str = Field(description="income + spending over those months.")
    rate: float | None = Field(description="Overall saved ÷ income × 100, one decimal; null without income.")
    average_saved: str = Field(description="Mean saved a month.")
    best_month: str | None = Field(
        description="The month with the highest rate; null when no month had income."
    )
    worst_month: str | None = Field(
        description="The month with the lowest rate; null when no month had income."
    )
    moved_to_tracking: str = Field(
        description="Money moved to tracking assets (e.g. a retirement fund) over those months: counted as "
        "saved, not spent (positive: moved there)."
    )
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Get savings rate", toolset="insights")
async def get_savings_rate(
    plan_id: PlanIdArg = None,
    months_count: Annotated[
        int, Field(ge=1, le=MAX_MONTHS, description=f"Complete months to look at, 1-{MAX_MONTHS}.")
    ] = 6,
) -> Annotated[CallToolResult, SavingsRate]:
    """How much of the income is kept: income, spending, what is saved and the savings rate
    (saved ÷ income × 100), for each of the last complete months and overall.

    Income is money received into Ready to Assign (no transfers, no starting balances);
    spending is money out net of refunds, loan payments included; money moved to a tracking
    asset (a retirement or investment account) counts as saved. Months before the first
    transaction are skipped. For spending per category, use get_spending_trends.
    """
    snapshot = await open_plan(plan_id)
    months = complete_months(today(), months_count, first_activity_month(snapshot))
    rows = savings_by_month(snapshot, months)
    income = sum(row.income for row in rows)
    spending = sum(row.spending for row in rows)
    saved = income + spending
    rate = _percent(rate_tenths(saved, income))
    rated = [row for row in rows if row.rate_tenths is not None]
    best = max(rated, key=lambda row: (row.rate_tenths, row.month), default=None)
    worst = min(rated, key=lambda row: (row.rate_tenths, row.month), default=None)
    message = _message(snapshot, rate, saved, income, len(months))
    average_saved = average([row.saved for row in rows], decimal_digits(snapshot.settings.currency_format))
    result = SavingsRate(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        months=[_month(snapshot, row) for row in rows],
        income=money(snapshot, income),
        spending=money(snapshot, spending),
        saved=money(snapshot, saved),
        rate=rate,
        average_saved=money(snapshot, average_saved),
        best_month=best.month.isoformat() if best else None,
        worst_month=worst.month.isoformat() if worst else None,
        moved_to_tracking=money(snapshot, sum(row.moved_to_tracking for row in rows)),
        notes=_notes(rows, months_count),
    )
    return tool_result(result, message)


def _percent(tenths: int | None) -> float | None:
    return None if tenths is None else float(Decimal(tenths).scaleb(-1))


def _month(snapshot: PlanSnapshot, row: MonthSavings) -> MonthRate:
    return MonthRate(
        month=row.month.isoformat(),
        income=money(snapshot, row.income),
        spending=money(snapshot, row.spending),
        saved=money(snapshot, row.saved),
        rate=_percent(row.rate_tenths),
    )


def _message(snapshot: PlanSnapshot, rate: float | None, saved: int, income: int, held: int) -> str:
    span = plural(held, "complete month")
    if not held:
        return "No complete month with transactions yet, so there is no savings rate to give."
    if rate is None:
        return (
            f"No income in the last {span}, so no savings rate; {shown_money(snapshot, saved)} net was saved."
        )
    return (
        f"The savings rate was {rate} % over the last {span}: {shown_money(snapshot, saved)} saved "
        f"of {shown_money(snapshot, income)} income."
    )


def _notes(rows: list[MonthSavings], asked: int) -> list[str]:
    notes = [
        "Income is Ready to Assign inflows; transfers between on-budget accounts are left out, money moved "
        "to tracking assets counts as saved and payments to tracking loans as spending."
    ]
    if len(rows) < asked:
        notes.append(
            f"Only {plural(len(rows), 'complete month')} with transactions: earlier months are skipped."
        )
    if any(row.income <= 0 for row in rows):
        notes.append("Months without income have no rate (null).")
    return notes
