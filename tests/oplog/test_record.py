"""Writing the log: the row before the write, the outcome after, each transition exactly once."""

from __future__ import annotations

import re
import threading

import anyio
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import IntegrityError, connection, transaction

from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation, new_operation_id
from avenir_mcp.tokens.auth import Principal
from tests.helpers.operations import LOCAL, fresh_plan_id, record

pytestmark = pytest.mark.anyio


def _read_from_another_connection(op_id: str) -> Operation | None:
    """The row as a separate database connection sees it: only what is committed."""
    try:
        return Operation.objects.filter(pk=op_id).first()
    finally:
        connection.close()


async def _committed(op_id: str) -> Operation | None:
    return await sync_to_async(_read_from_another_connection, thread_sensitive=False)(op_id)


async def test_it_commits_a_pending_row_before_the_write_and_completes_it_after(plan_id, token):
    principal = Principal.of_token(token)
    op = await record(plan_id, status="pending", principal=principal)

    before = await _committed(op.pk)
    assert before is not None
    assert (before.status, before.completed_at, before.undo_data) == ("pending", None, None)
    assert (before.token_id, before.client, before.confirmed_by) == (token.pk, token.name, "elicitation")
    assert before.preview == "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"

    undo_data = {"month": "2026-09-01", "category_id": "cat-1", "before": 120000, "after": 150000}
    await log.complete(op, status="applied", undo_data=undo_data)

    after = await _committed(op.pk)
    assert (after.status, after.undo_data) == ("applied", undo_data)
    assert after.completed_at is not None
    assert after.completed_at >= after.created_at
    assert (op.status, op.undo_data) == ("applied", undo_data)


async def test_it_keeps_what_happened_when_a_write_failed_or_got_no_answer(plan_id):
    failed = await record(plan_id, status="pending")
    lost = await record(plan_id, status="pending")

    await log.complete(failed, status="failed", error="YNAB answered 500; nothing was changed.")
    await log.complete(lost, status="unknown", error="No answer to the PATCH.", undoable=False)

    failed_row, lost_row = await _committed(failed.pk), await _committed(lost.pk)
    assert (failed_row.status, failed_row.error) == ("failed", "YNAB answered 500; nothing was changed.")
    assert (lost_row.status, lost_row.error) == ("unknown", "No answer to the PATCH.")
    assert lost_row.undoable is False


async def test_it_completes_an_operation_only_once(plan_id):
    op = await record(plan_id, status="pending")
    await log.complete(op, status="applied")
    stale_copy = await Operation.objects.aget(pk=op.pk)

    with pytest.raises(RuntimeError, match="not pending"):
        await log.complete(stale_copy, status="failed", error="late")

    row = await _committed(op.pk)
    assert (row.status, row.error) == ("applied", "")


async def test_it_refuses_outcomes_that_are_not_outcomes(plan_id):
    op = await record(plan_id, status="pending")

    for status in ("pending", "undone", "done"):
        with pytest.raises(ValueError, match="applied, failed or unknown"):
            await log.complete(op, status=status)

    assert (await _committed(op.pk)).status == "pending"


async def test_it_refuses_an_unknown_way_of_confirming(plan_id):
    with pytest.raises(ValueError, match="confirmed_by"):
        await record(plan_id, confirmed_by="the agent said so")

    assert not await Operation.objects.filter(plan_id=plan_id).aexists()


async def test_it_refuses_to_record_an_undo_as_undoable(plan_id):
    original = await record(plan_id)

    with pytest.raises(ValueError, match="not undoable"):
        await record(plan_id, undo_of=original, undoable=True)
    undo = await record(plan_id, status="pending", undo_of=original, undoable=False)
    with pytest.raises(ValueError, match="not undoable"):
        await log.complete(undo, status="applied", undoable=True)


async def test_it_gives_every_operation_its_own_unguessable_id(plan_id):
    ops = [await record(plan_id, status="pending") for _ in range(50)]

    ids = {op.pk for op in ops}
    assert len(ids) == 50
    assert all(re.fullmatch(r"[A-Za-z0-9]{12}", op_id) for op_id in ids)
    assert len({op.correlation_id for op in ops}) == 50


async def test_it_draws_another_id_when_the_drawn_one_is_taken(plan_id, monkeypatch):
    existing = await record(plan_id)
    fresh_id = new_operation_id()
    draws = iter([existing.pk, fresh_id])
    monkeypatch.setattr("avenir_mcp.oplog.log.new_operation_id", lambda: next(draws))

    op = await record(plan_id, tool="flag_transactions")

    assert op.pk == fresh_id
    assert (await _committed(existing.pk)).tool == "set_category_budget"


async def test_it_gives_up_without_a_row_when_every_drawn_id_is_taken(plan_id, monkeypatch):
    existing = await record(plan_id)
    monkeypatch.setattr("avenir_mcp.oplog.log.new_operation_id", lambda: existing.pk)

    with pytest.raises(IntegrityError, match=r"No free operation id after 5 draws\."):
        await record(plan_id, tool="flag_transactions")

    assert await Operation.objects.filter(plan_id=plan_id).acount() == 1
    assert not log.being_written(existing.pk)


