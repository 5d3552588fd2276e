"""YNAB's side of categories and payees for the category and payee write tests, over the sandbox's API.

What "YNAB" holds is read back over HTTP (`goal`, `place`, `payee_name`); changes "made in
YNAB since" go through the same API (`change_category`, `rename_in_ynab`), so they reach
the tools in the next delta like a change made in YNAB's app.
"""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.models import Category
from tests.writes.checks import ynab

GOAL_FIELDS = (
    "goal_type",
    "goal_target",
    "goal_target_date",
    "goal_cadence",
    "goal_cadence_frequency",
    "goal_needs_whole_amount",
    "goal_snoozed_at",
)


async def category(plan_id: str, category_id: str) -> dict[str, Any]:
    return (await ynab("GET", f"/plans/{plan_id}/categories/{category_id}"))["category"]


async def goal(plan_id: str, category_id: str) -> tuple:
    """The category's goal fields (GOAL_FIELDS, in that order) as YNAB gives them."""
    found = await category(plan_id, category_id)
    return tuple(found[field] for field in GOAL_FIELDS)


async def place(plan_id: str, category_id: str) -> tuple[str, str]:
    """(name, category_group_id) of the category."""
    found = await category(plan_id, category_id)
    return found["name"], found["category_group_id"]


async def change_category(plan_id: str, category_id: str, **fields: Any) -> None:
    await ynab("PATCH", f"/plans/{plan_id}/categories/{category_id}", json={"category": fields})


async def names_in_group(plan_id: str, group_id: str) -> list[str]:
    groups = (await ynab("GET", f"/plans/{plan_id}/categories"))["category_groups"]
    (group,) = [g for g in groups if g["id"] == group_id]
    return [c["name"] for c in group["categories"] if not c["deleted"]]


async def payee_name(plan_id: str, payee_id: str) -> str:
    return (await ynab("GET", f"/plans/{plan_id}/payees/{payee_id}"))["payee"]["name"]


async def rename_in_ynab(plan_id: str, payee_id: str, name: str) -> None:
    await ynab("PATCH", f"/plans/{plan_id}/payees/{payee_id}", json={"payee": {"name": name}})


async def group_of(category_id: str) -> str:
    return (await Category.objects.aget(pk=category_id)).group_id
