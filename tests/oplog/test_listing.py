"""Reading the log: one operation, the latest still in effect, and pages of a plan's history."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.paging import CURSOR_REFUSAL, OFFSET_CURSOR, sign_cursor
from tests.helpers.operations import fresh_plan_id, record

pytestmark = pytest.mark.anyio


async def _backdate(op: Operation, when: dt.datetime) -> None:
    await Operation.objects.filter(pk=op.pk).aupdate(created_at=when)


async def test_it_finds_an_operation_only_in_its_own_plan(plan_id):
    op = await record(plan_id)

    found = await log.get(plan_id, op.pk)

    assert found is not None
    assert found.pk == op.pk
    assert await log.get(fresh_plan_id(), op.pk) is None
    assert await log.get(plan_id, "000000000000") is None


async def test_the_latest_in_effect_is_the_newest_applied_or_unknown_from_any_client(plan_id, token):
    other_client = Principal.of_token(token)
    older = await record(plan_id)
    lost = await record(plan_id, status="unknown", principal=other_client)
    await record(plan_id, status="failed")
    await record(plan_id, status="pending")
    await record(fresh_plan_id())

    assert (await log.latest_in_effect(plan_id)).pk == lost.pk

    undo = await record(plan_id, status="pending", undo_of=lost, undoable=False)
    assert await log.claim_for_undo(lost.pk, undo)
    assert (await log.latest_in_effect(plan_id)).pk == older.pk
    # An applied undo is in effect too: undo_operation then refuses it by name.
    await log.complete(undo, status="applied")
    assert (await log.latest_in_effect(plan_id)).pk == undo.pk


async def test_a_plan_without_operations_in_effect_has_no_latest(plan_id):
    await record(plan_id, status="failed")

    assert await log.latest_in_effect(plan_id) is None


async def test_it_lists_a_plans_operations_newest_first_in_pages_that_cover_each_once(plan_id):
    made = [await record(plan_id) for _ in range(7)]
    await record(fresh_plan_id())
    query = log.OperationQuery(plan_id=plan_id)

    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = await log.page(query, limit=3, cursor=cursor)
        seen += [op.pk for op in page.operations]
        cursor = page.next_cursor
        if cursor is None:
            break

    assert seen == [op.pk for op in reversed(made)]


async def test_a_page_stays_put_when_operations_are_logged_meanwhile(plan_id):
    made = [await record(plan_id) for _ in range(4)]
    query = log.OperationQuery(plan_id=plan_id)
    first = await log.page(query, limit=2)

    newer = await record(plan_id)
    second = await log.page(query, limit=2, cursor=first.next_cursor)

    assert [op.pk for op in second.operations] == [made[1].pk, made[0].pk]
    assert second.next_cursor is None
    assert newer.pk not in [op.pk for op in first.operations + second.operations]


async def test_it_filters_by_status_tool_and_day(plan_id):
    now = timezone.now()
    old = await record(plan_id, tool="move_money")
    await _backdate(old, now - dt.timedelta(days=3))
    moved = await record(plan_id, tool="move_money")
    failed = await record(plan_id, tool="move_money", status="failed")
    budgeted = await record(plan_id, tool="set_category_budget")

    def listing(**filters: object) -> log.OperationQuery:
        return log.OperationQuery(plan_id=plan_id, **filters)

    by_tool = await log.page(listing(tool="move_money"))
    by_status = await log.page(listing(status="failed"))
    since = await log.page(listing(since=log.start_of_day(timezone.localdate() - dt.timedelta(days=1))))

    assert [op.pk for op in by_tool.operations] == [failed.pk, moved.pk, old.pk]
    assert [op.pk for op in by_status.operations] == [failed.pk]
    assert {op.pk for op in since.operations} == {moved.pk, failed.pk, budgeted.pk}


async def test_since_includes_the_first_moment_of_the_day(plan_id):
    day = timezone.localdate() - dt.timedelta(days=5)
    at_midnight = await record(plan_id)
    just_before = await record(plan_id)
    await _backdate(at_midnight, log.start_of_day(day))
    await _backdate(just_before, log.start_of_day(day) - dt.timedelta(microseconds=1))

    page = await log.page(log.OperationQuery(plan_id=plan_id, since=log.start_of_day(day)))

    assert [op.pk for op in page.operations] == [at_midnight.pk]


async def test_it_refuses_a_cursor_from_another_query_or_a_tampered_one(plan_id):
    for _ in range(3):
        await record(plan_id)
    query = log.OperationQuery(plan_id=plan_id)
    cursor = (await log.page(query, limit=1)).next_cursor
    assert cursor is not None

    refused = [
        (log.OperationQuery(plan_id=fresh_plan_id()), "list_operations", cursor),
        (log.OperationQuery(plan_id=plan_id, status="applied"), "list_operations", cursor),
        (query, "api", cursor),
        (query, "list_operations", cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")),
        (query, "list_operations", "not-a-cursor"),
    ]
    for other_query, scope, given in refused:
        with pytest.raises(log.InvalidCursor, match="call again without cursor"):
            await log.page(other_query, limit=1, cursor=given, scope=scope)


async def test_it_refuses_a_cursor_of_another_kind_of_listing_for_the_same_query(plan_id):
    first, second = await record(plan_id), await record(plan_id)
    query = log.OperationQuery(plan_id=plan_id)
    key = log._query_key("list_operations", query)
    position = [second.created_at.isoformat(), second.pk]

    resumed = await log.page(query, limit=1, cursor=sign_cursor(log.KEYSET_CURSOR, key, position))
    with pytest.raises(log.InvalidCursor) as refused:
        await log.page(query, limit=1, cursor=sign_cursor(OFFSET_CURSOR, key, position))

    assert [op.pk for op in resumed.operations] == [first.pk]
    assert str(refused.value) == CURSOR_REFUSAL


async def test_it_refuses_a_stale_cursor_made_under_a_retired_secret_key(plan_id, settings):
    for _ in range(2):
        await record(plan_id)
    query = log.OperationQuery(plan_id=plan_id)
    cursor = (await log.page(query, limit=1)).next_cursor
    settings.SECRET_KEY = "another key " + settings.SECRET_KEY

    with pytest.raises(log.InvalidCursor) as refused:
        await log.page(query, limit=1, cursor=cursor)
    assert str(refused.value) == CURSOR_REFUSAL


async def test_it_keeps_pages_within_bounds(plan_id):
    for limit in (0, log.MAX_PAGE + 1):
        with pytest.raises(ValueError, match="limit"):
            await log.page(log.OperationQuery(plan_id=plan_id), limit=limit)
