"""Older protocols: the question asked during the call, through the SDK's real client.

Two clients: `Client(mode="legacy")` (negotiates 2025-11-25) and a session pinned to
2025-06-18 with a hand-rolled initialize; and, over real HTTP, the service's own /mcp with a
client that opens no standalone stream, and with a proxy that cuts the call's stream.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp import Client
from mcp.types import INVALID_REQUEST, ElicitResult, ErrorData

from avenir_mcp.confirmations import messages
from avenir_mcp.confirmations.confirm import CONFIRM_SCHEMA
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.models import McpToken
from tests.confirmations.write_server import TOOL
from tests.helpers.confirmations import ADD, START, answering, pinned_session
from tests.helpers.cutting_proxy import cutting_proxy
from tests.helpers.mcp_http import WithoutStandaloneStream, mcp_over_http
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, assigned, budget_home

pytestmark = pytest.mark.anyio

OLDER = ["legacy", "2025-06-18"]


@asynccontextmanager
async def older_client(server, era: str, callback) -> AsyncIterator:
    """Something with `call_tool`, at the older protocol `era`."""
    if era == "legacy":
        async with Client(server, mode="legacy", elicitation_callback=callback) as client:
            assert client.protocol_version == "2025-11-25"
            yield client
    else:
        async with pinned_session(server, era, callback) as session:
            yield session


async def call(server, era: str, callback, args: dict):
    async with older_client(server, era, callback) as client:
        with anyio.fail_after(10):
            return await client.call_tool(TOOL, args)


@pytest.mark.parametrize("era", OLDER)
async def test_a_yes_applies_the_change_once(server, budget_row, era):
    result = await call(server, era, answering("accept", True), budget_row.args)

    assert result.structured_content["status"] == "applied"
    assert result.structured_content["confirmed_by"] == "elicitation"
    assert await budget_row.assigned() == START + ADD


@pytest.mark.parametrize("era", OLDER)
@pytest.mark.parametrize(
    ("action", "content"),
    [("accept", {"value": False}), ("accept", {"value": "true"}), ("decline", None)],
)
async def test_an_unticked_box_or_a_decline_is_declined_and_writes_nothing(
    server, budget_row, era, action, content
):
    async def callback(context, params):
        return ElicitResult(action=action, content=content)

    result = await call(server, era, callback, budget_row.args)

    assert result.structured_content["status"] == "declined"
    assert await budget_row.assigned() == START


@pytest.mark.parametrize("era", OLDER)
async def test_a_dismissed_question_falls_back_to_a_code_that_then_applies(server, budget_row, era):
    async with older_client(server, era, answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await client.call_tool(TOOL, budget_row.args)
            assert first.structured_content["status"] == "confirmation_required"
            assert await budget_row.assigned() == START
            code = first.structured_content["confirmation"]
            second = await client.call_tool(TOOL, {**budget_row.args, "confirmation": code})

    assert second.structured_content["confirmed_by"] == "code"
    assert await budget_row.assigned() == START + ADD


@pytest.mark.parametrize("era", OLDER)
async def test_the_question_is_the_same_boolean_form_with_the_preview(server, budget_row, era):
    seen = []

    await call(server, era, answering("decline", seen=seen), budget_row.args)

    assert [params.message for params in seen] == ["Budget Restaurants for 2026-09-01: 120.00 → 150.00?"]
    assert seen[0].requested_schema == CONFIRM_SCHEMA


@pytest.mark.parametrize("era", OLDER)
async def test_a_client_that_fails_to_show_the_question_gets_a_code(server, budget_row, era):
    async def refusing(context, params):
        return ErrorData(code=INVALID_REQUEST, message="user interface unavailable")

    result = await call(server, era, refusing, budget_row.args)

    assert result.structured_content["status"] == "confirmation_required"
    assert result.structured_content["message"] == messages.code_message(
        result.structured_content["confirmation"]
    )
    assert await budget_row.assigned() == START


async def test_a_question_left_unanswered_past_the_timeout_counts_as_dismissed(server, budget_row, settings):
    settings.AVENIR_MCP_ELICITATION_TIMEOUT = 0.2
    never = anyio.Event()

    async def absent_person(context, params):
        await never.wait()
        return ElicitResult(action="accept", content={"value": True})  # too late: the call is over

    async with Client(server, mode="legacy", elicitation_callback=absent_person) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)
        never.set()

    assert result.structured_content["status"] == "confirmation_required"
    assert await budget_row.assigned() == START


@pytest.fixture
def budget(live_service) -> BudgetHome:
    return budget_home()


@pytest.fixture
def token(live_service) -> str:
    _row, plaintext = McpToken.issue(f"in-call question {uuid.uuid4().hex[:8]}", read_only=False)
    return plaintext


async def test_over_http_the_question_reaches_a_client_without_a_standalone_stream(
    live_service, budget, token, settings
):
    """The question travels on the stream of the call it belongs to: a client that never opened
    the standalone GET stream gets it, and the person's yes applies the change."""
    settings.AVENIR_MCP_WRITE = True
    settings.AVENIR_MCP_ELICITATION_TIMEOUT = 5  # a question sent elsewhere is dismissed after it
    dining = budget.home.dining
    arguments = {"plan_id": budget.id, "month": budget.month[:7], "category_id": dining, "amount": "150.00"}
    seen = []

    with anyio.fail_after(60):
        async with mcp_over_http(
            live_service.url,
            token,
            mode="legacy",
            transport=WithoutStandaloneStream(),
            elicitation_callback=answering("accept", True, seen=seen),
        ) as client:
            result = await client.call_tool("set_category_budget", arguments)

    assert result.structured_content["status"] == "applied", result.content[0].text
    assert [params.message for params in seen] == [result.structured_content["preview"]]
    assert (DINING_ASSIGNED, await assigned(budget, dining)) == (120_000, 150_000)
    op = await Operation.objects.aget(plan_id=budget.id)
    assert (op.status, op.confirmed_by) == ("applied", "elicitation")


async def test_over_http_a_stream_cut_during_the_question_resumes_with_the_answer(
    live_service, budget, token, settings
):
    """A proxy cuts the call's stream right after the question reaches the client (as its timeout
    would while the person decides): the client resumes the stream, and the agent still gets the
    applied result, the change made once."""
    settings.AVENIR_MCP_WRITE = True
    dining = budget.home.dining
    arguments = {"plan_id": budget.id, "month": budget.month[:7], "category_id": dining, "amount": "150.00"}

    with anyio.fail_after(60):
        async with (
            cutting_proxy(live_service.url, marker=b'"elicitation/create"') as proxy,
            mcp_over_http(
                proxy.url, token, mode="legacy", elicitation_callback=answering("accept", True)
            ) as client,
        ):
            result = await client.call_tool("set_category_budget", arguments)

    assert (proxy.cuts, proxy.resumptions) == (1, 1)
    assert result.structured_content["status"] == "applied", result.content[0].text
    assert (DINING_ASSIGNED, await assigned(budget, dining)) == (120_000, 150_000)
    op = await Operation.objects.aget(plan_id=budget.id)  # one operation: the change made once
    assert (op.status, op.confirmed_by) == ("applied", "elicitation")
