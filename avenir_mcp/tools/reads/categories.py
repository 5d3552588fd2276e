"""`list_category_groups`: the groups a new category can be created in."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan
from avenir_mcp.mcp_surface.presenting import PagedResult, plural, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.category_groups import creatable_groups
from avenir_mcp.values.paging import paginate
from avenir_mcp.values.text import shown_name


class GroupEntry(BaseModel):
    category_group_id: str = Field(description="The group's id.")
    name: str = Field(description="The group's name (one line, at most 80 characters).")


class GroupListing(PagedResult):
    groups: list[GroupEntry] = Field(description="By name.")


@read_tool(title="List category groups", toolset="categories")
async def list_category_groups(
    plan_id: PlanIdArg = None, limit: LimitArg = 200, cursor: CursorArg = None
) -> Annotated[CallToolResult, GroupListing]:
    """List the category groups a new category can be created in, with their ids.

    Hidden groups, YNAB's internal group and its Credit Card Payments group are left out.
    For the categories themselves with their amounts, use get_category_balances.
    """
    snapshot = await open_plan(plan_id)
    query = {"tool": "list_category_groups", "plan": snapshot.plan_id}
    page = paginate(creatable_groups(snapshot), limit=limit, cursor=cursor, query=query)
    listing = GroupListing(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        groups=[GroupEntry(category_group_id=group.id, name=shown_name(group.name)) for group in page.items],
        next_cursor=page.next_cursor,
    )
    return tool_result(listing, _summary(listing, total=page.total or 0))


def _summary(listing: GroupListing, *, total: int) -> str:
    """One line, e.g. `5 category groups: Bills, Everyday, Fun, Goals, Subscriptions.`"""
    if total == 0:
        return "No category group can take a new category in this plan."
    shown = listing.groups[:10]
    more = ", …" if total > len(shown) else ""
    return f"{plural(total, 'category group')}: {', '.join(group.name for group in shown)}{more}."
