"""Settling's verdicts (`oplog.settling`) on rows whose outcome is open, item by item.

Each row is logged as a write tool leaves it (`tests.helpers.undo.logged`) with the framework's
own write kind (`tests.undo.budget_undo`: two categories' assigned amounts); the categories are
then set in the live sandbox as much of the write as landed, and `settle_plan` reads the plan over
real HTTP and records what YNAB's state says: all, none, part of it, or that YNAB cannot tell.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Iterator
from datetime import timedelta

import anyio
import pytest
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.kinds import Settlement, WriteKind, register
from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok
from tests.helpers.sandbox_side import inject
from tests.helpers.undo import Budgets, agent, fresh, logged, set_assigned, undo

pytestmark = pytest.mark.anyio

PREFIX = "Settled from YNAB's state:"


@pytest.fixture(autouse=True)
def _no_backoff_left() -> Iterator[None]:
    """A plan or row an earlier test could not settle is tried at once here, and none is left after."""
    settling.backoff.forget()
    yield
    settling.backoff.forget()


async def lost(budgets: Budgets, undo_data: dict | None = None) -> Operation:
    """`budgets`' write logged once more, its answer lost (`unknown`)."""
    return await logged(budgets.plan_id, status="unknown", undo_data=undo_data or budgets.op.undo_data)


async def settled(budgets: Budgets, op: Operation) -> Operation:
    assert await settling.settle_plan(budgets.plan_id) == 1
    return await fresh(op)


async def test_part_landed_and_part_as_before_is_applied_for_what_landed(budgets):
    op = await lost(budgets)
    dining = budgets.items[1]
    await set_assigned(budgets.plan_id, budgets.month, dining["category_id"], dining["before"])

    done = await settled(budgets, op)

    assert (done.status, done.settled_at is not None) == ("applied", True)
    assert done.error == (
        f"{PREFIX} 1 of 2 item(s) landed; 1 did not (as before). "
        "undo_operation restores only what landed (its preview names them)."
    )


async def test_part_landed_and_part_changed_since_names_the_changed_item(budgets):
    op = await lost(budgets)
    dining = budgets.items[1]
    await set_assigned(budgets.plan_id, budgets.month, dining["category_id"], dining["after"] + 1_000)

    done = await settled(budgets, op)

    assert done.status == "applied"
    assert done.error.startswith(
        f"{PREFIX} 1 of 2 item(s) landed; 1 changed since, so YNAB cannot tell: "
        f"Dining Out ({dining['category_id']}): assigned is now "
    )
    assert done.error.endswith(". undo_operation restores only what landed (its preview names them).")


