"""What a tool says about its siblings: only tools that exist and that this caller can see.

Descriptions point the agent to sibling tools (STYLE habit "descriptions that point to sibling
tools"). A pointer to a tool that is not built yet, or that this caller cannot see (a write tool
for a read-only caller), sends the agent after something it cannot call.
"""

from __future__ import annotations

import json
import re

import anyio
import pytest
from mcp import Client

from avenir_mcp.mcp_surface.catalog import catalog_specs
from tests.helpers.servers import catalog_server

# Every tool the product plans (docs/tools.md lists those built), built or not: the names a description could
# point to.
PRODUCT_TOOLS = {
    "list_plans", "list_accounts", "list_category_groups", "list_money_movements", "list_payees",
    "list_scheduled_transactions", "find_transactions", "get_category_balances",
    "get_monthly_summary", "get_budget_vs_actual", "get_spending_trends", "suggest_categories",
    "forecast_balance", "find_recurring_charges", "get_net_worth_trend", "get_runway",
    "get_savings_rate", "get_underfunded_targets", "get_debt_payoff_plan", "get_age_of_money",
    "list_operations", "apply_categories", "approve_transactions", "import_transactions",
    "set_category_budget", "move_money", "flag_transactions", "set_category_target",
    "update_category", "create_category", "create_transactions", "delete_transactions", "split_transaction",
    "reconcile_account", "rename_payee", "undo_operation", "create_account",
    "create_category_group", "update_category_group", "transfer_money", "update_transactions",
    "create_scheduled_transaction", "update_scheduled_transaction", "delete_scheduled_transaction",
}  # fmt: skip


async def listed_tools(*, writes: bool) -> list[dict]:
    server = catalog_server(writes=writes, principal=None)
    with anyio.fail_after(10):
        async with Client(server, mode="legacy") as client:
            return [tool.model_dump(by_alias=True, mode="json") for tool in (await client.list_tools()).tools]


def named_tools(tool: dict) -> set[str]:
    """Product tool names in a tool's description and in every schema text, its own name aside."""
    text = json.dumps([tool.get("description"), tool["inputSchema"], tool.get("outputSchema")])
    return {name for name in PRODUCT_TOOLS if re.search(rf"\b{name}\b", text)} - {tool["name"]}


def test_every_built_tool_is_a_product_tool():
    assert {spec.name for spec in catalog_specs()} <= PRODUCT_TOOLS


@pytest.mark.anyio
@pytest.mark.parametrize("writes", [False, True], ids=["read-only", "read-write"])
async def test_no_tool_points_to_a_tool_this_caller_cannot_call(writes):
    tools = await listed_tools(writes=writes)
    visible = {tool["name"] for tool in tools}

    out_of_reach = {tool["name"]: sorted(named_tools(tool) - visible) for tool in tools}

    assert {name: names for name, names in out_of_reach.items() if names} == {}
