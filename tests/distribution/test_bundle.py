"""The .mcpb bundle (`manage.py mcp_bundle`, README: Publishing): validated and packed by the
official CLI, then unpacked and started the way a desktop host starts it, with the person's
answers to its questions as the host passes them, and used over stdio by the SDK's client."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from mcp import Client, StdioServerParameters

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.sandbox.seeding.demo_catalog import DEMO_PLAN_ID
from tests.helpers.npm import npm_command
from tests.helpers.processes import PROCESS_SECONDS

MCPB_VERSION = "2.1.2"  # the Makefile's


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def mcpb() -> Path:
    """The official CLI (npm @anthropic-ai/mcpb), installed once with npm and reused."""
    return npm_command("@anthropic-ai/mcpb", MCPB_VERSION, "mcpb")


def the_persons_environment() -> dict[str, str]:
    """The environment a host starts a server in: the person's (their PATH, their certificates),
    without what this test run sets for its own service."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("AVENIR_MCP_", "DATABASE_URL", "DJANGO_", "VIRTUAL_ENV"))
    }


def host_command(
    manifest: dict[str, Any], folder: Path, answers: dict[str, Any]
) -> tuple[str, list[str], dict]:
    """`mcp_config` as a host runs it: `${__dirname}` the unpacked bundle, each
    `${user_config.KEY}` the person's answer (else the option's default), a boolean as
    true/false."""
    given = {
        key: answers.get(key, option.get("default", "")) for key, option in manifest["user_config"].items()
    }

    def substituted(text: str) -> str:
        text = text.replace("${__dirname}", str(folder))
        return re.sub(
            r"\$\{user_config\.(\w+)\}",
            lambda key: str(given[key[1]]).lower() if isinstance(given[key[1]], bool) else str(given[key[1]]),
            text,
        )

    config = manifest["server"]["mcp_config"]
    return (
        substituted(config["command"]),
        [substituted(argument) for argument in config["args"]],
        {name: substituted(value) for name, value in config["env"].items()},
    )


@pytest.fixture(scope="session")
def installed(mcpb, wheel, tmp_path_factory) -> Path:
    """The bundle made, validated and packed by the official CLI, then unpacked as a host does."""
    made = tmp_path_factory.mktemp("bundle")
    call_command("mcp_bundle", str(wheel), str(made / "files"))
    validated = subprocess.run(
        [str(mcpb), "validate", str(made / "files" / "manifest.json")], capture_output=True, text=True
    )
    packed = subprocess.run(
        [str(mcpb), "pack", str(made / "files"), str(made / "avenir-mcp.mcpb")],
        capture_output=True,
        text=True,
    )
    assert (validated.returncode, packed.returncode) == (0, 0), (
        validated.stdout + packed.stdout + packed.stderr
    )
    with zipfile.ZipFile(made / "avenir-mcp.mcpb") as bundle:
        bundle.extractall(made / "installed")
    return made / "installed"


@pytest.mark.subprocesses
@pytest.mark.anyio
async def test_the_packed_bundle_starts_as_a_host_starts_it_and_serves_the_demo_plan(installed, tmp_path):
    manifest = json.loads((installed / "manifest.json").read_text())
    command, args, env = host_command(manifest, installed, {"ynab_api_key": ""})
    home = tmp_path / "home"
    home.mkdir()
    server = StdioServerParameters(
        command=shutil.which(command, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"),
        args=args,
        env={
            **the_persons_environment(),
            **env,
            "HOME": str(home),  # a home of its own: no state of this run's, nor of the checkout's
            "UV_CACHE_DIR": str(Path.home() / ".cache" / "uv"),  # the packages, downloaded once
        },
        cwd=str(tmp_path),
    )
    with anyio.fail_after(PROCESS_SECONDS):
        async with Client(server, mode="legacy") as client:
            info = client.server_info
            listed = (await client.list_tools()).tools
            plans = await client.call_tool("list_plans", {})

    assert env["AVENIR_MCP_WRITE"] == "false"  # the person did not tick "propose changes"
    assert info is not None
    assert (info.name, info.version) == (manifest["name"], manifest["version"])
    in_manifest = {tool["name"]: tool["description"] for tool in manifest["tools"]}
    assert {tool.name for tool in listed} < set(in_manifest)
    assert all(tool.annotations.read_only_hint for tool in listed)
    assert all(
        in_manifest[name].endswith("(Only when the agent may propose changes.)")
        for name in set(in_manifest) - {tool.name for tool in listed}
    )
    assert DEMO_PLAN_ID in [plan["plan_id"] for plan in plans.structured_content["plans"]]


def test_the_manifest_lists_every_tool_and_prompt_of_the_registry(tmp_path):
    wheel = tmp_path / "avenir_mcp-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")

    call_command("mcp_bundle", str(wheel), str(tmp_path / "files"))

    manifest = json.loads((tmp_path / "files" / "manifest.json").read_text())
    assert [tool["name"] for tool in manifest["tools"]] == [spec.name for spec in catalog_specs()]
    assert [prompt["name"] for prompt in manifest["prompts"]] == [
        "classify_pending",
        "monthly_review",
        "reconcile",
        "plan_next_month",
    ]
    reconcile = manifest["prompts"][2]
    assert reconcile["arguments"] == ["plan_id", "account_id", "bank_balance"]
    assert "${arguments.bank_balance}" in reconcile["text"]
    assert [key for key, option in manifest["user_config"].items() if option.get("sensitive")] == [
        "ynab_api_key"
    ]
    assert (tmp_path / "files" / "icon.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_it_refuses_a_file_that_is_no_wheel_and_a_folder_that_exists(tmp_path):
    wheel = tmp_path / "avenir_mcp-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")

    with pytest.raises(CommandError, match="is not a wheel: build one first"):
        call_command("mcp_bundle", str(tmp_path / "avenir_mcp.tar.gz"), str(tmp_path / "files"))
    with pytest.raises(CommandError, match="exists already: give a folder to create"):
        call_command("mcp_bundle", str(wheel), str(tmp_path))
