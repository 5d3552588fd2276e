"""`get_budget_vs_actual`: per category, what was spent against what was assigned in a month."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, MonthArg, PlanIdArg
from avenir_mcp.mcp_surface.presenting import PagedResult, plural, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.budget import CategoryMonth, budget_categories, utilisation_pct
from avenir_mcp.tools.reads.month_figures import CategoryFigures, figures_fields, open_plan_at
from avenir_mcp.values.paging import paginate
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


class CategoryUtilisation(CategoryFigures):
    utilisation_pct: float | None = Field(
        description="Share of the assigned amount spent: -activity / assigned x 100, one decimal, "
        "rounded half away from zero; above 100 means over budget, negative means more came in than "
        "went out. Null when nothing (or a negative amount) is assigned."
    )


class BudgetVsActual(PagedResult):
    month: str = Field(description="The month, YYYY-MM-01.")
    categories: list[CategoryUtilisation] = Field(
        description="By group name, then category name. Hidden and internal categories, and those "
        "with nothing assigned, no activity and nothing available, are left out."
    )


@read_tool(title="Get budget vs actual", toolset="insights")
async def get_budget_vs_actual(
    plan_id: PlanIdArg = None, month: MonthArg = "current", limit: LimitArg = 50, cursor: CursorArg = None
) -> Annotated[CallToolResult, BudgetVsActual]:
    """How much of each category's budget was spent in a month: assigned, activity, available
    and `utilisation_pct` (-activity / assigned x 100; over 100 = over budget; null when
    nothing is assigned).

    Amounts are in currency units, spending negative. Use it to see which budgets are
    nearly used up or exceeded. For the plain balances of every category use
    get_category_balances; for the month's totals get_monthly_summary; for the last
    months' spending get_spending_trends.
    """
    snapshot, chosen = await open_plan_at(plan_id, month)
    rows = budget_categories(snapshot, chosen, include_empty=False)
    query = {"tool": "get_budget_vs_actual", "plan": snapshot.plan_id, "month": chosen.isoformat()}
    page = paginate(rows, limit=limit, cursor=cursor, query=query)
    result = BudgetVsActual(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        month=chosen.isoformat(),
        categories=[_entry(snapshot, row) for row in page.items],
        next_cursor=page.next_cursor,
    )
    over = sum(row.is_over_budget for row in rows)
    return tool_result(result, _summary(result, total=len(rows), over=over))


def _entry(snapshot: PlanSnapshot, row: CategoryMonth) -> CategoryUtilisation:
    pct = utilisation_pct(row.activity, row.assigned)
    # The exact one-decimal Decimal becomes a JSON number only here: float(Decimal("87.5"))
    # prints back as 87.5, so nothing is computed in floating point.
    return CategoryUtilisation(
        **figures_fields(snapshot, row), utilisation_pct=float(pct) if pct is not None else None
    )


def _summary(result: BudgetVsActual, *, total: int, over: int) -> str:
    """One line, e.g. `18 categories for 2026-09-01, 3 over budget.`"""
    text = f"{plural(total, 'category', 'categories')} for {result.month}"
    if len(result.categories) < total:
        text += f", {len(result.categories)} on this page"
    return text + (f", {over} over budget." if over else ", none over budget.")
