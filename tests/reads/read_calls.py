"""Valid arguments for every read tool of the catalog: one table, for tests and benchmarks.

`tests/reads/test_request_cost.py` calls every read tool with these arguments and
`bench/reads.py` times them. Both discover the tools from `catalog_specs()`, so a new read
tool is covered as soon as it is in the catalog, and a test fails until it has a line here.
Each entry takes the plan's id and "today" and gives arguments that any seeded plan
(the demo household, a heavy plan) accepts: the ones an agent would typically send.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from avenir_mcp.mcp_surface.catalog import catalog_specs

Arguments = dict[str, Any]


def _plan_only(plan_id: str, _today: date) -> Arguments:
    return {"plan_id": plan_id}


READ_CALLS: dict[str, Callable[[str, date], Arguments]] = {
    "list_plans": lambda _plan_id, _today: {},
    "list_accounts": _plan_only,
    "list_category_groups": _plan_only,
    "list_money_movements": _plan_only,
    "list_payees": _plan_only,
    "list_scheduled_transactions": _plan_only,
    "find_transactions": lambda plan_id, today: {
        "plan_id": plan_id,
        "since_date": (today - timedelta(days=90)).isoformat(),
    },
    "suggest_categories": _plan_only,
    "get_category_balances": _plan_only,
    "get_monthly_summary": _plan_only,
    "get_budget_vs_actual": _plan_only,
    "get_spending_trends": lambda plan_id, _today: {"plan_id": plan_id, "months_count": 6},
    "list_operations": _plan_only,
    "forecast_balance": _plan_only,
    "find_recurring_charges": _plan_only,
    "get_net_worth_trend": _plan_only,
    "get_runway": _plan_only,
    "get_savings_rate": _plan_only,
    "get_underfunded_targets": _plan_only,
    "get_debt_payoff_plan": _plan_only,
    "get_age_of_money": _plan_only,
}


def read_tool_names() -> list[str]:
    """Every read tool of the catalog (write tools are left out), in catalog order."""
    return [spec.name for spec in catalog_specs() if spec.is_read_only]


def read_arguments(tool: str, plan_id: str, today: date) -> Arguments:
    """The table's arguments for `tool`; a tool without a line fails with what to do."""
    if tool not in READ_CALLS:
        raise LookupError(f"Read tool {tool} has no arguments in tests/reads/read_calls.py: add a line.")
    return READ_CALLS[tool](plan_id, today)
