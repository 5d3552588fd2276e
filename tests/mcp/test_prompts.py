"""The four prompts through the SDK's client over /mcp: listed, rendered per caller, arguments checked."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.prompts import AGREEMENT, register_prompts
from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.sandbox.models import Account, Plan
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.money import amount_text
from avenir_mcp.values.toolsets import ALWAYS_OFFERED, TOOLSETS
from tests.helpers.mcp_http import MODES, mcp_over_http
from tests.helpers.names_in_text import names_out_of_sight
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.shared_plans import read_only

pytestmark = pytest.mark.anyio

PROMPTS = {
    "classify_pending": [("plan_id", False)],
    "monthly_review": [("plan_id", False), ("month", False)],
    "reconcile": [("plan_id", False), ("account_id", True), ("bank_balance", True)],
    "plan_next_month": [("plan_id", False)],
}
# The write tool each prompt ends with when the caller has it (reconcile_account when built).
WRITE_STEPS = {
    "classify_pending": "apply_categories",
    "monthly_review": "move_money",
    "reconcile": "reconcile_account",
    "plan_next_month": "set_category_budget",
}


NO_ACCOUNT = "No account 'a1x' in this plan; list_accounts gives the valid ids."


@pytest.fixture(scope="module")
def demo_plan(live_service) -> Iterator[Plan]:
    """The demo household, seeded once: rendering a prompt only reads it (checked after)."""
    with read_only(demo_plan_copy()) as plan:
        yield plan


@pytest.fixture
def checking(demo_plan) -> Account:
    return Account.objects.get(plan=demo_plan, name="Checking")


def arguments_for(prompt: str, plan: Plan, checking: Account) -> dict[str, str]:
    extra = {"account_id": checking.id, "bank_balance": "1234.56"} if prompt == "reconcile" else {}
    return {"plan_id": plan.id, **extra}


async def rendered(url: str, token: str, prompt: str, arguments: dict[str, str], mode: str = MODES[0]):
    """The prompt's one message text, and the tools this caller lists."""
    with anyio.fail_after(30):
        async with mcp_over_http(url, token, mode=mode) as client:
            result = await client.get_prompt(prompt, arguments)
            tools = [
                tool.model_dump(by_alias=True, mode="json") for tool in (await client.list_tools()).tools
            ]
    assert [message.role for message in result.messages] == ["user"]
    return result.messages[0].content.text, tools


async def refusal(url: str, token: str, prompt: str, arguments: dict[str, str]) -> MCPError:
    with anyio.fail_after(30):
        async with mcp_over_http(url, token) as client:
            with pytest.raises(MCPError) as refused:
                await client.get_prompt(prompt, arguments)
    return refused.value


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("writes", [True, False], ids=["writes on", "writes off"])
async def test_the_four_prompts_are_listed_with_their_arguments(
    live_service, read_write_token, settings, mode, writes
):
    settings.AVENIR_MCP_WRITE = writes
    _row, token = read_write_token

    with anyio.fail_after(30):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            listed = (await client.list_prompts()).prompts

    assert {p.name: [(a.name, a.required) for a in p.arguments] for p in listed} == PROMPTS
    assert all(p.title and p.description for p in listed)


@pytest.mark.parametrize("prompt", list(PROMPTS))
async def test_with_writes_a_prompt_leads_to_the_write_tool_and_waits_for_the_person(
    live_service, read_write_token, settings, demo_plan, checking, prompt
):
    settings.AVENIR_MCP_WRITE = True
    _row, token = read_write_token

    text, tools = await rendered(live_service.url, token, prompt, arguments_for(prompt, demo_plan, checking))

    assert AGREEMENT in text
    assert f"‘{demo_plan.name}’ (plan_id {demo_plan.id})" in text
    assert names_out_of_sight(text, tools, catalog_specs(), writes=True) == set()
    built = WRITE_STEPS[prompt] in {tool["name"] for tool in tools}
    assert (f"`{WRITE_STEPS[prompt]}`" in text) is built
    assert ("in YNAB itself" in text.split("\n\n")[-1]) is not built


@pytest.mark.parametrize("prompt", list(PROMPTS))
@pytest.mark.parametrize("read_only_by", ["token", "setting"])
async def test_without_writes_a_prompt_names_no_write_tool_and_ends_with_changes_to_make_in_ynab(
    live_service, read_only_token, read_write_token, settings, demo_plan, checking, prompt, read_only_by
):
    settings.AVENIR_MCP_WRITE = read_only_by == "token"
    _row, token = read_only_token if read_only_by == "token" else read_write_token

    text, tools = await rendered(live_service.url, token, prompt, arguments_for(prompt, demo_plan, checking))

    assert AGREEMENT in text
    assert names_out_of_sight(text, tools, catalog_specs(), writes=False) == set()
    assert not any(spec.name in text for spec in catalog_specs() if not spec.is_read_only)
    assert "in YNAB itself" in text.split("\n\n")[-1]


