"""The month read tools end to end: the real ASGI app under uvicorn, a real bearer token, the
SDK's client over streamable HTTP, at protocol 2026-07-28 and at the handshake era."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import anyio
import pytest
from mcp.types import CallToolResult, ResourceTemplateReference

from avenir_mcp.mcp_surface.plan_lookup import forget_plan_listing
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.ynab_client.pacing import reset_pacing
from tests.helpers.mcp_http import MODES, mcp_over_http
from tests.helpers.plan_copies import demo_plan_copy
from tests.mcp.answers import summary
from tests.reads.month_truth import SandboxPlan, milliunits

pytestmark = pytest.mark.anyio

MONTH_TOOLS = ("get_category_balances", "get_monthly_summary", "get_budget_vs_actual", "get_spending_trends")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _whole_pacing_budget() -> Iterator[None]:
    reset_pacing()
    yield
    reset_pacing()


@pytest.fixture(scope="module")
def demo_plan(live_service) -> Plan:
    return demo_plan_copy()


@pytest.fixture(scope="module")
def token(live_service) -> str:
    """A read-only token, as a person would give a remote MCP client."""
    _row, plaintext = McpToken.issue(f"e2e reads {uuid.uuid4().hex[:8]}", read_only=True)
    return plaintext


def one_line_error(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    (content,) = result.content
    assert "\n" not in content.text, content.text
    return content.text


@pytest.mark.parametrize("mode", MODES)
async def test_each_month_tool_is_listed_and_answers_over_http(live_service, demo_plan, token, mode):
    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            results = {tool: await client.call_tool(tool, {"plan_id": demo_plan.id}) for tool in MONTH_TOOLS}

    assert set(MONTH_TOOLS) <= listed
    for tool, result in results.items():
        assert not result.is_error, (tool, result.content[0].text)
        assert result.structured_content["plan_id"] == demo_plan.id
        assert "\n" not in summary(result)  # then the structured content, as JSON
    assert results["get_category_balances"].structured_content["categories"]
    assert results["get_spending_trends"].structured_content["categories"]


@pytest.mark.parametrize("mode", MODES)
async def test_the_figures_that_arrive_over_http_are_the_sandboxs(
    live_service, sandbox_url, demo_plan, token, mode
):
    truth = await SandboxPlan(sandbox_url, demo_plan.id).month("current")

    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            summary = await client.call_tool(
                "get_monthly_summary", {"plan_id": demo_plan.id, "month": "current"}
            )

    content = summary.structured_content
    assert milliunits(content["ready_to_assign"]) == truth["to_be_budgeted"]
    assert milliunits(content["income"]) == truth["income"]
    assert content["age_of_money"] == truth["age_of_money"]


@pytest.mark.parametrize("mode", MODES)
async def test_refusals_arrive_as_one_line_tool_errors(live_service, demo_plan, token, mode):
    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            bad_month = await client.call_tool(
                "get_monthly_summary", {"plan_id": demo_plan.id, "month": "sept"}
            )
            bad_plan = await client.call_tool("get_category_balances", {"plan_id": "../../user"})
            first = await client.call_tool("get_budget_vs_actual", {"plan_id": demo_plan.id, "limit": 1})
            bad_cursor = await client.call_tool(
                "get_budget_vs_actual",
                {"plan_id": demo_plan.id, "month": "next", "cursor": first.structured_content["next_cursor"]},
            )
            bad_count = await client.call_tool(
                "get_spending_trends", {"plan_id": demo_plan.id, "months_count": 0}
            )

    assert one_line_error(bad_month).startswith("Month 'sept' is not understood")  # the sentence alone
    assert "is not a valid plan id" in one_line_error(bad_plan)
    assert one_line_error(bad_cursor).endswith(
        "This cursor belongs to another query; call again without cursor."
    )
    assert one_line_error(bad_count) == (
        "Argument 'months_count': input should be greater than or equal to 1. "
        "months_count: How many full months back, 1-24."
    )


@pytest.mark.parametrize("mode", MODES)
async def test_completion_offers_the_plans_id_over_http(live_service, demo_plan, token, mode):
    forget_plan_listing()
    template = ResourceTemplateReference(uri="ynab://plans/{plan_id}/accounts")

    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            found = await client.complete(template, {"name": "plan_id", "value": demo_plan.id[:13]})

    assert found.completion.values == [demo_plan.id]
