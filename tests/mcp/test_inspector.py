"""The MCP Inspector's command line (npm @modelcontextprotocol/inspector), the tool people use to
look at a server before they connect an agent to it: over HTTP with a token, and over stdio as
a desktop client starts the server. Its `--strict` lint of the tools' input schemas (what every
client must be able to read: no constructs some clients reject) finds nothing."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from datetime import date
from pathlib import Path

import pytest

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.resources import GUIDE_URI, guide_text
from avenir_mcp.sandbox.ledger import create_plan
from tests.helpers.npm import node_22, npm_package
from tests.helpers.processes import PROCESS_SECONDS
from tests.helpers.stdio import stdio_server
from tests.served import ServedApp

pytestmark = pytest.mark.subprocesses

INSPECTOR_VERSION = "2.12.0"


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """The command that starts the Inspector's command line."""
    package = npm_package("@modelcontextprotocol/inspector", INSPECTOR_VERSION)
    return [str(node_22()), str(package / "clients" / "launcher" / "build" / "index.js"), "--cli"]


def inspected(inspector: list[str], target: list[str], *method: str, home: Path) -> dict:
    """What the Inspector answers for `method` on the server `target` (a URL and its options,
    or `--transport stdio` and a command); it fails the test when the Inspector exits non-zero
    (a refused call, a tool's error, a schema finding under --strict). It keeps its catalog of
    servers under `home`."""
    done = subprocess.run(
        [*inspector, *target, "--format", "json", *method],
        capture_output=True,
        text=True,
        timeout=PROCESS_SECONDS,
        cwd=home,
        env={**os.environ, "HOME": str(home)},
    )
    assert done.returncode == 0, f"the Inspector exited {done.returncode}: {done.stderr[-3000:]}"
    return json.loads(done.stdout)


def over_stdio(sandbox_url: str) -> list[str]:
    """The Inspector's options that start the stdio server a desktop client starts. The Inspector
    takes no empty value: a blank one (a space) is what the service reads as unset."""
    server = stdio_server(sandbox_url)
    options = [option for name, value in server.env.items() for option in ("-e", f"{name}={value or ' '}")]
    return ["--transport", "stdio", "--cwd", str(server.cwd), *options, server.command, *server.args]


def test_over_http_the_inspector_lists_tools_whose_schemas_every_client_reads(
    inspector, live_service: ServedApp, read_write_token, settings, tmp_path
):
    settings.AVENIR_MCP_WRITE = True  # every tool, the writes' larger schemas included
    _row, token = read_write_token
    target = [f"{live_service.url}/mcp", "--header", f"Authorization: Bearer {token}"]

    listed = inspected(inspector, target, "--method", "tools/list", "--strict", home=tmp_path)

    assert "schemaFindings" not in listed, listed.get("schemaFindings")
    assert [tool["name"] for tool in listed["result"]["tools"]] == [spec.name for spec in catalog_specs()]


def test_over_stdio_the_inspector_reads_the_plans_and_the_guide(inspector, sandbox_url, tmp_path):
    plan = create_plan(name=f"Inspected {uuid.uuid4().hex[:8]}", first_month=date(2025, 1, 1))
    target = over_stdio(sandbox_url)

    called = inspected(
        inspector, target, "--method", "tools/call", "--tool-name", "list_plans", home=tmp_path
    )
    guide = inspected(inspector, target, "--method", "resources/read", "--uri", GUIDE_URI, home=tmp_path)

    plans = {listed["plan_id"]: listed["name"] for listed in called["result"]["structuredContent"]["plans"]}
    assert plans[plan.id] == plan.name
    assert guide["result"]["contents"][0]["text"] == guide_text(writes=False)
