"""A new process starts warm: each stdio session (a real process) loads the stored plan and
costs one delta request, never a second full export; a damaged store costs an export, never a
wrong answer (docs/architecture.md#talking-to-ynab, persisted snapshot)."""

from __future__ import annotations

from datetime import UTC, datetime

import anyio
import pytest
from asgiref.sync import sync_to_async
from mcp import Client

from avenir_mcp.sandbox import faults
from avenir_mcp.ynab_client import store
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.stdio import stdio_server

pytestmark = [pytest.mark.anyio, pytest.mark.subprocesses]


@pytest.fixture
def demo_plan_id(live_service) -> str:
    return demo_plan_copy().id


async def session_accounts(sandbox_url: str, plan_id: str, data_dir) -> tuple[dict, list[tuple[str, str]]]:
    """One stdio session (a process of its own) listing the plan's accounts: its answer, and
    every request (path, query) that reached the sandbox for the plan meanwhile.

    The answer's `as_of` is checked here to date a sync of this session (never one from before
    it, such as the stored plan's), then set aside: two sessions' answers compare on the rest."""
    parameters = stdio_server(sandbox_url)
    parameters.env["AVENIR_MCP_DATA_DIR"] = str(data_dir)
    mark = await sync_to_async(faults.last_request_id)()
    started = datetime.now(UTC).replace(microsecond=0)
    with anyio.fail_after(90):
        async with Client(parameters, mode="legacy") as client:
            result = await client.call_tool("list_accounts", {"plan_id": plan_id})
    ended = datetime.now(UTC)
    assert not result.is_error, result.content[0].text
    served = await sync_to_async(faults.requests_since)(mark)
    answer = dict(result.structured_content)
    assert started <= datetime.fromisoformat(answer.pop("as_of")) <= ended
    return answer, [(entry.path, entry.query) for entry in served if plan_id in entry.path]


async def test_a_new_session_costs_one_delta_request_not_an_export(sandbox_url, demo_plan_id, tmp_path):
    first, first_requests = await session_accounts(sandbox_url, demo_plan_id, tmp_path)
    again, again_requests = await session_accounts(sandbox_url, demo_plan_id, tmp_path)

    assert first_requests == [(f"/sandbox/v1/plans/{demo_plan_id}", "")]  # cold: the full export
    [(path, query)] = again_requests
    assert path == f"/sandbox/v1/plans/{demo_plan_id}"
    assert query.startswith("last_knowledge_of_server=")
    assert again == first


async def test_a_damaged_store_costs_a_full_export_and_the_right_answer(
    sandbox_url, demo_plan_id, tmp_path, settings
):
    first, _ = await session_accounts(sandbox_url, demo_plan_id, tmp_path)
    settings.AVENIR_MCP_DATA_DIR = tmp_path  # to find the file the sessions wrote
    [path] = (tmp_path / "plans").glob(f"*{store.SUFFIX}")
    data = bytearray(path.read_bytes())
    data[-100:] = bytes(100)  # the payload's end overwritten
    path.write_bytes(bytes(data))

    again, again_requests = await session_accounts(sandbox_url, demo_plan_id, tmp_path)

    assert again_requests == [(f"/sandbox/v1/plans/{demo_plan_id}", "")]
    assert again == first
