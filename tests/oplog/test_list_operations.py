"""`list_operations` through the SDK's client: the plan's log, newest first, at no YNAB cost."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone
from mcp import Client
from mcp.types import CallToolResult

from avenir_mcp.mcp_surface.server import local_server
from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import create_plan
from avenir_mcp.sandbox.models import Plan as SandboxPlan
from avenir_mcp.tokens.auth import Principal
from tests.helpers.operations import LOCAL, fresh_plan_id, record
from tests.helpers.servers import catalog_server
from tests.mcp.answers import summary

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def agent(mode: str = "2026-07-28") -> AsyncIterator[Client]:
    """An agent connected in memory to the catalog's server for a read-only local caller."""
    server = catalog_server(writes=False, principal=LOCAL)
    with anyio.fail_after(20):
        async with Client(server, mode=mode) as client:
            yield client


async def list_operations(**arguments: Any) -> CallToolResult:
    async with agent() as client:
        return await client.call_tool("list_operations", arguments)


def ids_of(result: CallToolResult) -> list[str]:
    assert not result.is_error, result.content
    return [row["operation_id"] for row in result.structured_content["operations"]]


@pytest.fixture
async def ynab_requests(live_service) -> Callable[[], Awaitable[list]]:
    """What reached the sandbox (the stand-in for YNAB) since the test began."""
    mark = await sync_to_async(faults.last_request_id)()

    async def served() -> list:
        return await sync_to_async(faults.requests_since)(mark)

    return served


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_it_lists_this_plans_operations_from_every_client_newest_first(mode, plan_id, token):
    by_token = await record(plan_id, principal=Principal.of_token(token), tool="move_money")
    by_stdio = await record(
        plan_id, tool="import_transactions", preview="", confirmed_by="none", undoable=False
    )
    await record(fresh_plan_id())

    async with agent(mode) as client:
        result = await client.call_tool("list_operations", {"plan_id": plan_id})

    assert ids_of(result) == [by_stdio.pk, by_token.pk]
    newest, oldest = result.structured_content["operations"]
    assert newest["summary"] == "Import transactions"
    assert (newest["client"], newest["confirmed_by"], newest["undoable"]) == ("stdio", "none", False)
    assert oldest["summary"] == "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
    assert (oldest["client"], oldest["confirmed_by"], oldest["undoable"]) == (token.name, "elicitation", True)
    assert dt.datetime.fromisoformat(oldest["created_at"]) == by_token.created_at
    assert result.structured_content["next_cursor"] is None
    assert summary(result) == f"2 operation(s) of plan {plan_id}, newest first."


async def test_it_costs_no_ynab_request(plan_id, ynab_requests):
    await record(plan_id)

    result = await list_operations(plan_id=plan_id, status="applied", since_date="2026-01-01")

    assert len(ids_of(result)) == 1
    assert await ynab_requests() == []


async def test_it_filters_by_status_tool_and_day(plan_id):
    old = await record(plan_id, tool="move_money")
    await Operation.objects.filter(pk=old.pk).aupdate(created_at=timezone.now() - dt.timedelta(days=3))
    moved = await record(plan_id, tool="move_money")
    failed = await record(plan_id, tool="move_money", status="failed")
    flagged = await record(plan_id, tool="flag_transactions")
    yesterday = (timezone.localdate() - dt.timedelta(days=1)).isoformat()

    by_status = await list_operations(plan_id=plan_id, status="failed")
    by_tool = await list_operations(plan_id=plan_id, tool="move_money")
    by_day = await list_operations(plan_id=plan_id, since_date=yesterday)
    combined = await list_operations(
        plan_id=plan_id, tool="move_money", status="applied", since_date=yesterday
    )

    assert ids_of(by_status) == [failed.pk]
    assert ids_of(by_tool) == [failed.pk, moved.pk, old.pk]
    assert ids_of(by_day) == [flagged.pk, failed.pk, moved.pk]
    assert ids_of(combined) == [moved.pk]


async def test_it_pages_with_a_cursor_bound_to_the_query(plan_id):
    made = [await record(plan_id) for _ in range(5)]

    async with agent() as client:
        pages, cursor = [], None
        for _ in range(5):
            arguments = {"plan_id": plan_id, "limit": 2} | ({"cursor": cursor} if cursor else {})
            result = await client.call_tool("list_operations", arguments)
            pages.append(ids_of(result))
            cursor = result.structured_content["next_cursor"]
            if cursor is None:
                break
        first = await client.call_tool("list_operations", {"plan_id": plan_id, "limit": 2})
        reused = await client.call_tool(
            "list_operations",
            {"plan_id": plan_id, "status": "failed", "cursor": first.structured_content["next_cursor"]},
        )

    assert pages == [[made[4].pk, made[3].pk], [made[2].pk, made[1].pk], [made[0].pk]]
    assert summary(first).endswith("newest first; more with next_cursor.")
    assert reused.is_error
    assert "call again without cursor" in reused.content[0].text


