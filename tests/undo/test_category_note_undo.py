"""Undoing update_category's note: put back with the name and group, only while it is as the
operation left it (docs/undo.md#update_category).

The change undone: Dining Out's note set to ‘Weekly’ (no note before), with or without a rename.
"""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import nothing_undone, undo_with_code, write_with_code
from tests.sandbox.plans import SmallPlan, small_plan
from tests.writes.category_plans import category, change_category

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> SmallPlan:
    return small_plan("Undo a category's note")


async def _noted(home: SmallPlan, **arguments) -> str:
    """Dining Out's note set to ‘Weekly’, agreed to: the operation's id."""
    change = {"plan_id": home.id, "category_id": home.dining, "note": "Weekly", **arguments}
    applied = await write_with_code("update_category", change)
    assert applied["status"] == "applied", applied
    return applied["operation_id"]


async def test_it_puts_the_note_back_with_the_name(home):
    op_id = await _noted(home, name="Restaurants")
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"] == (
        "Undo: change category ‘Restaurants’ (Everyday) to ‘Dining Out’ (Everyday), note ‘Weekly’ → none?"
    )
    assert (second["status"], second["restored"]) == ("applied", 1)
    held = await category(home.id, home.dining)
    assert (held["name"], held["note"]) == ("Dining Out", None)
    assert len(await writes_after(mark)) == 1
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_a_note_changed_since_is_left_alone_and_reported(home):
    op_id = await _noted(home)
    await change_category(home.id, home.dining, note="Weekly, and Fridays")

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"] == [
        {"id": home.dining, "name": "Dining Out", "reason": "its note was changed since the operation"}
    ]
    assert (await category(home.id, home.dining))["note"] == "Weekly, and Fridays"


async def test_a_note_removed_in_ynab_counts_as_already_as_before(home):
    op_id = await _noted(home)
    await change_category(home.id, home.dining, note=None)

    answer = await nothing_undone(home, op_id)

    assert (answer["already_as_before"], answer["restored"], answer["conflicts"]) == (1, 0, [])
