"""Undoing move_money with undo_operation: both categories back (destination first) or neither,
with the move's own rollback when the undo's second write fails.

The move undone: 30.00 from Groceries (80.00 → 50.00) to Dining Out (120.00 → 150.00).
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from tests.helpers.write_cases.move_money import both, move_case
from tests.writes.assigned_plans import (
    DINING_ASSIGNED,
    GROCERIES_ASSIGNED,
    BudgetHome,
    figures,
    ready_to_assign,
    set_assigned,
    spend_today,
)
from tests.writes.checks import says_yes
from tests.writes.harness import MODERN, call, connected, content

pytestmark = pytest.mark.anyio

MOVED = 30_000
AS_BEFORE = (GROCERIES_ASSIGNED, DINING_ASSIGNED)
MOVED_STATE = (GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED + MOVED)


async def moved(budget: BudgetHome) -> str:
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, move_case(budget)))
    assert answer["status"] == "applied"
    return answer["operation_id"]


async def undo(budget: BudgetHome, operation_id: str):
    """undo_operation, agreed to: (its result, the questions asked, the PATCHes sent by category name)."""
    names = {budget.home.groceries: "Groceries", budget.home.dining: "Dining Out"}
    person = says_yes()
    mark = await sync_to_async(faults.last_request_id)()
    async with connected(MODERN, person) as client:
        arguments = {"plan_id": budget.id, "operation_id": operation_id}
        result = await client.call_tool("undo_operation", arguments)
    served = await sync_to_async(faults.requests_since)(mark)
    patches = [names[entry.path.rsplit("/", 1)[1]] for entry in served if entry.method == "PATCH"]
    return result, person.messages, patches


async def inject(kind: str, budget: BudgetHome, category_id: str, **options) -> None:
    path = budget.category_path(category_id) + "$"
    await sync_to_async(faults.inject)(kind, method="PATCH", path=path, **options)


async def test_undo_moves_the_money_back_destination_first(budget):
    ready = await ready_to_assign(budget)
    operation_id = await moved(budget)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 2, [])
    assert questions == [
        f"Undo: move 30.00 from Dining Out to Groceries for {budget.month}?\n"
        "- Dining Out: assigned 150.00 → 120.00; available 69.00 → 39.00\n"
        "- Groceries: assigned 50.00 → 80.00; available 2.00 → 32.00"
    ]
    assert patches == ["Dining Out", "Groceries"]
    assert await figures(budget, budget.home.groceries) == (80_000, 32_000)
    assert await figures(budget, budget.home.dining) == (120_000, 39_000)
    assert await ready_to_assign(budget) == ready
    original = await Operation.objects.aget(pk=operation_id)
    assert (original.status, original.undone_by_id) == ("undone", answer["operation_id"])


async def test_an_undo_that_leaves_the_destination_overspent_names_it(budget):
    """Dining Out got 30.00 (69.00 available), then 50.00 was spent there: moving the 30.00 back
    leaves it 11.00 short, and the person is told before agreeing."""
    operation_id = await moved(budget)
    await spend_today(budget, budget.home.dining, 50_000)

    result, questions, _patches = await undo(budget, operation_id)

    assert content(result)["status"] == "applied"
    assert questions == [
        f"Undo: move 30.00 from Dining Out to Groceries for {budget.month}?\n"
        "- Dining Out: assigned 150.00 → 120.00; available 19.00 → -11.00\n"
        "- Groceries: assigned 50.00 → 80.00; available 2.00 → 32.00\n"
        f"This leaves Dining Out overspent by 11.00 for {budget.month}."
    ]


async def test_when_either_category_changed_since_both_are_left_as_they_are(budget):
    operation_id = await moved(budget)
    await set_assigned(budget, budget.home.dining, 160_000)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {
            "id": budget.home.groceries,
            "name": "Groceries",
            "reason": "left as it is with Dining Out: the two are put back together or not at all",
        },
        {
            "id": budget.home.dining,
            "name": "Dining Out",
            "reason": "its assigned amount is now 160.00, not the 150.00 the operation set",
        },
    ]
    assert (questions, patches) == ([], [])
    assert await both(budget) == (GROCERIES_ASSIGNED - MOVED, 160_000)
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_a_move_already_put_back_by_hand_is_nothing_to_do(budget):
    operation_id = await moved(budget)
    await set_assigned(budget, budget.home.groceries, GROCERIES_ASSIGNED)
    await set_assigned(budget, budget.home.dining, DINING_ASSIGNED)

    result, questions, patches = await undo(budget, operation_id)

    answer = content(result)
    assert (answer["status"], answer["already_as_before"], answer["restored"]) == ("nothing_to_do", 2, 0)
    assert (questions, patches) == ([], [])


async def test_the_half_of_a_move_that_landed_is_put_back_alone_by_settling_before_the_undo(budget):
    """An unknown move whose second write never landed: settling (before the undo answers) sets
    only the source back, so Ready to Assign returns to where the move found it, and the undo
    has nothing left to do."""
    ready = await ready_to_assign(budget)
    await inject("drop_before_write", budget, budget.home.dining)

    async def unreadable() -> None:
        await sync_to_async(faults.inject)(
            "status", method="GET", path=budget.category_path(budget.home.dining) + "$", status=500
        )

    operation_id = await _unknown_move(budget, unreadable)

    result, questions, patches = await undo(budget, operation_id)

    assert result.is_error
    assert "Settled from YNAB's state: nothing moved: half of the move had landed" in result.content[0].text
    assert questions == []
    assert patches == ["Groceries"]
    assert await both(budget) == AS_BEFORE
    assert await ready_to_assign(budget) == ready
    assert (await Operation.objects.aget(pk=operation_id)).status == "failed"


async def _unknown_move(budget: BudgetHome, arm) -> str:
    case = move_case(budget)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        await arm()
        assert (await call(client, case, confirmation=code)).is_error
    op = await Operation.objects.filter(plan_id=budget.id).order_by("-created_at").afirst()
    assert op.status == "unknown"
    return op.pk


async def test_when_the_undos_second_write_fails_the_destination_is_set_back(budget):
    operation_id = await moved(budget)
    await inject("status", budget, budget.home.groceries, status=500)

    result, _questions, patches = await undo(budget, operation_id)

    assert result.is_error
    text = result.content[0].text
    assert "Nothing moved: Groceries could not be set to 80.00; so Dining Out was set back to 150.00" in text
    assert "is logged as failed" in text
    assert patches == ["Dining Out", "Groceries", "Dining Out"]
    assert await both(budget) == MOVED_STATE
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"  # can be undone again
    undo_row = await Operation.objects.filter(undo_of_id=operation_id).afirst()
    assert undo_row.status == "failed"


async def test_when_the_undos_rollback_fails_too_it_says_what_to_set_and_a_later_undo_finishes(budget):
    operation_id = await moved(budget)
    await inject("delay", budget, budget.home.dining, delay_ms=1)  # lets the undo's first write through
    await inject("status", budget, budget.home.groceries, status=500)
    await inject("status", budget, budget.home.dining, status=503)

    result, _questions, patches = await undo(budget, operation_id)

    text = result.content[0].text
    assert result.is_error
    assert f"In YNAB, set the assigned amount of Dining Out for {budget.month} to 150.00." in text
    assert patches == ["Dining Out", "Groceries", "Dining Out"]
    assert await both(budget) == (GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED)
    undo_row = await Operation.objects.filter(undo_of_id=operation_id).afirst()
    assert undo_row.status == "failed"
    assert undo_row.undo_data["landed"] == [budget.home.dining]

    again, _questions, patches = await undo(budget, operation_id)

    assert (content(again)["restored"], content(again)["already_as_before"]) == (1, 1)
    assert patches == ["Groceries"]
    assert await both(budget) == AS_BEFORE


async def test_an_undos_first_write_lost_and_unreadable_is_unknown_and_can_be_undone_again(budget):
    operation_id = await moved(budget)
    await inject("drop_after_write", budget, budget.home.dining)
    path = budget.category_path(budget.home.dining) + "$"
    await sync_to_async(faults.inject)("status", method="GET", path=path, status=500)

    result, _questions, patches = await undo(budget, operation_id)

    assert result.is_error
    assert "No answer came back" in result.content[0].text
    assert patches == ["Dining Out"]  # nothing else sent while its outcome is unknown
    undo_row = await Operation.objects.aget(undo_of_id=operation_id)
    assert undo_row.status == "unknown"
    assert await both(budget) == (GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED)  # it had landed


async def test_a_set_back_answered_429_once_is_sent_again_after_the_wait(budget):
    operation_id = await moved(budget)
    await inject("delay", budget, budget.home.dining, delay_ms=1)  # lets the undo's first write through
    await inject("status", budget, budget.home.groceries, status=500)
    await inject("status", budget, budget.home.dining, status=429, delay_ms=1000)  # Retry-After: 1

    result, _questions, patches = await undo(budget, operation_id)

    text = result.content[0].text
    assert "Nothing moved: Groceries could not be set to 80.00; so Dining Out was set back to 150.00" in text
    assert patches == ["Dining Out", "Groceries", "Dining Out", "Dining Out"]
    assert await both(budget) == MOVED_STATE
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"
