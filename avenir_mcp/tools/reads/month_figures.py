"""What the month-figure read tools share: opening a plan at a month, and a category's figures.

Used by `get_category_balances`, `get_monthly_summary` and `get_budget_vs_actual` (no tool
is defined here).
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import month_arg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, require_month, today
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.tools.logic.budget import CategoryMonth
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


async def open_plan_at(plan_id: str | None, month_text: str) -> tuple[PlanSnapshot, date]:
    """The plan and the month the agent named, refused in the documented order.

    The month's form is checked first (a bad one costs no YNAB request); the plan is read
    (one request when warm); then the month must be one the plan has (first to last month).
    """
    month = month_arg(month_text, today())
    snapshot = await open_plan(plan_id)
    return snapshot, require_month(snapshot, month)


class CategoryFigures(BaseModel):
    """A category's figures in a month, in currency units."""

    category_id: str = Field(description="The category's id (for find_transactions' category_ids).")
    name: str = Field(description="The category's name (one line, at most 80 characters).")
    group: str = Field(description="Its category group's name (one line, at most 80 characters).")
    assigned: str = Field(description="Assigned (budgeted) to it this month, currency units.")
    activity: str = Field(description="Its activity this month, currency units: spending negative.")
    available: str = Field(
        description="Available at the end of the month, currency units (negative: overspent)."
    )


def figures_fields(snapshot: PlanSnapshot, row: CategoryMonth) -> dict[str, str]:
    """`CategoryFigures`' fields for one row: amounts as text, names made safe."""
    return {
        "category_id": row.category_id,
        "name": shown_name(row.name),
        "group": shown_name(row.group),
        "assigned": money(snapshot, row.assigned),
        "activity": money(snapshot, row.activity),
        "available": money(snapshot, row.available),
    }
