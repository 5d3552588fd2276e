"""Undoing update_category: name and group put back only while both are as left and the old name is free.

The change undone: Dining Out (Everyday) renamed Restaurants and moved to Bills.
"""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import moved, nothing_undone, undo_with_code
from tests.sandbox.plans import SmallPlan, small_plan
from tests.writes.category_plans import change_category, place

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> SmallPlan:
    return small_plan("Undo update_category")


async def test_it_puts_name_and_group_back(home):
    op_id, _bills = await moved(home)
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"] == "Undo: change category ‘Restaurants’ (Bills) to ‘Dining Out’ (Everyday)?"
    assert (second["status"], second["restored"]) == ("applied", 1)
    assert await place(home.id, home.dining) == ("Dining Out", home.everyday_group)
    assert len(await writes_after(mark)) == 1
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_a_category_moved_since_is_left_alone_and_reported(home):
    op_id, _bills = await moved(home)
    await change_category(home.id, home.dining, category_group_id=home.everyday_group)

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"] == [
        {
            "id": home.dining,
            "name": "Restaurants",
            "reason": (
                "it is now ‘Restaurants’ (Everyday), not ‘Restaurants’ (Bills) as the operation left it"
            ),
        }
    ]
    assert await place(home.id, home.dining) == ("Restaurants", home.everyday_group)


async def test_a_category_renamed_since_is_left_alone_and_reported(home):
    op_id, bills = await moved(home)
    await change_category(home.id, home.dining, name="Eating Out")

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"][0]["reason"] == (
        "it is now ‘Eating Out’ (Bills), not ‘Restaurants’ (Bills) as the operation left it"
    )
    assert await place(home.id, home.dining) == ("Eating Out", bills)


async def test_an_old_name_taken_since_is_left_alone_and_reported(home):
    op_id, bills = await moved(home)
    await change_category(home.id, home.groceries, name="dining out")  # in Everyday, any case

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"] == [
        {
            "id": home.dining,
            "name": "Restaurants",
            "reason": "the name ‘Dining Out’ is now taken by another category in Everyday",
        }
    ]
    assert await place(home.id, home.dining) == ("Restaurants", bills)


async def test_a_category_put_back_in_ynab_counts_as_already_as_before(home):
    op_id, _bills = await moved(home)
    await change_category(home.id, home.dining, name="Dining Out", category_group_id=home.everyday_group)

    answer = await nothing_undone(home, op_id)

    assert (answer["already_as_before"], answer["restored"], answer["conflicts"]) == (1, 0, [])