async def test_nothing_landed_but_one_changed_since_stays_unknown_saying_what_to_check(budgets):
    op = await lost(budgets)
    groceries, dining = budgets.items
    await set_assigned(budgets.plan_id, budgets.month, groceries["category_id"], groceries["before"])
    await set_assigned(budgets.plan_id, budgets.month, dining["category_id"], dining["after"] + 1_000)

    done = await settled(budgets, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error.startswith(
        f"{PREFIX} YNAB cannot tell whether it landed: 1 item(s) changed since (Dining Out "
        f"({dining['category_id']}): assigned is now "
    )
    assert done.error.endswith(
        "; 1 are as before. Check them in YNAB; undo_operation never overwrites a change made since."
    )


async def test_an_operation_holding_no_item_stays_unknown(budgets):
    op = await lost(budgets, {"month": budgets.month, "categories": []})

    done = await settled(budgets, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == f"{PREFIX} the operation holds no item to compare with YNAB."


async def test_a_tool_this_server_has_no_undo_for_stays_unknown_saying_so(budgets):
    op = await logged(budgets.plan_id, tool="retired_tool", status="unknown")

    done = await settled(budgets, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == (
        f"{PREFIX} nothing of retired_tool can be compared with YNAB, so its outcome stays unknown. "
        "Check the plan in YNAB."
    )


async def test_an_undo_of_a_tool_without_undo_stays_unknown_and_its_original_in_effect(budgets):
    original = await logged(budgets.plan_id, tool="retired_tool", undo_data={"ids": ["t1"]})
    undo = await logged(
        budgets.plan_id, tool="undo_operation", status="unknown", undoable=False, undo_of=original
    )

    done = await settled(budgets, undo)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error.startswith(f"{PREFIX} nothing of undo_operation can be compared with YNAB")
    assert ((await fresh(original)).status, (await fresh(original)).undone_by_id) == ("applied", None)


async def test_a_row_its_kind_cannot_read_is_left_unsettled_and_tried_again_later(budgets, caplog):
    op = await lost(budgets, {"month": budgets.month})  # no "categories": its reversal fails on it

    with caplog.at_level(logging.ERROR, logger="avenir_mcp.oplog.settling"):
        assert await settling.settle_plan(budgets.plan_id) == 0
    assert await settling.settle_plan(budgets.plan_id) == 0  # not at once: after a minute

    left = await fresh(op)
    assert (left.status, left.settled_at, left.error) == ("unknown", None, "")
    assert f"Settling operation {op.pk} (undo_test_budgets) failed; it is tried again later" in caplog.text
    assert not settling.backoff.ready(op.pk)


async def test_a_row_whose_last_request_ynab_may_still_process_is_not_judged_yet(budgets):
    op = await lost(budgets)
    previous = settings.AVENIR_MCP_SETTLE_AFTER_SECONDS
    settings.AVENIR_MCP_SETTLE_AFTER_SECONDS = 3600
    try:
        assert await settling.settle_plan(budgets.plan_id) == 0
    finally:
        settings.AVENIR_MCP_SETTLE_AFTER_SECONDS = previous

    assert ((await fresh(op)).status, (await fresh(op)).settled_at) == ("unknown", None)
    assert (await settled(budgets, op)).status == "applied"


async def test_a_pending_row_of_a_process_on_another_host_waits_until_it_is_stale(budgets):
    op = await logged(budgets.plan_id, status="pending", undo_data=budgets.op.undo_data)
    log.finished_writing(op)  # not written by this process: by one on another host
    await Operation.objects.filter(pk=op.pk).aupdate(
        writer=f"not-{socket.gethostname()}"[:80] + ":4242", undo_data=budgets.op.undo_data
    )

    assert await settling.settle_plan(budgets.plan_id) == 0  # that process may still be sending
    assert (await fresh(op)).status == "pending"

    long_ago = timezone.now() - timedelta(seconds=settling.STALE_PENDING_SECONDS + 60)
    await Operation.objects.filter(pk=op.pk).aupdate(created_at=long_ago)
    done = await settled(budgets, op)

    assert done.status == "applied"
    assert done.error == f"{PREFIX} all 2 item(s) are in YNAB as the operation left them."


async def test_a_kind_that_neither_settles_nor_plans_an_undo_stays_unknown_saying_so(budgets):
    class NothingToCompare(WriteKind):
        name = "settling_nothing_to_compare"

    register(NothingToCompare())
    op = await logged(budgets.plan_id, tool="settling_nothing_to_compare", status="unknown", undo_data={})

    done = await settled(budgets, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == (
        f"{PREFIX} nothing of settling_nothing_to_compare can be compared with YNAB, so its outcome stays "
        "unknown. Check the plan in YNAB."
    )


async def test_an_undo_whose_answer_was_lost_before_it_landed_is_failed_and_can_be_tried_again(budgets):
    await inject("drop_before_write", method="PATCH", path=rf"^/plans/{budgets.plan_id}/months/")
    async with agent() as client:
        first = ok(await undo(client, plan_id=budgets.plan_id, operation_id=budgets.op.pk))
        lost = await undo(
            client, plan_id=budgets.plan_id, operation_id=budgets.op.pk, confirmation=first["confirmation"]
        )
    assert lost.is_error
    undo_row = await Operation.objects.aget(undo_of_id=budgets.op.pk)
    assert undo_row.status == "unknown"

    done = await settled(budgets, undo_row)

    assert (done.status, done.settled_at is not None) == ("failed", True)
    assert done.error == (
        f"{PREFIX} the undo did not land: the 2 item(s) it was to restore are still as {budgets.op.pk} "
        "left them; undo_operation can try again."
    )
    original = await fresh(budgets.op)
    assert (original.status, original.undone_by_id) == ("applied", None)
    assert await budgets.current() == budgets.after


@pytest.mark.subprocesses
async def test_a_pending_row_whose_writer_still_runs_on_this_host_is_left_to_it(budgets):
    op = await logged(budgets.plan_id, status="pending", undo_data=budgets.op.undo_data)
    log.finished_writing(op)  # not written by this process: by another one on this host
    writer = await anyio.open_process([sys.executable, "-c", "import signal; signal.pause()"])  # until killed
    try:
        await Operation.objects.filter(pk=op.pk).aupdate(
            writer=f"{socket.gethostname()[:80]}:{writer.pid}", undo_data=budgets.op.undo_data
        )
        assert await settling.settle_plan(budgets.plan_id) == 0  # that process may still be sending
    finally:
        writer.kill()
        await writer.wait()
        await writer.aclose()

    assert ((await fresh(op)).status, (await fresh(op)).settled_at) == ("pending", None)
    done = await settled(budgets, op)  # its writer is gone now: settled from YNAB's state
    assert done.error == f"{PREFIX} all 2 item(s) are in YNAB as the operation left them."


async def test_a_row_another_round_is_judging_is_left_to_that_round(budgets):
    """A second round (the background loop while list_operations settles first) skips the row the
    first one holds: it is judged, and its set-back sent, once."""
    inner_rounds: list[int] = []

    class JudgedWhileAnotherRoundRuns(WriteKind):
        name = "settling_judged_slowly"

        async def settle(self, client, snapshot, op) -> Settlement:
            inner_rounds.append(await settling.settle_plan(op.plan_id))  # a second round, meanwhile
            return Settlement("failed", f"{PREFIX} nothing landed.", "none")

    register(JudgedWhileAnotherRoundRuns())

    op = await logged(budgets.plan_id, tool="settling_judged_slowly", status="unknown")

    done = await settled(budgets, op)

    assert inner_rounds == [0]
    assert (done.status, done.error) == ("failed", f"{PREFIX} nothing landed.")


async def test_a_row_settled_elsewhere_meanwhile_keeps_that_verdict(budgets, caplog):
    """Another process on the same database settled the row while this round read YNAB: its
    verdict stays; this round's is not written over it."""

    class OvertakenByAnotherProcess(WriteKind):
        name = "settling_overtaken"

        async def settle(self, client, snapshot, op) -> Settlement:
            elsewhere = await Operation.objects.aget(pk=op.pk)
            assert await log.settle(elsewhere, status="failed", error="Settled by the other process.")
            return Settlement("applied", f"{PREFIX} all landed.", "all")

    register(OvertakenByAnotherProcess())

    op = await logged(budgets.plan_id, tool="settling_overtaken", status="unknown")

    with caplog.at_level(logging.INFO, logger="avenir_mcp.oplog.settling"):
        assert await settling.settle_plan(budgets.plan_id) == 0

    done = await fresh(op)
    assert (done.status, done.error, done.settled_at is not None) == (
        "failed",
        "Settled by the other process.",
        True,
    )
    assert f"Settled operation {op.pk}" not in caplog.text
    assert settling.backoff.ready(op.pk)  # judged: nothing left to try again


async def test_the_background_loop_logs_a_failed_round_and_settles_on_the_next(budgets, monkeypatch, caplog):
    """A round that fails as a whole (the database went away: the service's own database cannot be
    made to fail for one query, so that one call is replaced) is logged, and the loop goes on."""
    op = await lost(budgets)
    rounds: list[str] = []
    done_once = anyio.Event()

    async def one_failing_round() -> int:
        if not rounds:
            rounds.append("failed")
            raise OperationalError("database is locked")
        rounds.append("settled")
        settled_now = await settling.settle_plan(budgets.plan_id)  # this test's plan: no other's rows
        done_once.set()
        return settled_now

    monkeypatch.setattr(settling, "settle_everything", one_failing_round)
    monkeypatch.setattr(settings, "AVENIR_MCP_SETTLE_SECONDS", 0.01)
    with caplog.at_level(logging.ERROR, logger="avenir_mcp.oplog.settling"), anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(settling.keep_settling)
            await done_once.wait()
            tasks.cancel_scope.cancel()

    assert rounds[:2] == ["failed", "settled"]  # the round after the failure settled the row
    assert "Settling failed; trying again next round" in caplog.text
    assert "database is locked" in caplog.text
    assert ((await fresh(op)).status, (await fresh(op)).settled_at is not None) == ("applied", True)


async def test_a_plan_whose_round_fails_holds_back_no_other_plan(budgets, monkeypatch, caplog):
    """Plans are settled in the same order every round: one failing for another reason than YNAB
    (a bug, the database) is logged and tried next round, and the plans after it are settled."""
    broken = "00000000-0000-4000-8000-000000000000"  # before any other plan id: settled first
    stuck = await logged(broken, status="unknown")
    op = await lost(budgets)
    real_settle_plan = settling.settle_plan

    async def broken_plan_fails(plan_id: str) -> int:
        if plan_id == broken:
            raise OperationalError("database is locked")
        if plan_id != budgets.plan_id:
            return 0  # other tests' rows in this database are theirs to settle
        return await real_settle_plan(plan_id)

    monkeypatch.setattr(settling, "settle_plan", broken_plan_fails)
    try:
        with caplog.at_level(logging.ERROR, logger="avenir_mcp.oplog.settling"):
            assert await settling.settle_everything() == 1

        assert f"Settling plan {broken} failed; trying it again next round" in caplog.text
        assert ((await fresh(op)).status, (await fresh(op)).settled_at is not None) == ("applied", True)
        assert (await fresh(stuck)).settled_at is None  # left for the next round
    finally:
        await Operation.objects.filter(pk=stuck.pk).adelete()  # no other test's round meets it
