"""The write gate over real HTTP, on a service built from the sample tools (one writes).

The service is the same McpHttpApp asgi.py serves, built from a registry holding a write
tool, so these tests keep proving the gate whatever the catalog holds today.
"""

from __future__ import annotations

import anyio
import pytest
from mcp.client import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequestParams, ElicitResult

from tests.helpers.mcp_http import MODES, instructions_of, mcp_over_http

pytestmark = pytest.mark.anyio

YES = ElicitResult(action="accept", content={"value": True})


async def agree(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return YES


async def listed_and_called(url: str, token: str, mode: str) -> tuple[list[str], str, str | None]:
    """The tools listed, the answer to calling the write tool by name, and the instructions."""
    with anyio.fail_after(30):
        async with mcp_over_http(url, token, mode=mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            called = await client.call_tool("rename_label", {"label_id": "l1", "name": "Food"})
            return names, called.content[0].text, await instructions_of(client)


@pytest.mark.parametrize("mode", MODES)
async def test_a_read_only_token_neither_sees_nor_calls_a_write_tool(
    sample_service, read_only_token, settings, mode
):
    settings.AVENIR_MCP_WRITE = True
    _row, token = read_only_token

    names, called, instructions = await listed_and_called(sample_service.url, token, mode)

    assert names == ["describe_caller"]
    assert called == "Unknown tool: rename_label"
    assert "rename_label" not in instructions
    assert "changes nothing" in instructions


@pytest.mark.parametrize("mode", MODES)
async def test_with_writes_off_not_even_a_read_write_token_sees_a_write_tool(
    sample_service, read_write_token, settings, mode
):
    settings.AVENIR_MCP_WRITE = False
    _row, token = read_write_token

    names, called, instructions = await listed_and_called(sample_service.url, token, mode)

    assert names == ["describe_caller"]
    assert called == "Unknown tool: rename_label"
    assert "rename_label" not in instructions


async def test_a_read_write_token_sees_and_calls_write_tools_when_writes_are_on(
    sample_service, read_write_token, settings
):
    settings.AVENIR_MCP_WRITE = True
    _row, token = read_write_token

    with anyio.fail_after(30):
        async with mcp_over_http(sample_service.url, token, elicitation_callback=agree) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool("rename_label", {"label_id": "l1", "name": "Food"})

    assert names == ["describe_caller", "rename_label"]
    assert result.structured_content == {"status": "applied", "label_id": "l1", "name": "Food"}


async def test_turning_writes_off_hides_write_tools_from_the_next_request(
    sample_service, read_write_token, settings
):
    settings.AVENIR_MCP_WRITE = True
    _row, token = read_write_token

    with anyio.fail_after(30):
        async with mcp_over_http(sample_service.url, token) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
            settings.AVENIR_MCP_WRITE = False
            after = [tool.name for tool in (await client.list_tools()).tools]

    assert "rename_label" in before
    assert "rename_label" not in after


@pytest.mark.parametrize("mode", MODES)
async def test_tools_know_the_token_that_calls_them(sample_service, read_only_token, mode):
    row, token = read_only_token

    with anyio.fail_after(30):
        async with mcp_over_http(sample_service.url, token, mode=mode) as client:
            result = await client.call_tool("describe_caller", {})

    assert result.structured_content == {"principal": f"token:{row.pk}", "read_only": True}


async def test_an_answer_asked_of_one_token_cannot_be_given_by_another(
    sample_service, read_write_token, another_read_write_token, settings
):
    settings.AVENIR_MCP_WRITE = True
    _asker, token = read_write_token
    _other, other_token = another_read_write_token
    arguments = {"label_id": "l1", "name": "Food"}

    with anyio.fail_after(30):
        async with mcp_over_http(sample_service.url, token, elicitation_callback=agree) as client:
            asked = await client.session.call_tool("rename_label", arguments, allow_input_required=True)
        async with mcp_over_http(sample_service.url, other_token, elicitation_callback=agree) as intruder:
            with pytest.raises(MCPError):
                await intruder.session.call_tool(
                    "rename_label",
                    arguments,
                    input_responses={"confirm": YES},
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
        async with mcp_over_http(sample_service.url, token, elicitation_callback=agree) as client:
            answered = await client.session.call_tool(
                "rename_label",
                arguments,
                input_responses={"confirm": YES},
                request_state=asked.request_state,
                allow_input_required=True,
            )

    assert answered.structured_content["status"] == "applied"
