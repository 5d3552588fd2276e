"""Every read of a plan says how old its data is (`as_of`, docs/conventions.md#results): when
the sync it answers from was sent, in UTC to the second, also inside the freshness window."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from tests.helpers.reads import agent
from tests.helpers.results import ok
from tests.reads.read_calls import read_arguments, read_tool_names

pytestmark = pytest.mark.anyio

# The plan listing and this service's operation log: neither is a plan's data from YNAB.
NO_PLAN_DATA = {"list_plans", "list_operations"}
# Plan data that is not in the plan export: read by a request of its own, dated by it.
OWN_REQUEST = {"list_money_movements"}


def as_of_place(schema: dict) -> tuple[str, str | None, bool] | None:
    """(the field before `as_of`, its format, whether it is required), None without one."""
    names = list(schema["properties"])
    if "as_of" not in names:
        return None
    before = names[names.index("as_of") - 1]
    return before, schema["properties"]["as_of"].get("format"), "as_of" in schema["required"]


async def test_every_read_of_a_plan_publishes_a_required_as_of_right_after_plan_id():
    async with agent() as client:
        tools = (await client.list_tools()).tools

    placed = {tool.name: as_of_place(tool.output_schema or {}) for tool in tools}

    assert sorted(placed) == sorted(read_tool_names())
    assert placed == {
        name: None if name in NO_PLAN_DATA else ("plan_id", "date-time", True) for name in placed
    }


async def test_a_read_inside_the_window_gives_the_older_sync_and_one_after_it_the_new(
    demo_plan, settings, freshness_clock
):
    plan_id, today = demo_plan.id, timezone.localdate()
    tools = [name for name in read_tool_names() if name not in NO_PLAN_DATA]
    async with agent() as client:
        synced = freshness_clock.as_of()
        first = ok(await client.call_tool("list_accounts", {"plan_id": plan_id}))  # no window yet: a sync
        settings.AVENIR_MCP_FRESHNESS_SECONDS = 15
        freshness_clock.now += 10
        asked = freshness_clock.as_of()
        inside = {
            tool: ok(await client.call_tool(tool, read_arguments(tool, plan_id, today)))["as_of"]
            for tool in tools
        }
        freshness_clock.now += 5.5  # the window has passed: the next read syncs
        resynced = freshness_clock.as_of()
        after = await client.call_tool("get_category_balances", {"plan_id": plan_id})

    assert first["as_of"] == synced
    assert inside == {tool: asked if tool in OWN_REQUEST else synced for tool in tools}
    assert asked != synced
    assert ok(after)["as_of"] == resynced != synced
    # a client that passes only the text to the model reads it too
    assert json.loads(after.content[0].text.splitlines()[1])["as_of"] == resynced
