"""`manage.py mcp_stdio` serves the same server over stdio, gated like /mcp."""

from __future__ import annotations

import json
import socket
import uuid
from datetime import date

import anyio
import pytest
from django.conf import settings
from mcp import Client, StdioServerParameters

from avenir_mcp.mcp_surface.resources import GUIDE_URI, guide_text
from avenir_mcp.sandbox.ledger import create_account, create_plan
from avenir_mcp.tokens.client_config import stdio_entry
from tests.helpers.mcp_http import MODES, instructions_of
from tests.helpers.processes import port_nobody_serves, this_runs_database_url
from tests.helpers.stdio import measured, stdio_server

pytestmark = [pytest.mark.anyio, pytest.mark.subprocesses]


@pytest.fixture
def own_plan():
    return create_plan(name=f"Stdio {uuid.uuid4().hex[:8]}", first_month=date(2025, 1, 1))


@pytest.mark.parametrize("mode", MODES)
async def test_it_serves_the_guide_and_the_tools_over_stdio(sandbox_url, own_plan, mode):
    with anyio.fail_after(60):
        async with Client(stdio_server(sandbox_url), mode=mode) as client:
            instructions = await instructions_of(client)
            guide = (await client.read_resource(GUIDE_URI)).contents[0].text
            tools = (await client.list_tools()).tools
            listed = await client.call_tool("list_plans", {})

    plan_ids = [plan["plan_id"] for plan in listed.structured_content["plans"]]
    assert instructions == guide == guide_text(writes=False)
    assert all(tool.annotations.read_only_hint for tool in tools)
    assert own_plan.id in plan_ids


@pytest.mark.parametrize(("options", "writes_seen"), [((), True), (("--read-only",), False)])
async def test_with_writes_on_the_local_person_has_writes_unless_started_read_only(
    sandbox_url, options, writes_seen
):
    with anyio.fail_after(60):
        async with Client(stdio_server(sandbox_url, *options, writes=True), mode="legacy") as client:
            instructions = client.instructions

    assert instructions == guide_text(writes=writes_seen)


@pytest.fixture
def checking(own_plan):
    return create_account(own_plan, name="Checking", type="checking", balance=123_450, date=date(2025, 1, 5))


@pytest.mark.parametrize("writes", [True, False])
async def test_the_printed_desktop_entry_serves_the_sandbox_with_no_web_server_on_port(
    own_plan, checking, writes
):
    entry = json.loads(stdio_entry(writes=writes))["mcpServers"]["avenir-mcp"]
    port = port_nobody_serves()
    desktop = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env=measured(
            {
                **entry.get("env", {}),
                "DATABASE_URL": this_runs_database_url(),  # this run's database, as .env would give
                "PORT": str(port),
                "YNAB_API_KEY": "",
                "SANDBOX_TOKEN": settings.SANDBOX_TOKEN,
                "AVENIR_MCP_DATA_DIR": str(settings.AVENIR_MCP_DATA_DIR),  # the run's own, not .local
            }
        ),
    )

    with anyio.fail_after(60):
        async with Client(desktop, mode="legacy") as client:
            listed = await client.call_tool("list_plans", {})
            accounts = await client.call_tool("list_accounts", {"plan_id": own_plan.id})
            tools = (await client.list_tools()).tools

    assert any(not tool.annotations.read_only_hint for tool in tools) is writes  # the entry's own say
    assert not accounts.is_error, accounts.content[0].text
    assert own_plan.id in [plan["plan_id"] for plan in listed.structured_content["plans"]]
    assert [(row["account_id"], row["balance"]) for row in accounts.structured_content["accounts"]] == [
        (checking.id, "123.45")
    ]
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))  # nothing ever listened there
