"""The JSON resources of docs/tools.md#resources: plans, a plan's categories, a plan's open accounts.

Each costs at most one YNAB request: `ynab://plans` lists plans (`GET /plans`); the
categories come from `GET /plans/{id}/categories`, the only answer that keeps YNAB's own
order of groups and categories; the accounts from the plan snapshot (one delta request
once warm). Names are made safe like every read's (one line, at most 80 characters);
amounts are decimal strings in currency units. A refusal is a one-line `ResourceError`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from avenir_mcp import ynab_client
from avenir_mcp.mcp_surface.arguments import id_arg
from avenir_mcp.mcp_surface.plan_lookup import open_plan
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.tools.logic.accounts import listed_accounts
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import shown_name

PLANS_URI = "ynab://plans"
CATEGORIES_URI = "ynab://plans/{plan_id}/categories"
ACCOUNTS_URI = "ynab://plans/{plan_id}/accounts"
JSON = "application/json"

T = TypeVar("T")


def register_plan_resources(server: MCPServer) -> None:
    """Add the three JSON resources to `server` (every caller may read them)."""
    server.resource(
        PLANS_URI,
        name="plans",
        title="Plans",
        description="The plans this connection can see: [{plan_id, name, last_modified_on}].",
        mime_type=JSON,
    )(plans_resource)
    server.resource(
        CATEGORIES_URI,
        name="plan_categories",
        title="A plan's categories",
        description="Categories by group in YNAB's order, hidden and internal ones left out: "
        "[{group, categories[{category_id, name}]}]. plan_id: an id from list_plans, or last-used.",
        mime_type=JSON,
    )(categories_resource)
    server.resource(
        ACCOUNTS_URI,
        name="plan_accounts",
        title="A plan's open accounts",
        description="Open accounts with their balance in currency units: "
        "[{account_id, name, type, on_budget, balance}]. plan_id: an id from list_plans, or last-used.",
        mime_type=JSON,
    )(accounts_resource)


async def plans_resource() -> str:
    listing = await _refusing(ynab_client.list_plans)
    return _json(
        [
            {
                "plan_id": plan.id,
                "name": shown_name(plan.name),
                "last_modified_on": plan.last_modified_on.isoformat() if plan.last_modified_on else None,
            }
            for plan in listing.plans
        ]
    )


async def categories_resource(plan_id: str) -> str:
    try:
        chosen = id_arg(plan_id, what="plan")  # before the id reaches a URL
    except Refusal as refusal:
        raise ResourceError(str(refusal)) from None
    data = await _refusing(lambda: ynab_client.get_ynab_client().get_categories(chosen))
    return _json([_group(group) for group in data.get("category_groups", ()) if _shown(group)])


def _group(group: dict[str, Any]) -> dict[str, Any]:
    categories = [
        {"category_id": category["id"], "name": shown_name(category.get("name"))}
        for category in group.get("categories") or ()
        if _shown(category)
    ]
    return {"group": shown_name(group.get("name")), "categories": categories}


def _shown(entity: dict[str, Any]) -> bool:
    """Not hidden, internal or deleted (YNAB's internal group holds Ready to Assign and the like)."""
    return not (entity.get("hidden") or entity.get("internal") or entity.get("deleted"))


async def accounts_resource(plan_id: str) -> str:
    snapshot = await _refusing(lambda: open_plan(plan_id))
    accounts = [account for account in listed_accounts(snapshot) if not account.closed]
    return _json(
        [
            {
                "account_id": account.id,
                "name": shown_name(account.name),
                "type": account.type,
                "on_budget": account.on_budget,
                "balance": money(snapshot, account.balance),
            }
            for account in accounts
        ]
    )


async def _refusing(read: Callable[[], Awaitable[T]]) -> T:
    """`read()`, with refusals (ours and YNAB's) as the one-line `ResourceError` MCP expects."""
    try:
        return await read()
    except Refusal as refusal:
        raise ResourceError(str(refusal)) from None
    except ynab_client.YnabError as error:
        raise ResourceError(error.message) from error


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)
