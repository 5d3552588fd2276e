"""AVENIR_MCP_REQUIRE_ELICITATION=1: only the person's own answer in the client counts.

One test per row of the table of docs/confirmation.md#requiring-the-persons-own-answer, on both protocol eras.
"""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.types import INVALID_REQUEST, ErrorData

from avenir_mcp.confirmations import messages
from tests.confirmations.write_server import TOOL
from tests.helpers.confirmations import ADD, START, answering

pytestmark = pytest.mark.anyio

MODES = ["2026-07-28", "legacy"]


@pytest.fixture(autouse=True)
def _require_elicitation(settings) -> None:
    settings.AVENIR_MCP_REQUIRE_ELICITATION = True


@pytest.mark.parametrize("mode", MODES)
async def test_the_client_can_ask_and_the_person_says_yes_applied(server, budget_row, mode):
    async with Client(server, mode=mode, elicitation_callback=answering("accept", True)) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.structured_content["status"] == "applied"
    assert await budget_row.assigned() == START + ADD


@pytest.mark.parametrize("mode", MODES)
async def test_a_dismissed_question_is_declined_and_no_code_is_issued(server, store, budget_row, mode):
    async with Client(server, mode=mode, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.structured_content["status"] == "declined"
    assert result.structured_content["confirmation"] is None
    assert store.pending() == []
    assert await budget_row.assigned() == START


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_ask_gets_an_error_and_nothing_changes(server, store, budget_row, mode):
    async with Client(server, mode=mode) as client:  # no elicitation declared
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.is_error
    assert result.content[0].text == messages.CLIENT_CANNOT_ASK
    assert store.pending() == []
    assert await budget_row.assigned() == START


async def test_a_passed_code_is_an_error_even_one_issued_before(server, budget_row, settings):
    settings.AVENIR_MCP_REQUIRE_ELICITATION = False
    async with Client(server, mode="2026-07-28") as client:
        with anyio.fail_after(10):
            first = await client.call_tool(TOOL, budget_row.args)
            settings.AVENIR_MCP_REQUIRE_ELICITATION = True  # read at every call
            code = first.structured_content["confirmation"]
            result = await client.call_tool(TOOL, {**budget_row.args, "confirmation": code})

    assert result.is_error
    assert result.content[0].text == messages.CODES_DISABLED
    assert await budget_row.assigned() == START


async def test_a_client_that_fails_to_show_the_question_gets_an_error(server, store, budget_row):
    async def refusing(context, params):
        return ErrorData(code=INVALID_REQUEST, message="user interface unavailable")

    async with Client(server, mode="legacy", elicitation_callback=refusing) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.content[0].text == messages.CLIENT_CANNOT_ASK
    assert store.pending() == []
    assert await budget_row.assigned() == START