async def test_undoable_means_it_can_still_be_undone(plan_id):
    applied = await record(plan_id)
    unknown = await record(plan_id, status="unknown")
    failed = await record(plan_id, status="failed")
    pending = await record(plan_id, status="pending")
    split = await record(plan_id, tool="split_transaction", undoable=False)
    undone = await record(plan_id)
    undo_question = "Undo: budget Restaurants for 2026-09-01: 150.00 → 120.00?"
    undo = await record(
        plan_id,
        status="pending",
        tool="undo_operation",
        preview=undo_question,
        undo_of=undone,
        undoable=False,
    )
    assert await log.claim_for_undo(undone.pk, undo)
    await log.complete(undo, status="applied")

    result = await list_operations(plan_id=plan_id)

    rows = {row["operation_id"]: row for row in result.structured_content["operations"]}
    undoable = {op_id for op_id, row in rows.items() if row["undoable"]}
    assert undoable == {applied.pk, unknown.pk}
    assert {failed.pk, pending.pk, split.pk} <= set(rows)
    assert (rows[undone.pk]["status"], rows[undone.pk]["undone_by"]) == ("undone", undo.pk)
    assert (rows[undo.pk]["undo_of"], rows[undo.pk]["summary"]) == (undone.pk, undo_question)


async def test_it_refuses_a_malformed_plan_id_date_or_limit_before_any_request(plan_id, ynab_requests):
    bad_plan = await list_operations(plan_id="../plans")
    bad_date = await list_operations(plan_id=plan_id, since_date="2026-02-30")
    bad_form = await list_operations(plan_id=plan_id, since_date="yesterday")
    bad_limit = await list_operations(plan_id=plan_id, limit=500)
    bad_status = await list_operations(plan_id=plan_id, status="done")

    for refused in (bad_plan, bad_date, bad_form, bad_limit, bad_status):
        assert refused.is_error
    assert "use an id from list_plans" in bad_plan.content[0].text
    assert "since_date '2026-02-30' is not a calendar date" in bad_date.content[0].text
    assert "give YYYY-MM-DD" in bad_form.content[0].text
    assert await ynab_requests() == []


async def test_without_a_plan_it_uses_the_configured_default_without_a_request(plan_id, ynab_requests):
    op = await record(plan_id)
    previous = settings.AVENIR_MCP_DEFAULT_PLAN
    settings.AVENIR_MCP_DEFAULT_PLAN = plan_id
    try:
        result = await list_operations()
    finally:
        settings.AVENIR_MCP_DEFAULT_PLAN = previous

    assert ids_of(result) == [op.pk]
    assert result.structured_content["plan_id"] == plan_id
    assert await ynab_requests() == []


async def test_last_used_is_resolved_to_the_real_plan_by_reading_ynab(ynab_requests):
    plan = await sync_to_async(create_plan)(name="Log by alias", first_month=timezone.localdate())
    await SandboxPlan.objects.filter(pk=plan.pk).aupdate(last_used_on=timezone.now())
    op = await record(plan.pk)

    result = await list_operations(plan_id="last-used")

    assert result.structured_content["plan_id"] == plan.pk
    assert ids_of(result) == [op.pk]
    served = await ynab_requests()
    # One read when cold; a second when a cached last-used meant another plan before.
    assert 1 <= len(served) <= 2
    assert all(entry.method == "GET" for entry in served)


async def test_it_is_a_read_tool_that_even_a_read_only_caller_sees():
    server = local_server(Principal.local("reader", read_only=True))

    with anyio.fail_after(20):
        async with Client(server, mode="legacy") as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}

    entry = listed["list_operations"]
    assert entry.annotations.read_only_hint is True
    assert entry.meta == {"avenir-mcp/toolset": "operations"}
    assert set(entry.output_schema["properties"]) == {"plan_id", "operations", "next_cursor"}


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/New_York", "Pacific/Kiritimati"])
async def test_a_since_date_at_either_end_of_the_calendar_is_answered_in_any_time_zone(
    plan_id, settings, zone
):
    settings.TIME_ZONE = zone
    logged = await record(plan_id)

    from_the_start = await list_operations(plan_id=plan_id, since_date="0001-01-01")
    at_the_end = await list_operations(plan_id=plan_id, since_date="9999-12-31")

    assert ids_of(from_the_start) == [logged.pk]
    assert ids_of(at_the_end) == []
