"""Undoing set_category_budget: the assigned amount put back only while it is still the one set."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.values.money import shown_amount
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import inject, request_mark, writes_after
from tests.helpers.undo import agent, assigned, fresh, set_assigned, undo, undo_with_code, write_with_code
from tests.sandbox.plans import SmallPlan, small_plan

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> SmallPlan:
    return small_plan("Undo set_category_budget")


def budget_args(home: SmallPlan, amount: str) -> dict:
    month = home.this_month.isoformat()
    return {"plan_id": home.id, "month": month, "category_id": home.groceries, "amount": amount}


async def groceries(home: SmallPlan) -> int:
    return await assigned(home.id, home.this_month.isoformat(), home.groceries)


async def budgeted(home: SmallPlan, amount: str) -> str:
    applied = await write_with_code("set_category_budget", budget_args(home, amount))
    assert applied["status"] == "applied", applied
    return applied["operation_id"]


async def test_it_puts_the_assigned_amount_back(home):
    before = await groceries(home)
    op_id = await budgeted(home, "150.00")
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    month = home.this_month.isoformat()
    expected = f"Undo: budget Groceries for {month}: 150.00 → {shown_amount(None, before)}?"
    assert first["preview"].splitlines()[0] == expected
    assert (second["status"], second["restored"]) == ("applied", 1)
    assert await groceries(home) == before
    assert len(await writes_after(mark)) == 1
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_an_amount_changed_since_is_left_alone_reported_and_nothing_is_written(home):
    op_id = await budgeted(home, "150.00")
    await set_assigned(home.id, home.this_month.isoformat(), home.groceries, 175_000)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=home.id, operation_id=op_id))

    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {
            "id": home.groceries,
            "name": "Groceries",
            "reason": "its assigned amount is now 175.00, not the 150.00 the operation set",
        }
    ]
    assert await writes_after(mark) == []
    assert await groceries(home) == 175_000
    assert (await Operation.objects.aget(pk=op_id)).status == "applied"


async def test_an_unknown_operation_whose_write_never_landed_is_settled_failed_before_the_undo(home):
    before = await groceries(home)
    await inject("drop_before_write", method="PATCH", path=rf"/categories/{home.groceries}$")
    async with agent() as client:
        first = ok(await client.call_tool("set_category_budget", budget_args(home, "150.00")))
        lost = await client.call_tool(
            "set_category_budget", {**budget_args(home, "150.00"), "confirmation": first["confirmation"]}
        )
    assert lost.is_error
    op = await Operation.objects.filter(plan_id=home.id, tool="set_category_budget").afirst()
    assert op.status == "unknown"
    mark = await request_mark()

    async with agent() as client:
        answer = refusal(await undo(client, plan_id=home.id, operation_id=op.pk))

    assert answer == (
        f"Operation {op.pk} (set_category_budget) failed, so it is not in effect and there is nothing to "
        "undo. What happened: Settled from YNAB's state: none of its 1 item(s) is in YNAB: nothing was "
        "changed."
    )
    assert await writes_after(mark) == []
    assert await groceries(home) == before
    settled = await fresh(op)
    assert (settled.status, settled.settled_at is not None) == ("failed", True)
