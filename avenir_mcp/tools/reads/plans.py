"""`list_plans`: the plans this connection can see, and which one tools use by default."""

from __future__ import annotations

from typing import Annotated

from django.conf import settings
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.plan_lookup import default_plan_id, plan_listing
from avenir_mcp.mcp_surface.presenting import tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client.snapshot import PlanSummary


class PlanEntry(BaseModel):
    plan_id: str = Field(description="Pass it as plan_id to the other tools.")
    name: str = Field(description="The plan's name, on one line, cut to 80 characters.")
    first_month: str | None = Field(description="First month of the plan, YYYY-MM-01.")
    last_month: str | None = Field(description="Last month of the plan, YYYY-MM-01.")
    currency: str | None = Field(description="ISO 4217 code of the plan's currency, e.g. EUR.")
    is_default: bool = Field(description="The plan a tool uses when it is called without plan_id.")


class PlanListing(BaseModel):
    plans: list[PlanEntry]


@read_tool(title="List plans", toolset="plans")
async def list_plans() -> Annotated[CallToolResult, PlanListing]:
    """List the YNAB plans (budgets) this connection can see, with their ids.

    Start here: every other tool takes a `plan_id` from this list (or `last-used`, the plan
    last opened in YNAB). When there are several plans, ask the person which one they mean.
    `is_default` marks the plan used when a tool is called without `plan_id`.
    """
    listing = await plan_listing(max_age=settings.AVENIR_MCP_FRESHNESS_SECONDS)
    default = default_plan_id(listing)
    entries = [plan_entry(plan, is_default=plan.id == default) for plan in listing.plans]
    return tool_result(PlanListing(plans=entries), summary(entries))


def plan_entry(plan: PlanSummary, *, is_default: bool) -> PlanEntry:
    currency = plan.settings.currency_format
    return PlanEntry(
        plan_id=plan.id,
        name=shown_name(plan.name),
        first_month=plan.first_month.isoformat() if plan.first_month else None,
        last_month=plan.last_month.isoformat() if plan.last_month else None,
        currency=currency.iso_code if currency else None,
        is_default=is_default,
    )


def summary(entries: list[PlanEntry]) -> str:
    """One line for the text content, e.g. `2 plans; default: Household (id p1).`"""
    default = next((entry for entry in entries if entry.is_default), None)
    count = f"{len(entries)} plan{'s' if len(entries) != 1 else ''}"
    if default is None:
        return f"{count}; no default: pass plan_id to the other tools."
    return f"{count}; default: {default.name} (id {default.plan_id})."
