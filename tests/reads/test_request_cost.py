"""Every read tool costs at most one YNAB request a call once the plan is warm (docs/architecture.md#figures).

The tools are discovered from the catalog, so a new read tool is measured as soon as it is
listed; its arguments come from `read_calls.READ_CALLS`, and a test fails until it has a line
there. The count is the sandbox's own request log: every request that reached "YNAB".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone
from mcp.types import CallToolResult

from avenir_mcp import ynab_client
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Plan, RequestLogEntry
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.reads import agent
from tests.reads.read_calls import READ_CALLS, read_arguments, read_tool_names

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def shared_demo_plan(live_service) -> Plan:
    """One demo household for the whole module: these tests only read it."""
    return demo_plan_copy()


def test_every_read_tool_of_the_catalog_has_arguments_in_the_table():
    names = set(read_tool_names())

    assert sorted(names - READ_CALLS.keys()) == [], "add these tools to tests/reads/read_calls.py"
    assert sorted(READ_CALLS.keys() - names) == [], "these are no read tool of the catalog any more"


async def served_during(
    action: Callable[[], Awaitable[CallToolResult]],
) -> tuple[CallToolResult, list[RequestLogEntry]]:
    """What `action` returned, and every request that reached the sandbox meanwhile."""
    mark = await sync_to_async(faults.last_request_id)()
    outcome = await action()
    return outcome, await sync_to_async(faults.requests_since)(mark)


def is_cheap(entry: RequestLogEntry, plan_id: str) -> bool:
    """A delta request of the plan (never a full export), the plan listing, or the plan's money
    movements (not in the export: list_money_movements asks for them instead of a delta)."""
    delta = entry.path.endswith(f"/plans/{plan_id}") and "last_knowledge_of_server=" in entry.query
    movements = entry.path.endswith(f"/plans/{plan_id}/money_movements")
    return entry.method == "GET" and (delta or movements or entry.path.endswith("/plans"))


@pytest.mark.matrix
@pytest.mark.parametrize("tool", read_tool_names())
async def test_a_read_tool_called_twice_on_a_warm_plan_costs_at_most_one_request_each_time(
    shared_demo_plan, tool
):
    plan_id = shared_demo_plan.id
    arguments = read_arguments(tool, plan_id, timezone.localdate())
    await ynab_client.plan_snapshot(plan_id)  # warm: the full export happens here, not in the calls

    async with agent() as client:
        first, first_cost = await served_during(lambda: client.call_tool(tool, arguments))
        second, second_cost = await served_during(lambda: client.call_tool(tool, arguments))

    for result in (first, second):
        assert not result.is_error, result.content[0].text
    assert len(first_cost) <= 1, [(entry.path, entry.query) for entry in first_cost]
    assert len(second_cost) <= 1, [(entry.path, entry.query) for entry in second_cost]
    assert all(is_cheap(entry, plan_id) for entry in first_cost + second_cost)
