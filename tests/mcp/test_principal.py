"""In memory, the caller is a local principal the test chooses, gated like a token."""

from __future__ import annotations

import logging

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver.exceptions import UnexpectedToolError

from avenir_mcp.mcp_surface.http import McpHttpApp
from avenir_mcp.mcp_surface.server import HttpServers, build_server, local_server
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.toolsets import ALL_TOOLSETS
from tests.mcp.sample_tools import SAMPLE_SPECS

pytestmark = pytest.mark.anyio


async def caller_and_tools(server) -> tuple[dict | None, list[str]]:
    with anyio.fail_after(10):
        async with Client(server) as client:
            called = await client.call_tool("describe_caller", {})
            names = [tool.name for tool in (await client.list_tools()).tools]
    return called.structured_content, names


async def test_without_a_chosen_principal_the_caller_is_the_local_person(settings):
    settings.AVENIR_MCP_WRITE = True

    caller, names = await caller_and_tools(local_server(specs=SAMPLE_SPECS))

    assert caller == {"principal": "local", "read_only": False}
    assert names == ["describe_caller", "rename_label"]


async def test_a_read_only_local_principal_gets_no_write_tool_even_with_writes_on(settings):
    settings.AVENIR_MCP_WRITE = True

    caller, names = await caller_and_tools(
        local_server(Principal.local("tester", read_only=True), specs=SAMPLE_SPECS)
    )

    assert caller == {"principal": "tester", "read_only": True}
    assert names == ["describe_caller"]


async def test_a_server_built_for_http_names_nobody_when_a_request_comes_without_http():
    server = build_server(writes=False, local_principal=None, specs=SAMPLE_SPECS)

    with anyio.fail_after(10):
        async with Client(server) as client:
            called = await client.call_tool("describe_caller", {})

    assert called.is_error is True


def test_a_local_principal_cannot_pass_for_a_token():
    with pytest.raises(ValueError, match="pass for a token"):
        Principal.local("token:1")


async def test_an_http_request_that_skipped_the_bearer_gate_reaches_no_tool(caplog):
    """Fails closed: were /mcp wired without its bearer check, a tool would name nobody."""
    servers = HttpServers.build(specs=SAMPLE_SPECS)
    service = McpHttpApp(servers)

    read_only = servers.server(writes=False, toolsets=ALL_TOOLSETS)

    async def ungated(scope, receive, send) -> None:  # the session manager with no gate before it
        await read_only.session_manager.handle_request(scope, receive, send)

    http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=ungated), base_url="http://127.0.0.1")
    with anyio.fail_after(10), caplog.at_level(logging.ERROR):
        async with (
            service.running(),
            http,
            Client(streamable_http_client("http://127.0.0.1/mcp", http_client=http)) as client,
        ):
            called = await client.call_tool("describe_caller", {})

    assert called.is_error is True
    assert called.structured_content is None
    assert called.content[0].text == "Error executing tool describe_caller"  # nothing more said
    assert "reached the MCP server without bearer authentication" in caplog.text


async def test_a_tool_called_outside_any_request_names_nobody_and_spends_nobodys_share():
    """`call_tool` without a context (code calling the server directly, no MCP request): no
    caller's share of YNAB's hour is looked up, and the tool itself finds nobody to act for."""
    server = build_server(writes=False, local_principal=None, specs=SAMPLE_SPECS)

    with pytest.raises(UnexpectedToolError) as crashed:  # inside the tool, not on the way to it
        await server.call_tool("describe_caller", {})

    assert "outside of a request" in str(crashed.value.__cause__)
