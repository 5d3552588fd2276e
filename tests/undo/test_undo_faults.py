"""An undo whose writes fail: an honest log, the operation given back, nothing resent, and a retry
that finishes the job (it restores only what is still as the operation left it)."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok
from tests.helpers.sandbox_side import inject, request_mark, writes_after
from tests.helpers.undo import agent, fresh, undo, undo_with_code

pytestmark = pytest.mark.anyio


async def spend_code(plan_id: str, op_id: str) -> tuple[str, str]:
    """An undo the person agreed to whose applying call fails: (undo row id, the error text)."""
    async with agent() as client:
        code = ok(await undo(client, plan_id=plan_id, operation_id=op_id))["confirmation"]
        result = await undo(client, plan_id=plan_id, operation_id=op_id, confirmation=code)
    assert result.is_error
    row = await Operation.objects.filter(undo_of_id=op_id).order_by("-created_at").afirst()
    return row.pk, result.content[0].text


def category_path(budgets, index: int) -> str:
    return rf"/categories/{budgets.items[index]['category_id']}$"


async def test_an_undo_ynab_refuses_is_logged_failed_and_the_operation_can_be_undone_again(budgets):
    await inject("status", method="PATCH", path=category_path(budgets, 0), status=500)
    mark = await request_mark()

    undo_id, text = await spend_code(budgets.plan_id, budgets.op.pk)

    assert "Nothing was changed" in text
    assert len(await writes_after(mark)) == 1  # the refused PATCH, not retried; the second never sent
    undo_row, original = await Operation.objects.aget(pk=undo_id), await fresh(budgets.op)
    assert undo_row.status == "failed"
    assert (original.status, original.undone_by_id) == ("applied", None)
    assert await budgets.current() == budgets.after

    _, again = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)
    assert again["restored"] == 2
    assert await budgets.current() == budgets.before


async def test_an_undo_failing_half_way_says_what_landed_and_a_later_undo_restores_the_rest(budgets):
    await inject("status", method="PATCH", path=category_path(budgets, 1), status=503)

    undo_id, text = await spend_code(budgets.plan_id, budgets.op.pk)

    first = budgets.items[0]["category_id"]
    assert f"Restored {first} only, then:" in text
    undo_row = await Operation.objects.aget(pk=undo_id)
    assert undo_row.status == "failed"
    assert undo_row.undo_data["restored"] == [first]
    assert (await fresh(budgets.op)).status == "applied"
    assert await budgets.current() == [budgets.before[0], budgets.after[1]]

    _, again = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)
    assert (again["restored"], again["already_as_before"]) == (1, 1)
    assert await budgets.current() == budgets.before


async def test_an_undo_whose_answer_is_lost_is_logged_unknown_and_never_resent(budgets):
    await inject("drop_after_write", method="PATCH", path=category_path(budgets, 0))
    mark = await request_mark()

    undo_id, text = await spend_code(budgets.plan_id, budgets.op.pk)

    assert "may or may not be in YNAB, and it is not sent again" in text
    assert "Call undo_operation again to see what is still to restore" in text
    assert len(await writes_after(mark)) == 1
    undo_row, original = await Operation.objects.aget(pk=undo_id), await fresh(budgets.op)
    assert undo_row.status == "unknown"
    assert (original.status, original.undone_by_id) == ("applied", None)

    _, again = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)
    assert (again["restored"], again["already_as_before"]) == (1, 1)  # the lost write had landed
    assert await budgets.current() == budgets.before
    assert (await fresh(budgets.op)).undone_by_id == again["operation_id"]