async def test_reconcile_states_the_gap_between_the_bank_and_the_cleared_balance(
    live_service, read_only_token, demo_plan, checking
):
    _row, token = read_only_token

    text, _tools = await rendered(
        live_service.url,
        token,
        "reconcile",
        {"plan_id": demo_plan.id, "account_id": checking.id, "bank_balance": "1234.5"},
    )

    cleared = amount_text(None, checking.cleared_balance)  # the demo plan's 2 digits
    gap = amount_text(None, 1_234_500 - checking.cleared_balance)
    assert f"My bank shows 1234.50 for my account ‘Checking’ (account_id {checking.id})" in text
    assert f"YNAB's cleared balance for it is {cleared} right now, a gap of {gap}." in text


async def test_a_month_is_resolved_in_the_review(live_service, read_only_token, demo_plan):
    _row, token = read_only_token
    month = demo_plan.first_month.isoformat()[:7]

    text, _tools = await rendered(
        live_service.url, token, "monthly_review", {"plan_id": demo_plan.id, "month": month}, mode="legacy"
    )

    assert text.startswith(f"Review {month}-01 in my YNAB plan ‘{demo_plan.name}’")
    assert f"`get_monthly_summary` with plan_id {demo_plan.id} and month {month}-01." in text


@pytest.mark.parametrize(
    ("prompt", "arguments", "message"),
    [
        ("classify_pending", {"plan_id": "nope"}, "No plan 'nope' for this YNAB token; list_plans"),
        ("monthly_review", {"plan_id": "bad id!"}, "plan"),
        ("reconcile", {"account_id": "a1x", "bank_balance": "10"}, NO_ACCOUNT),
        ("reconcile", {"account_id": "a1x", "bank_balance": "12,50"}, "bank_balance '12,50'"),
        (
            "reconcile",
            {"bank_balance": "10"},
            "The reconcile prompt needs account_id; give it and ask again.",
        ),
        ("monthly_review", {"month": "1999-01"}, "Month 1999-01-01 is outside this plan"),
        ("monthly_review", {"month": "someday"}, "someday"),
        (
            "plan_next_month",
            {"months": "3"},
            "The plan_next_month prompt has no argument months; it takes plan_id.",
        ),
    ],
)
async def test_bad_arguments_are_refused_clearly(
    live_service, read_only_token, demo_plan, prompt, arguments, message
):
    _row, token = read_only_token
    plan = {"plan_id": demo_plan.id} if "plan_id" not in arguments else {}

    refused = await refusal(live_service.url, token, prompt, {**plan, **arguments})

    assert message in refused.message
    assert "\n" not in refused.message
    assert refused.code == INVALID_PARAMS


async def test_a_closed_account_cannot_be_reconciled(live_service, read_only_token, demo_plan):
    _row, token = read_only_token
    closed = await Account.objects.filter(plan=demo_plan, closed=True).afirst()

    refused = await refusal(
        live_service.url,
        token,
        "reconcile",
        {"plan_id": demo_plan.id, "account_id": closed.id, "bank_balance": "0"},
    )

    assert refused.message == f"Account ‘{closed.name}’ is closed; give an open account from list_accounts."


async def test_steps_with_tools_built_on_other_branches_appear_once_the_caller_has_them(demo_plan, checking):
    later = {"reconcile_account", "forecast_balance", "get_underfunded_targets"}
    server = MCPServer("prompts only")
    register_prompts(server, tools={spec.name for spec in catalog_specs()} | later)

    with anyio.fail_after(30):
        async with Client(server, mode="legacy") as client:
            reconcile = await client.get_prompt("reconcile", arguments_for("reconcile", demo_plan, checking))
            plan_ahead = await client.get_prompt("plan_next_month", {"plan_id": demo_plan.id})
    reconcile_text, plan_text = reconcile.messages[0].content.text, plan_ahead.messages[0].content.text

    assert (
        f"1. Call `reconcile_account` with plan_id {demo_plan.id}, account_id {checking.id}" in reconcile_text
    )
    assert "list_accounts" not in reconcile_text
    assert reconcile_text.endswith(AGREEMENT)
    assert "1. Call `forecast_balance` (3 months ahead, its default)" in plan_text
    assert "2. `get_underfunded_targets` with month" in plan_text
    assert "list_scheduled_transactions" not in plan_text


@pytest.mark.parametrize("writes", [True, False], ids=["writes on", "writes off"])
@pytest.mark.parametrize("toolset", [name for name in TOOLSETS if name not in ALWAYS_OFFERED])
async def test_with_one_toolset_each_prompt_listed_names_only_the_tools_of_that_toolset(
    demo_plan, checking, toolset, writes
):
    """docs/conventions.md#toolsets: a prompt follows the caller's toolsets as it follows writes."""
    toolsets = frozenset({toolset}) | ALWAYS_OFFERED
    server = build_server(writes=writes, toolsets=toolsets, local_principal=Principal.local("prompts"))
    texts = {}

    with anyio.fail_after(60):
        async with Client(server, mode="legacy") as client:
            listed = (await client.list_tools()).tools
            tools = [tool.model_dump(by_alias=True, mode="json") for tool in listed]
            for prompt in (await client.list_prompts()).prompts:
                result = await client.get_prompt(prompt.name, arguments_for(prompt.name, demo_plan, checking))
                texts[prompt.name] = result.messages[0].content.text

    out_of_sight = {
        name: names_out_of_sight(text, tools, catalog_specs(), writes=writes, toolsets=toolsets)
        for name, text in texts.items()
    }
    assert out_of_sight == {name: set() for name in texts}
    assert all(AGREEMENT in text for text in texts.values())