async def test_a_row_the_database_refuses_for_another_reason_is_not_retried(plan_id):
    gone = Operation(pk="NoSuchOp0000", plan_id=plan_id, tool="set_category_budget")

    with pytest.raises(IntegrityError):
        await record(plan_id, status="pending", undo_of=gone, undoable=False)

    assert await Operation.objects.filter(plan_id=plan_id).acount() == 0


async def test_a_row_is_settled_once_a_second_reader_of_the_same_row_changes_nothing(plan_id):
    op = await record(plan_id, status="unknown")
    first, second = await Operation.objects.aget(pk=op.pk), await Operation.objects.aget(pk=op.pk)

    assert await log.settle(first, status="applied", error="Settled: all landed.")
    assert not await log.settle(second, status="failed", error="Settled: nothing landed.")

    row = await _committed(op.pk)
    assert (row.status, row.error, row.settled_at is not None) == ("applied", "Settled: all landed.", True)
    assert (second.status, second.settled_at) == ("unknown", None)


def test_it_refuses_to_log_inside_a_callers_transaction_where_a_crash_would_lose_the_row():
    plan_id = fresh_plan_id()
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        async_to_sync(record)(plan_id, status="pending")

    assert not Operation.objects.filter(plan_id=plan_id).exists()


# --- claiming an operation for undo ------------------------------------------------------------


async def _undo_of(op: Operation) -> Operation:
    return await record(op.plan_id, status="pending", tool="undo_operation", undo_of=op, undoable=False)


async def test_two_concurrent_undos_of_one_operation_let_exactly_one_proceed(plan_id):
    original = await record(plan_id)
    first, second = await _undo_of(original), await _undo_of(original)
    results: dict[str, bool] = {}

    async def claim(undo: Operation) -> None:
        results[undo.pk] = await log.claim_for_undo(original.pk, undo)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(claim, first)
            group.start_soon(claim, second)

    assert sorted(results.values()) == [False, True]
    winner = next(undo_id for undo_id, won in results.items() if won)
    row = await _committed(original.pk)
    assert (row.status, row.undone_by_id) == ("undone", winner)


def test_undos_racing_on_separate_connections_let_exactly_one_proceed():
    plan_id = fresh_plan_id()
    original = async_to_sync(record)(plan_id)
    undos = [async_to_sync(_undo_of)(original) for _ in range(8)]
    start = threading.Barrier(len(undos), timeout=10)
    won: list[str] = []

    def race(undo: Operation) -> None:
        try:
            start.wait()
            if async_to_sync(log.claim_for_undo)(original.pk, undo):
                won.append(undo.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(undo,)) for undo in undos]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not any(thread.is_alive() for thread in threads)
    assert len(won) == 1
    original.refresh_from_db()
    assert (original.status, original.undone_by_id) == ("undone", won[0])


async def test_an_unknown_outcome_can_be_claimed_for_undo(plan_id):
    lost = await record(plan_id, status="unknown")

    assert await log.claim_for_undo(lost.pk, await _undo_of(lost))


async def test_it_does_not_claim_what_is_not_in_effect_or_cannot_be_undone(plan_id):
    pending = await record(plan_id, status="pending")
    failed = await record(plan_id, status="failed")
    not_undoable = await record(plan_id, tool="import_transactions", undoable=False)
    undone = await record(plan_id)
    an_undo = await _undo_of(undone)
    assert await log.claim_for_undo(undone.pk, an_undo)
    await log.complete(an_undo, status="applied")

    for op in (pending, failed, not_undoable, undone, an_undo):
        assert not await log.claim_for_undo(op.pk, await _undo_of(op)), op.tool

    statuses = [(await _committed(op.pk)).status for op in (pending, failed, not_undoable)]
    assert statuses == ["pending", "failed", "applied"]


async def test_it_refuses_a_claim_by_an_undo_begun_for_another_operation(plan_id):
    one, other = await record(plan_id), await record(plan_id)

    with pytest.raises(ValueError, match="undo of"):
        await log.claim_for_undo(other.pk, await _undo_of(one))

    assert (await _committed(other.pk)).status == "applied"


async def test_a_released_claim_puts_the_operation_back_as_it_was(plan_id):
    lost = await record(plan_id, status="unknown")
    undo, intruder = await _undo_of(lost), await _undo_of(lost)
    assert await log.claim_for_undo(lost.pk, undo)

    assert not await log.release_undo_claim(lost.pk, intruder, status="unknown")
    assert await log.release_undo_claim(lost.pk, undo, status="unknown")

    row = await _committed(lost.pk)
    assert (row.status, row.undone_by_id) == ("unknown", None)
    assert await log.claim_for_undo(lost.pk, intruder)


async def test_it_records_local_calls_without_a_token(plan_id):
    op = await record(plan_id, principal=LOCAL)

    row = await _committed(op.pk)
    assert (row.token_id, row.client) == (None, "stdio")
