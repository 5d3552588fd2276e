"""reconcile_account when the marking is refused after the adjustment landed and the adjustment
cannot be deleted again at once: the row stays pending, says exactly what is in YNAB, and
settling deletes the adjustment later (or finds it gone).

Through the MCP SDK client and the live sandbox's fault hook, as `test_reconcile_account`.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tools.logic.reconcile import ADJUSTMENT_MEMO, ADJUSTMENT_PAYEE
from avenir_mcp.tools.writes.assigned_pair import SET_BACK_WAIT_LIMIT
from avenir_mcp.ynab_client import get_ynab_client
from tests.helpers.write_cases.reconcile_account import reconciling, set_cleared
from tests.writes.checks import latest_operation, standing, ynab
from tests.writes.harness import MODERN, WriteCase, call, connected, content, error_text
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


@pytest.fixture
async def adjusting(home: Household) -> WriteCase:
    return await reconciling(home, gap=5_000)


async def marking_refused(adjusting: WriteCase, *, delete_fault: tuple[str, int | None] | None, **marking):
    """The adjustment lands, the marking PATCH is refused (`marking`), and the DELETE that would
    take the adjustment back meets `delete_fault`; the result's text and the row."""
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)("status", method="PATCH", path=adjusting.write_path, **marking)
        if delete_fault is not None:
            kind, status = delete_fault
            await sync_to_async(faults.inject)(kind, method="DELETE", path="/transactions/", status=status)
        result = await call(client, adjusting, confirmation=first["confirmation"])
    return error_text(result, adjusting), await latest_operation(adjusting)


def refused_start(adjusting: WriteCase) -> str:
    count = len(adjusting.extra["to_reconcile"]) + 1
    return f"Marking the {count} transaction(s) reconciled failed, so none is: "


async def settled_later(adjusting: WriteCase, op: Operation) -> Operation:
    get_ynab_client().sender.pacer.forget()  # YNAB's pause is over
    settling.backoff.forget()
    await settling.settle_plan(adjusting.plan_id)
    return await Operation.objects.aget(pk=op.pk)


@pytest.mark.parametrize(
    ("delete_fault", "why"),
    [
        (("status", 400), "deleting it failed: "),
        (("drop_before_write", None), "deleting it got no answer"),
    ],
)
async def test_an_adjustment_that_cannot_be_deleted_again_is_left_pending_and_settling_deletes_it(
    adjusting, delete_fault, why
):
    start = await standing(adjusting)

    text, op = await marking_refused(adjusting, delete_fault=delete_fault, status=500)

    adjustment_id = op.undo_data["adjustment_id"]
    assert text.startswith(refused_start(adjusting))
    assert (
        f"The adjustment of +5.00 entered first (transaction {adjustment_id}) is still in YNAB ({why}" in text
    )
    assert text.endswith(
        "); this service deletes it shortly (list_operations shows when). "
        f"The log keeps this as operation {op.pk} (pending)."
    )
    assert (op.status, op.error) == ("pending", text)

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("failed", True)
    assert done.error.endswith(
        f"(transaction {adjustment_id}) and was deleted again, so the account is as before."
    )
    assert await adjusting.state() == start.state


async def test_a_marking_paused_by_ynab_beyond_a_rollbacks_wait_leaves_the_adjustment_to_settling(adjusting):
    start = await standing(adjusting)

    text, op = await marking_refused(
        adjusting, delete_fault=None, status=429, delay_ms=(SET_BACK_WAIT_LIMIT + 60) * 1000
    )

    adjustment_id = op.undo_data["adjustment_id"]
    assert text.startswith(refused_start(adjusting))
    assert (
        f"(transaction {adjustment_id}) is still in YNAB (YNAB asks to wait longer than a rollback may); "
        "this service deletes it shortly"
    ) in text
    assert op.status == "pending"
    assert await adjusting.state() != start.state  # the adjustment is in YNAB meanwhile

    done = await settled_later(adjusting, op)

    assert done.status == "failed"
    assert await adjusting.state() == start.state


async def test_an_adjustment_already_gone_when_deleted_again_counts_as_deleted(adjusting):
    start = await standing(adjusting)

    text, op = await marking_refused(adjusting, delete_fault=("status", 404), status=500)

    assert text.startswith(refused_start(adjusting))
    assert "was deleted again, so nothing changed; calling reconcile_account again starts over." in text
    assert op.status == "failed"
    # the sandbox answered 404 without deleting: YNAB would have had it gone already
    assert (await adjusting.state())[0] == start.state[0]


async def adjustment_lost(adjusting: WriteCase, fault: str) -> Operation:
    """The adjustment's POST gets no answer (`fault`): the row is unknown, nothing was marked."""
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)(fault, method="POST", path=adjusting.write_path)
        await call(client, adjusting, confirmation=first["confirmation"])
    op = await latest_operation(adjusting)
    assert op.status == "unknown"
    return op


async def test_an_adjustment_lost_before_it_was_entered_settles_failed(adjusting):
    start = await standing(adjusting)
    op = await adjustment_lost(adjusting, "drop_before_write")

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("failed", True)
    assert done.error == (
        "Settled from YNAB's state: no adjustment is in YNAB and nothing was reconciled: nothing changed."
    )
    assert await adjusting.state() == start.state


async def test_two_transactions_that_could_be_the_lost_adjustment_leave_it_unknown_saying_what_to_check(
    adjusting, home
):
    op = await adjustment_lost(adjusting, "drop_after_write")
    account = home.home.checking
    lookalike = {"account_id": account, "date": today().isoformat(), "amount": 5_000, "memo": ADJUSTMENT_MEMO}
    await ynab("POST", f"/plans/{home.id}/transactions", json={"transaction": lookalike})  # the person

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == cannot_tell(op)


