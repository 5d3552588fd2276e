"""The modules that define MCP tools: the only list a new tool module is added to.

Each module's tools register themselves with `mcp_surface.registry.read_tool` / `write_tool`;
`mcp_surface.server` builds the servers from `catalog_specs()`.
"""

from __future__ import annotations

from mcp_surface.registry import ToolSpec, tool_specs_in

TOOL_MODULES: tuple[str, ...] = (
    "tools.reads.plans",
    "tools.reads.accounts",
    "tools.reads.categories",
    "tools.reads.money_movements",
    "tools.reads.payees",
    "tools.reads.schedules",
    "tools.reads.transactions",
    "tools.reads.suggestions",
    "tools.reads.balances",
    "tools.reads.summary",
    "tools.reads.budget_vs_actual",
    "tools.reads.trends",
    "tools.reads.forecast",
    "tools.reads.recurring",
    "tools.reads.net_worth",
    "tools.reads.runway",
    "tools.reads.savings",
    "tools.reads.targets",
    "tools.reads.debts",
    "tools.reads.age_of_money",
    "tools.reads.operations",
    "tools.writes.apply_categories",
    "tools.writes.approve",
    "tools.writes.import_transactions",
    "tools.writes.set_category_budget",
    "tools.writes.move_money",
    "tools.writes.set_category_target",
    "tools.writes.update_category",
    "tools.writes.create_category",
    "tools.writes.create_account",
    "tools.writes.create_category_group",
    "tools.writes.update_category_group",
    "tools.writes.rename_payee",
    "tools.writes.flag_transactions",
    "tools.writes.create_transactions",
    "tools.writes.update_transactions",
    "tools.writes.delete_transactions",
    "tools.writes.split_transaction",
    "tools.writes.reconcile_account",
    "tools.writes.transfer_money",
    "tools.writes.create_scheduled_transaction",
    "tools.writes.update_scheduled_transaction",
    "tools.writes.delete_scheduled_transaction",
    "tools.writes.undo_operation",
)


def catalog_specs() -> list[ToolSpec]:
    """Every tool of avenir-mcp, read and write alike (the gate filters later)."""
    return tool_specs_in(TOOL_MODULES)
