"""Every tool's answer, read by a client that hands the model only the text content.

Several MCP clients (opencode, Open WebUI, LangChain's adapters) pass only `content` to the
model; others only `structuredContent`. Either alone must carry everything (docs/conventions.md#results):
the text is the summary line followed by the structured content as compact JSON. Each tool
of the registry is called here through the SDK's real client, at both protocol eras, and
every id and every amount of its structured result must be in its text. A tool added to the
catalog without a case here fails `test_every_tool_has_a_case`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from mcp import Client
from mcp.types import CallToolResult, TextContent

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.sandbox.models import Category, Payee, Plan
from tests.helpers.mcp_http import MODES
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.write_cases.schedules import creating, deleting, scheduled_in_ynab, updating
from tests.writes.assigned_plans import EUROS, BudgetHome, budget_home
from tests.writes.checks import WriteCase, connected, ynab
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

AMOUNT = re.compile(r"[+-]?\d+(\.\d{1,3})?")

Case = Callable[[Client, "Plans"], Awaitable[list[CallToolResult]]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass(frozen=True)
class Plans:
    """The plans a case reads or changes, all in one currency format (the plans' own when None)."""

    demo: Plan  # only read
    currency_format: dict[str, Any] | None = None

    def household(self) -> Household:
        return household(currency_format=self.currency_format)

    def budget(self) -> BudgetHome:
        return budget_home(currency_format=self.currency_format)

    def fresh_demo(self) -> Plan:
        return demo_plan_copy(currency_format=self.currency_format)


@pytest.fixture(scope="module")
def demo(live_service) -> Plan:
    """The demo household, only read here."""
    return demo_plan_copy()


def text_of(result: CallToolResult) -> str:
    """All a text-only client passes on: the text blocks of `content`."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def ids_and_amounts(value: Any, key: str = "") -> Iterator[str]:
    """Every id (a value under `*_id`, `*_ids` or `id`) and every decimal amount in a result."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from ids_and_amounts(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from ids_and_amounts(item, key)
    elif isinstance(value, str) and (key == "id" or key.endswith(("_id", "_ids")) or AMOUNT.fullmatch(value)):
        yield value


async def called(client: Client, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return result


async def with_code(client: Client, tool: str, arguments: dict[str, Any]) -> list[CallToolResult]:
    """A confirmed write as a client that cannot ask: the code result, then the applied one."""
    asked = await called(client, tool, arguments)
    first = json.loads(text_of(asked).splitlines()[-1])  # read from the text alone
    assert first["status"] == "confirmation_required", first
    applied = await called(client, tool, {**arguments, "confirmation": first["confirmation"]})
    assert applied.structured_content["status"] == "applied", applied.structured_content
    return [asked, applied]


def read(tool: str, **arguments: Any) -> Case:
    async def case(client: Client, plans: Plans) -> list[CallToolResult]:
        return [await called(client, tool, {"plan_id": plans.demo.id, **arguments})]

    return case


async def _list_plans(client: Client, plans: Plans) -> list[CallToolResult]:
    return [await called(client, "list_plans", {})]


async def _list_operations(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    await called(client, "approve_transactions", {"plan_id": home.id, "transaction_ids": [home.market]})
    return [await called(client, "list_operations", {"plan_id": home.id})]


async def _apply_categories(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    assignment = {"transaction_id": home.market, "category_id": home.home.groceries}
    return await with_code(client, "apply_categories", {"plan_id": home.id, "assignments": [assignment]})


async def _flag_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    flags = [
        {"transaction_id": home.market, "color": "red"},
        {"transaction_id": home.salary, "color": "blue"},
    ]
    return await with_code(client, "flag_transactions", {"plan_id": home.id, "flags": flags})


async def _create_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    day = (today() - timedelta(days=1)).isoformat()
    lines = [
        {"date": day, "amount": "-4.50", "payee_name": "Kiosk", "category_id": home.home.dining},
        {"date": day, "amount": "20", "payee_name": "Cash from Mum", "memo": "birthday"},
    ]
    arguments = {"plan_id": home.id, "account_id": home.home.checking, "transactions": lines}
    return await with_code(client, "create_transactions", arguments)


async def _update_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    updates = [
        {"transaction_id": home.market, "amount": "-68.40", "memo": "refund due"},
        {"transaction_id": home.cafe, "payee_name": "Corner Cafe Bistro", "cleared": "cleared"},
    ]
    return await with_code(client, "update_transactions", {"plan_id": home.id, "updates": updates})


async def _delete_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    arguments = {"plan_id": home.id, "transaction_ids": [home.market, home.transfer]}
    return await with_code(client, "delete_transactions", arguments)


async def _transfer_money(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    arguments = {
        "plan_id": home.id,
        "from_account_id": home.home.checking,
        "to_account_id": home.home.card,
        "amount": "150.00",
        "memo": "statement",
    }
    return await with_code(client, "transfer_money", arguments)


async def _split_transaction(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    lines = [
        {"amount": "-50.00", "category_id": home.home.groceries, "memo": "food"},
        {"amount": "-36.43", "category_id": home.home.dining},
    ]
    arguments = {"plan_id": home.id, "transaction_id": home.market, "lines": lines}
    return await with_code(client, "split_transaction", arguments)


async def _reconcile_account(client: Client, plans: Plans) -> list[CallToolResult]:
    """The bank shows 5.00 more than the cleared balance and the person wants it adjusted: a real
    question (without `adjust` the first answer would be `difference_found`)."""
    home = await sync_to_async(plans.household)()
    checking = home.home.checking
    cleared = (await ynab("GET", f"/plans/{home.id}/accounts/{checking}"))["account"]["cleared_balance"]
    bank = str(Decimal(cleared + 5_000) / 1000)
    arguments = {"plan_id": home.id, "account_id": checking, "bank_balance": bank, "adjust": True}
    return await with_code(client, "reconcile_account", arguments)


async def _approve_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    ids = [home.market, home.salary]
    return [await called(client, "approve_transactions", {"plan_id": home.id, "transaction_ids": ids})]


async def _import_transactions(client: Client, plans: Plans) -> list[CallToolResult]:
    fresh = await sync_to_async(plans.fresh_demo)()  # its bank has lines waiting
    result = await called(client, "import_transactions", {"plan_id": fresh.id})
    assert result.structured_content["transaction_ids"], "the demo's bank holds transactions to import"
    return [result]


def _budgeting(budget, **extra: Any) -> dict[str, Any]:
    return {"plan_id": budget.id, "month": budget.month, "category_id": budget.home.dining, **extra}


async def _set_category_budget(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    return await with_code(client, "set_category_budget", _budgeting(budget, amount="150.25"))


async def _move_money(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    h = budget.home
    arguments = {"plan_id": budget.id, "month": budget.month, "from_category_id": h.groceries}
    return await with_code(client, "move_money", {**arguments, "to_category_id": h.dining, "amount": "30.5"})


async def _set_category_target(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    by_date = (today() + timedelta(days=400)).replace(day=1).isoformat()
    target = {"category_id": budget.home.dining, "amount": "1200.5", "by_date": by_date}
    return await with_code(client, "set_category_target", {"plan_id": budget.id, **target})


async def _update_category(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    bills = (await Category.objects.aget(pk=budget.home.rent)).group_id
    change = {"category_id": budget.home.dining, "name": "Restaurants", "category_group_id": bills}
    return await with_code(client, "update_category", {"plan_id": budget.id, **change})


async def _create_category(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    group = budget.home.everyday_group
    return await with_code(
        client, "create_category", {"plan_id": budget.id, "category_group_id": group, "name": "Pets"}
    )


async def _create_account(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    opening = {"name": "Emergency fund", "type": "savings", "balance": "2500.25"}
    return await with_code(client, "create_account", {"plan_id": budget.id, **opening})


async def _create_category_group(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    return await with_code(client, "create_category_group", {"plan_id": budget.id, "name": "Kids"})


async def _update_category_group(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    renaming = {"category_group_id": budget.home.everyday_group, "name": "Day to day"}
    return await with_code(client, "update_category_group", {"plan_id": budget.id, **renaming})


async def _rename_payee(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    cafe = (await Payee.objects.aget(plan_id=home.id, name="CORNER CAFE")).id
    return await with_code(
        client, "rename_payee", {"plan_id": home.id, "payee_id": cafe, "name": "Corner Cafe"}
    )


async def _create_scheduled_transaction(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    return await with_code(client, "create_scheduled_transaction", _plan_args(creating(home)))


async def _update_scheduled_transaction(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    case = updating(home, await scheduled_in_ynab(home), memo="")
    return await with_code(client, "update_scheduled_transaction", _plan_args(case))


async def _delete_scheduled_transaction(client: Client, plans: Plans) -> list[CallToolResult]:
    home = await sync_to_async(plans.household)()
    case = deleting(home, await scheduled_in_ynab(home))
    return await with_code(client, "delete_scheduled_transaction", _plan_args(case))


def _plan_args(case: WriteCase) -> dict[str, Any]:
    return dict(case.arguments)


async def _undo_operation(client: Client, plans: Plans) -> list[CallToolResult]:
    budget = await sync_to_async(plans.budget)()
    _asked, applied = await with_code(client, "set_category_budget", _budgeting(budget, amount="150.25"))
    operation_id = applied.structured_content["operation_id"]
    return await with_code(client, "undo_operation", {"plan_id": budget.id, "operation_id": operation_id})


CASES: dict[str, Case] = {
    "list_plans": _list_plans,
    "list_accounts": read("list_accounts"),
    "list_category_groups": read("list_category_groups"),
    "list_money_movements": read("list_money_movements"),
    "list_payees": read("list_payees"),
    "list_scheduled_transactions": read("list_scheduled_transactions"),
    "find_transactions": read("find_transactions", since_date=(today() - timedelta(days=60)).isoformat()),
    "get_category_balances": read("get_category_balances"),
    "get_monthly_summary": read("get_monthly_summary"),
    "get_budget_vs_actual": read("get_budget_vs_actual"),
    "get_spending_trends": read("get_spending_trends"),
    "suggest_categories": read("suggest_categories"),
    "forecast_balance": read("forecast_balance"),
    "find_recurring_charges": read("find_recurring_charges"),
    "get_net_worth_trend": read("get_net_worth_trend"),
    "get_runway": read("get_runway"),
    "get_savings_rate": read("get_savings_rate"),
    "get_underfunded_targets": read("get_underfunded_targets"),
    "get_debt_payoff_plan": read("get_debt_payoff_plan"),
    "get_age_of_money": read("get_age_of_money"),
    "list_operations": _list_operations,
    "apply_categories": _apply_categories,
    "flag_transactions": _flag_transactions,
    "create_transactions": _create_transactions,
    "update_transactions": _update_transactions,
    "delete_transactions": _delete_transactions,
    "transfer_money": _transfer_money,
    "split_transaction": _split_transaction,
    "reconcile_account": _reconcile_account,
    "approve_transactions": _approve_transactions,
    "import_transactions": _import_transactions,
    "set_category_budget": _set_category_budget,
    "move_money": _move_money,
    "set_category_target": _set_category_target,
    "update_category": _update_category,
    "create_category": _create_category,
    "create_account": _create_account,
    "create_category_group": _create_category_group,
    "update_category_group": _update_category_group,
    "rename_payee": _rename_payee,
    "create_scheduled_transaction": _create_scheduled_transaction,
    "update_scheduled_transaction": _update_scheduled_transaction,
    "delete_scheduled_transaction": _delete_scheduled_transaction,
    "undo_operation": _undo_operation,
}

TOOLS = sorted(spec.name for spec in catalog_specs())


def test_every_tool_has_a_case():
    missing = [tool for tool in TOOLS if tool not in CASES]

    assert not missing, f"No readable-answer case for {', '.join(missing)}: add one to CASES."


@pytest.mark.matrix
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool", TOOLS)
async def test_a_text_only_client_finds_every_id_and_amount_of_the_answer(tool, mode, demo):
    if tool not in CASES:
        pytest.fail(f"No readable-answer case for {tool}: add one to CASES.")

    async with connected(mode) as client:
        results = await CASES[tool](client, Plans(demo))

    for result in results:
        text, structured = text_of(result), result.structured_content
        wanted = set(ids_and_amounts(structured))
        assert wanted, "every answer names at least one id"
        assert {value for value in wanted if value not in text} == set(), text
        summary, data = text.split("\n")  # the summary line, then the data as compact JSON
        assert summary.strip()
        assert not summary.startswith("{")
        assert data == json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


DOT_AMOUNT = re.compile(r"\d\.\d{2,3}(?!\d)")  # an amount of a 2-digit plan; ratios are in tenths
MISREADABLE = re.compile(r"\d,\d{2,3}, ")  # `income 0,00, assigned …`: where does the amount end?
SENTENCES = frozenset({"message", "preview", "notes", "summary", "why"})
"""The fields of a result that are sentences (its decimal fields and phrases such as a target's
`950.00 monthly` are data, in the structured content's own `.` format)."""


def sentences(value: Any, key: str = "") -> Iterator[str]:
    """Every sentence of a result: the strings under `SENTENCES`, at any depth."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from sentences(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from sentences(item, key)
    elif isinstance(value, str) and key in SENTENCES:
        yield value


@pytest.mark.parametrize("tool", TOOLS)
async def test_every_amount_in_a_tools_text_reads_in_a_decimal_comma_plans_own_format(tool, demo):
    """docs/conventions.md#money-in-text: in a plan that writes `1234,50`, no text shows `1234.50`,
    and an amount in a list is never followed by `, ` (list items are separated by `; `)."""
    async with connected("legacy") as client:
        results = await CASES[tool](client, Plans(demo, currency_format=EUROS))

    lines = [
        line
        for result in results
        for text in [text_of(result).split("\n")[0], *sentences(result.structured_content)]
        for line in text.splitlines()
    ]
    assert [line for line in lines if DOT_AMOUNT.search(line) or MISREADABLE.search(line)] == []