def cannot_tell(op: Operation) -> str:
    """Settling's sentence when YNAB cannot tell whether the adjustment landed: what to check."""
    return (
        "Settled from YNAB's state: YNAB cannot tell whether the adjustment landed: check find_transactions "
        f"on Checking for a '{ADJUSTMENT_PAYEE}' dated {op.created_at.date().isoformat()}, and which "
        "transactions are reconciled."
    )


async def marking_lost(adjusting: WriteCase, fault: str) -> Operation:
    """The adjustment lands, the marking PATCH gets no answer (`fault`): the row is unknown and
    names the adjustment."""
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)(fault, method="PATCH", path=adjusting.write_path)
        await call(client, adjusting, confirmation=first["confirmation"])
    op = await latest_operation(adjusting)
    assert op.status == "unknown"
    assert op.undo_data["adjustment_id"] is not None
    return op


async def test_an_adjustment_changed_since_a_lost_marking_leaves_it_unknown_saying_what_to_check(adjusting):
    op = await marking_lost(adjusting, "drop_after_write")
    body = {"transactions": [{"id": op.undo_data["adjustment_id"], "memo": "checked with the bank"}]}
    await ynab("PATCH", f"/plans/{adjusting.plan_id}/transactions", json=body)  # the person

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == cannot_tell(op)


def all_but_one_landed(adjusting: WriteCase) -> str:
    """Settling's sentence when the adjustment and the marks all landed but one (as before)."""
    count = len(adjusting.extra["to_reconcile"])
    return (
        f"Settled from YNAB's state: {count} of {count + 1} item(s) landed; 1 did not (as before). "
        "undo_operation restores only what landed (its preview names them)."
    )


async def test_marks_that_landed_with_the_adjustment_deleted_since_are_applied_for_the_marks(adjusting):
    op = await marking_lost(adjusting, "drop_after_write")
    await ynab("DELETE", f"/plans/{adjusting.plan_id}/transactions/{op.undo_data['adjustment_id']}")

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("applied", True)
    assert done.error == all_but_one_landed(adjusting)
    statuses, new = await adjusting.state()
    assert (statuses, new) == (adjusting.expected_after[0], [])


async def test_the_adjustment_and_part_of_the_marks_in_ynab_are_applied_for_what_landed(adjusting):
    op = await marking_lost(adjusting, "drop_after_write")
    unmarked = adjusting.extra["to_reconcile"][0]
    await set_cleared(adjusting.plan_id, [unmarked], "cleared")  # the person, since

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("applied", True)
    assert done.error == all_but_one_landed(adjusting)
    assert (await adjusting.state())[1] == adjusting.expected_after[1]  # the adjustment is kept


async def test_an_adjustment_settling_cannot_delete_yet_stays_pending_and_is_deleted_on_a_later_pass(
    adjusting,
):
    start = await standing(adjusting)
    op = await marking_lost(adjusting, "drop_before_write")
    adjustment_id = op.undo_data["adjustment_id"]
    await sync_to_async(faults.inject)(
        "status", method="DELETE", path=f"/transactions/{adjustment_id}$", status=400
    )

    left = await settled_later(adjusting, op)

    assert (left.status, left.settled_at) == ("pending", None)
    assert left.error == (
        f"Settled from YNAB's state: the adjustment of +5.00 (transaction {adjustment_id}) is in YNAB but "
        "nothing was reconciled; deleting it failed: YNAB refused the request as invalid (400). YNAB said: "
        "Bad Request (a fault injected in the sandbox; the request was not run), so it is tried again."
    )
    assert await adjusting.state() != start.state  # the adjustment is in YNAB meanwhile

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("failed", True)
    assert done.error.endswith(
        f"(transaction {adjustment_id}) and was deleted again, so the account is as before."
    )
    assert await adjusting.state() == start.state


async def test_a_lost_adjustment_logged_without_the_plans_knowledge_is_left_unknown_and_not_deleted(
    adjusting,
):
    """A row logged before reconcile_account recorded `knowledge_before` (or whose stored field is
    unreadable): the plan's whole history cannot tell this adjustment from an earlier one, so
    settling neither claims nor deletes any: it says what to check."""
    op = await adjustment_lost(adjusting, "drop_after_write")
    stored = {key: value for key, value in op.undo_data.items() if key != "knowledge_before"}
    await Operation.objects.filter(pk=op.pk).aupdate(undo_data=stored)

    done = await settled_later(adjusting, op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == cannot_tell(op)
    new = (await adjusting.state())[1]
    assert [(row[1], row[4]) for row in new] == [(5_000, ADJUSTMENT_MEMO)]  # the landed adjustment is kept


async def test_a_lost_marking_without_an_adjustment_is_judged_item_by_item(home):
    case = await reconciling(home, gap=0)
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        await sync_to_async(faults.inject)("drop_after_write", method="PATCH", path=case.write_path)
        await call(client, case, confirmation=first["confirmation"])
    op = await latest_operation(case)
    assert op.status == "unknown"

    done = await settled_later(case, op)

    count = len(case.extra["to_reconcile"])
    assert (done.status, done.settled_at is not None) == ("applied", True)
    assert (
        done.error
        == f"Settled from YNAB's state: all {count} item(s) are in YNAB as the operation left them."
    )
    assert await case.state() == case.expected_after
