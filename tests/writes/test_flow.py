"""The write flow's log around `apply`: every way a write can end leaves its row completed, honestly.

The paths through YNAB (answers, lost answers, refusals, pacing) are covered per tool with the
sandbox's faults (`tests.writes.fault_paths`). These tests cover what only `apply` itself can
do: report a failure it understands (`WriteFailed`), fail with a bug, be cancelled, or get a
2xx answer it cannot read, which the sandbox never sends.
"""

from __future__ import annotations

import uuid

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from confirmations.preview import Preview
from oplog import log
from oplog.models import Operation
from tokens.auth import Principal
from tools.writes.flow import Applied, Change, WriteResult, agreed_write
from ynab_client import PlanSnapshot, YnabError
from ynab_client.errors import WriteFailed

pytestmark = pytest.mark.anyio

PLANNED = {"transactions": [{"id": "t1", "before": None, "after": "c1"}]}
CHECK = "Check with find_transactions."


def a_change() -> Change:
    subject = {"changes": [{"transaction_id": "t1", "category_id": "c1"}]}
    return Change(
        subject=subject,
        stored_subject=subject,
        preview=Preview(
            "Recategorise 1 transaction(s)?", ["2026-09-12, Market, 86.40: (uncategorised) → Groceries"]
        ),
        undo_data=PLANNED,
        check=CHECK,
    )


async def write(apply, plan_id: str):
    return await agreed_write(
        tool="apply_categories",
        snapshot=PlanSnapshot(plan_id=plan_id),
        change=a_change(),
        result=WriteResult,
        apply=apply,
        confirmed_by="code",
        preview="Recategorise 1 transaction(s)?",
        principal=Principal.local("flow test"),
    )


async def the_row(plan_id: str) -> Operation:
    return await Operation.objects.aget(plan_id=plan_id)


async def test_an_applied_write_completes_its_row_with_the_undo_data_learnt_from_the_answer():
    plan_id = str(uuid.uuid4())

    async def apply(client, snapshot, change):
        return Applied(undo_data={"transactions": [{"id": "t1", "before": None, "after": "c1", "seen": 1}]})

    result = await write(apply, plan_id)

    op = await the_row(plan_id)
    assert (op.status, op.confirmed_by, op.error) == ("applied", "code", "")
    assert op.undo_data["transactions"][0]["seen"] == 1
    assert result.structured_content["message"] == log.applied_message(op)


async def test_a_failure_apply_understands_completes_the_row_as_it_says_and_is_the_tool_error():
    plan_id = str(uuid.uuid4())
    landed = {"landed": ["source"], "source_to_set": 80_000}

    async def apply(client, snapshot, change):
        raise WriteFailed("Nothing moved: Tennis is back at 80.00.", undo_data=landed)

    with pytest.raises(ToolError, match=r"^Nothing moved: Tennis is back at 80\.00\.$"):
        await write(apply, plan_id)

    op = await the_row(plan_id)
    assert (op.status, op.error, op.undo_data) == (
        "failed",
        "Nothing moved: Tennis is back at 80.00.",
        landed,
    )


@pytest.mark.parametrize("outcome", ["failed", "unknown", "pending"])
async def test_a_failure_that_landed_in_part_names_its_operation_and_leaves_the_row_as_apply_says(outcome):
    """`names_operation`: the person may have to look the operation up or undo it, so the error
    ends with its id; `pending` leaves the row open, still being put back (settling closes it)."""
    plan_id = str(uuid.uuid4())
    landed = {"landed": ["source"], "source_to_set": 80_000}
    said = "Tennis moved, but Savings could not be set: putting Tennis back did not work yet."

    async def apply(client, snapshot, change):
        raise WriteFailed(said, outcome=outcome, undo_data=landed, names_operation=True)

    with pytest.raises(ToolError) as refused:
        await write(apply, plan_id)

    op = await the_row(plan_id)
    expected = f"{said} The log keeps this as operation {op.pk} ({outcome})."
    assert str(refused.value) == expected
    assert (op.status, op.error, op.undo_data) == (outcome, expected, landed)
    assert (op.completed_at is None) == (outcome == "pending")


async def test_a_bug_after_the_row_began_leaves_it_unknown_with_the_planned_undo_data_and_propagates(caplog):
    plan_id = str(uuid.uuid4())

    async def apply(client, snapshot, change):
        raise KeyError("transaction_ids")

    with pytest.raises(KeyError):
        await write(apply, plan_id)

    op = await the_row(plan_id)
    assert op.status == "unknown"  # a request may have left before the bug: never claim "failed"
    assert op.error == "Interrupted by KeyError after it began: the change may or may not be in YNAB."
    assert op.undo_data == PLANNED
    assert f"Write {op.pk} of apply_categories interrupted by KeyError('transaction_ids')" in caplog.messages


async def test_a_cancelled_call_still_completes_its_row_as_unknown():
    plan_id = str(uuid.uuid4())
    started = anyio.Event()

    async def apply(client, snapshot, change):
        started.set()
        await anyio.sleep_forever()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(write, apply, plan_id)
            await started.wait()
            group.cancel_scope.cancel()

    op = await the_row(plan_id)
    assert (op.status, op.undo_data) == ("unknown", PLANNED)
    assert op.completed_at is not None


async def test_a_2xx_answer_that_cannot_be_read_is_unknown_not_failed():
    plan_id = str(uuid.uuid4())

    async def apply(client, snapshot, change):
        raise YnabError("YNAB accepted the change (200) but its answer could not be read.", status=200)

    with pytest.raises(ToolError) as refused:
        await write(apply, plan_id)

    op = await the_row(plan_id)
    assert str(refused.value) == log.unknown_message(op, CHECK)
    assert (op.status, op.error, op.undo_data) == ("unknown", log.unknown_message(op, CHECK), PLANNED)


@pytest.mark.parametrize(
    ("status", "logged"),
    [(None, "failed"), (400, "failed"), (299, "unknown"), (300, "failed"), (429, "failed")],
)
async def test_a_ynab_refusal_completes_the_row_as_failed_and_only_a_2xx_as_unknown(status, logged):
    plan_id = str(uuid.uuid4())
    said = "YNAB refused the change: the category is hidden."

    async def apply(client, snapshot, change):
        raise YnabError(said, status=status)

    with pytest.raises(ToolError) as refused:
        await write(apply, plan_id)

    op = await the_row(plan_id)
    assert (op.status, op.undo_data) == (logged, PLANNED)
    if logged == "failed":
        assert op.error == said
        assert str(refused.value) == f"{said} Nothing was changed (operation {op.pk} is logged as failed)."
    else:
        assert op.error == str(refused.value) == log.unknown_message(op, CHECK)
