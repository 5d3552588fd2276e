"""Undoing set_category_target: every kind of target of the demo plan through set and undo.

A kind YNAB's API can set again comes back as it was (removed, then undone); a kind it
cannot set is said in the preview before the person agrees, and the operation is then
refused by undo_operation with the reason. A target changed since is left alone.
"""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.models import Plan
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, category_id, undo, undo_with_code
from tests.writes.category_plans import change_category, goal

pytestmark = pytest.mark.anyio

NOT_RECREATABLE = (
    "Note: the current target ({}) is a kind YNAB's API cannot set, so undo_operation will not bring it back."
)

# Every target of the demo plan: (category, as a result shows it, whether the API can set it again).
DEMO_TARGETS = [
    ("Rent", "950.00 monthly", True),
    ("Electricity", "75.00 monthly", True),  # refill up to
    ("Phone & Internet", "55.00 monthly", True),
    ("Car Insurance", "480.00 yearly", True),
    ("Transport Pass", "86.40 monthly", True),
    ("Streaming", "25.48 monthly", True),
    ("Visa Card", "100.00 monthly", True),  # a credit card's monthly payment
    ("Car Loan Payment", "250.00 Debt Payment", False),
    ("Emergency Fund", "10000.00 Target Category Balance", False),
    ("Holidays", "1800.00 Target Category Balance by Date", False),
    ("New Laptop", "1200.00 Target Category Balance by Date (snoozed)", False),
    ("Car Maintenance", "50.00 Monthly Funding", False),
]
# What undo brings back exactly: YNAB's API cannot set a target's day (goal_day), nor the due
# date of a yearly one, so those are left out of the comparison for the kinds that have them.
COMPARED = slice(0, 6)  # goal_type, goal_target, goal_target_date, cadence, frequency, whole amount


def in_euros(shown: str) -> str:
    """A target's text in a preview of the demo plan, whose currency writes `950,00`."""
    return shown.replace(".", ",")


async def set_target(plan_id: str, category: str, **arguments) -> tuple[dict, dict]:
    """set_category_target the code way: (the preview's result, the applied result)."""
    arguments = {"plan_id": plan_id, "category_id": category, **arguments}
    async with agent() as client:
        first = ok(await client.call_tool("set_category_target", arguments))
        applied = ok(
            await client.call_tool(
                "set_category_target", {**arguments, "confirmation": first["confirmation"]}
            )
        )
    assert applied["status"] == "applied", applied
    return first, applied


def _without_uncopyable(fields: tuple, kind_text: str) -> tuple:
    kept = list(fields[COMPARED])
    if kind_text.endswith("yearly"):
        kept[2] = None  # the yearly due date
    return tuple(kept)


@pytest.mark.matrix
@pytest.mark.parametrize(("name", "shown", "recreatable"), DEMO_TARGETS)
async def test_every_demo_target_kind_round_trips_or_is_said_not_to(
    demo_plan: Plan, name, shown, recreatable
):
    category = await category_id(demo_plan, name)
    before = await goal(demo_plan.id, category)

    first, applied = await set_target(demo_plan.id, category)  # nothing at all: remove the target

    lines = first["preview"].splitlines()
    assert lines[0] == f"Set the target of {name}: {in_euros(shown)} → no target?"
    assert lines[1:] == ([] if recreatable else [NOT_RECREATABLE.format(in_euros(shown))])
    assert (applied["before"], applied["after"], applied["undoable"]) == (shown, "no target", recreatable)
    assert (await goal(demo_plan.id, category))[0] is None
    if not recreatable:
        assert applied["message"] == (
            f"Set the target of {name}: {in_euros(shown)} → no target. Done as operation "
            f"{applied['operation_id']}; it cannot be undone: the previous target is a kind YNAB's API "
            "cannot set, so it cannot come back."
        )
        async with agent() as client:
            refused = await undo(client, plan_id=demo_plan.id, operation_id=applied["operation_id"])
        assert refusal(refused) == (
            f"Operation {applied['operation_id']} (set_category_target) cannot be undone: the previous "
            "target is a kind YNAB's API cannot set, so it cannot come back."
        )
        return

    undo_first, undone = await undo_with_code(demo_plan.id, operation_id=applied["operation_id"])

    assert undo_first["preview"] == f"Undo: set the target of {name}: no target → {in_euros(shown)}?"
    assert (undone["status"], undone["restored"]) == ("applied", 1)
    assert _without_uncopyable(await goal(demo_plan.id, category), shown) == _without_uncopyable(
        before, shown
    )


@pytest.mark.parametrize(("name", "shown"), [("Rent", "950.00 monthly"), ("Car Insurance", "480.00 yearly")])
async def test_an_amount_changed_and_undone_keeps_what_the_api_cannot_set(demo_plan: Plan, name, shown):
    category = await category_id(demo_plan, name)
    before = await goal(demo_plan.id, category)

    first, applied = await set_target(demo_plan.id, category, amount="999")
    _undo_first, undone = await undo_with_code(demo_plan.id, operation_id=applied["operation_id"])

    assert first["preview"] == f"Set the target of {name}: {in_euros(shown)} → 999,00 {shown.split()[1]}?"
    assert undone["restored"] == 1
    assert await goal(demo_plan.id, category) == before  # day and due date included


async def test_a_dated_target_comes_back_from_a_weekly_one(demo_plan: Plan):
    category = await category_id(demo_plan, "Gifts")
    await change_category(demo_plan.id, category, goal_target=300_000, goal_target_date="2099-12-01")
    before = await goal(demo_plan.id, category)

    first, applied = await set_target(demo_plan.id, category, amount="20", frequency="weekly")
    undo_first, undone = await undo_with_code(demo_plan.id, operation_id=applied["operation_id"])

    assert first["preview"] == "Set the target of Gifts: 300,00 by 2099-12-01 → 20,00 weekly?"
    assert undo_first["preview"] == "Undo: set the target of Gifts: 20,00 weekly → 300,00 by 2099-12-01?"
    assert undone["restored"] == 1
    assert (await goal(demo_plan.id, category))[COMPARED] == before[COMPARED]


async def test_a_target_changed_since_is_left_alone_and_reported(demo_plan: Plan):
    category = await category_id(demo_plan, "Rent")
    _first, applied = await set_target(demo_plan.id, category, amount="1000")
    await change_category(demo_plan.id, category, goal_target=1_100_000)
    changed = await goal(demo_plan.id, category)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=demo_plan.id, operation_id=applied["operation_id"]))

    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {
            "id": category,
            "name": "Rent",
            "reason": "its target is now 1100,00 monthly, not the 1000,00 monthly the operation set",
        }
    ]
    assert await writes_after(mark) == []
    assert await goal(demo_plan.id, category) == changed
    assert (await Operation.objects.aget(pk=applied["operation_id"])).status == "applied"


async def test_a_target_put_back_in_ynab_counts_as_already_as_before(demo_plan: Plan):
    category = await category_id(demo_plan, "Streaming")
    _first, applied = await set_target(demo_plan.id, category, amount="30")
    await change_category(demo_plan.id, category, goal_target=25_480)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=demo_plan.id, operation_id=applied["operation_id"]))

    assert (answer["status"], answer["already_as_before"], answer["restored"]) == ("nothing_to_do", 1, 0)
    assert await writes_after(mark) == []
