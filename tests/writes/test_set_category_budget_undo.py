"""Undoing set_category_budget with undo_operation: the amount put back only while it is still as set."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from tests.helpers.write_cases.set_category_budget import NEW_AMOUNT, budget_case
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, assigned, set_assigned, spend_today
from tests.writes.checks import says_yes
from tests.writes.harness import MODERN, call, connected, content, error_text

pytestmark = pytest.mark.anyio


async def budgeted(budget: BudgetHome) -> str:
    """Dining Out set from 120.00 to 150.00, agreed to; the operation's id."""
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, budget_case(budget)))
    assert answer["status"] == "applied"
    return answer["operation_id"]


async def undo(budget: BudgetHome, operation_id: str):
    """undo_operation, agreed to: (its result, the questions the person saw, PATCHes sent)."""
    person = says_yes()
    mark = await sync_to_async(faults.last_request_id)()
    async with connected(MODERN, person) as client:
        arguments = {"plan_id": budget.id, "operation_id": operation_id}
        result = await client.call_tool("undo_operation", arguments)
    served = await sync_to_async(faults.requests_since)(mark)
    return result, person.messages, [entry.path for entry in served if entry.method == "PATCH"]


async def test_undo_puts_the_amount_back_and_marks_the_operation_undone(budget):
    operation_id = await budgeted(budget)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert (answer["status"], answer["restored"], answer["already_as_before"], answer["conflicts"]) == (
        "applied",
        1,
        0,
        [],
    )
    assert questions == [
        f"Undo: budget Dining Out for {budget.month}: 150.00 → 120.00?\n"
        "- Dining Out: assigned 150.00 → 120.00; available 69.00 → 39.00"
    ]
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED
    assert patches == [f"/sandbox/v1{budget.category_path(budget.home.dining)}"]
    original = await Operation.objects.aget(pk=operation_id)
    assert (original.status, original.undone_by_id) == ("undone", answer["operation_id"])
    undo_row = await Operation.objects.aget(pk=answer["operation_id"])
    assert undo_row.undo_data == {
        "month": budget.month,
        "restored": [{"category_id": budget.home.dining, "assigned": DINING_ASSIGNED}],
    }


async def test_an_undo_that_leaves_the_category_overspent_names_it(budget):
    """Dining Out raised to 150.00 (69.00 available), then 50.00 spent there: putting 120.00 back
    leaves it 11.00 short, and the person is told before agreeing."""
    operation_id = await budgeted(budget)
    await spend_today(budget, budget.home.dining, 50_000)

    result, questions, _patches = await undo(budget, operation_id)

    assert content(result)["status"] == "applied"
    assert questions == [
        f"Undo: budget Dining Out for {budget.month}: 150.00 → 120.00?\n"
        "- Dining Out: assigned 150.00 → 120.00; available 19.00 → -11.00\n"
        f"This leaves Dining Out overspent by 11.00 for {budget.month}."
    ]


async def test_an_amount_changed_since_is_left_alone_and_reported(budget):
    operation_id = await budgeted(budget)
    await set_assigned(budget, budget.home.dining, 140_000)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {
            "id": budget.home.dining,
            "name": "Dining Out",
            "reason": "its assigned amount is now 140.00, not the 150.00 the operation set",
        }
    ]
    assert (questions, patches) == ([], [])
    assert await assigned(budget, budget.home.dining) == 140_000
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_an_amount_already_back_as_before_is_counted_and_nothing_is_written(budget):
    operation_id = await budgeted(budget)
    await set_assigned(budget, budget.home.dining, DINING_ASSIGNED)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert (answer["status"], answer["already_as_before"], answer["restored"]) == ("nothing_to_do", 1, 0)
    assert (questions, patches) == ([], [])


async def test_an_unknown_operation_whose_write_landed_can_be_undone(budget):
    case = budget_case(budget)
    await sync_to_async(faults.inject)("drop_after_write", method="PATCH", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    op = await Operation.objects.filter(plan_id=budget.id).order_by("-created_at").afirst()
    assert (op.status, await assigned(budget, budget.home.dining)) == ("unknown", NEW_AMOUNT)

    result, _questions, _patches = await undo(budget, op.pk)

    assert content(result)["restored"] == 1
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED


async def test_an_undo_ynab_refuses_changes_nothing_and_can_be_tried_again(budget):
    operation_id = await budgeted(budget)
    await sync_to_async(faults.inject)(
        "status", method="PATCH", path=budget.category_path(budget.home.dining), status=500
    )

    refused, _questions, patches = await undo(budget, operation_id)

    assert refused.is_error
    assert len(patches) == 1
    assert await assigned(budget, budget.home.dining) == NEW_AMOUNT
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"
    again, _questions, _patches = await undo(budget, operation_id)
    assert content(again)["status"] == "applied"
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED
