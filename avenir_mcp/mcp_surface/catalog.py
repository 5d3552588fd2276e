"""The modules that define MCP tools: the only list a new tool module is added to.

Each module's tools register themselves with `mcp_surface.registry.read_tool` / `write_tool`;
`mcp_surface.server` builds the servers from `catalog_specs()`.
"""

from __future__ import annotations

from avenir_mcp.mcp_surface.registry import ToolSpec, tool_specs_in

TOOL_MODULES: tuple[str, ...] = (
    "avenir_mcp.tools.reads.plans",
    "avenir_mcp.tools.reads.accounts",
    "avenir_mcp.tools.reads.categories",
    "avenir_mcp.tools.reads.money_movements",
    "avenir_mcp.tools.reads.payees",
    "avenir_mcp.tools.reads.schedules",
    "avenir_mcp.tools.reads.transactions",
    "avenir_mcp.tools.reads.suggestions",
    "avenir_mcp.tools.reads.balances",
    "avenir_mcp.tools.reads.summary",
    "avenir_mcp.tools.reads.budget_vs_actual",
    "avenir_mcp.tools.reads.trends",
    "avenir_mcp.tools.reads.forecast",
    "avenir_mcp.tools.reads.recurring",
    "avenir_mcp.tools.reads.net_worth",
    "avenir_mcp.tools.reads.runway",
    "avenir_mcp.tools.reads.savings",
    "avenir_mcp.tools.reads.targets",
    "avenir_mcp.tools.reads.debts",
    "avenir_mcp.tools.reads.age_of_money",
    "avenir_mcp.tools.reads.operations",
    "avenir_mcp.tools.writes.apply_categories",
    "avenir_mcp.tools.writes.approve",
    "avenir_mcp.tools.writes.import_transactions",
    "avenir_mcp.tools.writes.set_category_budget",
    "avenir_mcp.tools.writes.move_money",
    "avenir_mcp.tools.writes.set_category_target",
    "avenir_mcp.tools.writes.update_category",
    "avenir_mcp.tools.writes.create_category",
    "avenir_mcp.tools.writes.create_account",
    "avenir_mcp.tools.writes.create_category_group",
    "avenir_mcp.tools.writes.update_category_group",
    "avenir_mcp.tools.writes.rename_payee",
    "avenir_mcp.tools.writes.flag_transactions",
    "avenir_mcp.tools.writes.create_transactions",
    "avenir_mcp.tools.writes.update_transactions",
    "avenir_mcp.tools.writes.delete_transactions",
    "avenir_mcp.tools.writes.split_transaction",
    "avenir_mcp.tools.writes.reconcile_account",
    "avenir_mcp.tools.writes.transfer_money",
    "avenir_mcp.tools.writes.create_scheduled_transaction",
    "avenir_mcp.tools.writes.update_scheduled_transaction",
    "avenir_mcp.tools.writes.delete_scheduled_transaction",
    "avenir_mcp.tools.writes.undo_operation",
)


def catalog_specs() -> list[ToolSpec]:
    """Every tool of avenir-mcp, read and write alike (the gate filters later)."""
    return tool_specs_in(TOOL_MODULES)
