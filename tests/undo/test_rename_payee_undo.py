"""Undoing rename_payee: the old name back only while the name is still the new one and the old one free.

The rename undone: CORNER CAFE → Corner Cafe.
"""

from __future__ import annotations

import pytest

from oplog.models import Operation
from sandbox.models import Payee
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, undo, undo_with_code, write_with_code
from tests.writes.category_plans import payee_name, rename_in_ynab
from tests.writes.checks import ynab
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> Household:
    return household("Undo rename_payee")


async def renamed(home: Household, name: str = "Corner Cafe") -> tuple[str, str]:
    """CORNER CAFE renamed `name`, agreed to: (operation id, the payee's id)."""
    cafe = (await Payee.objects.aget(plan_id=home.id, name="CORNER CAFE")).id
    applied = await write_with_code("rename_payee", {"plan_id": home.id, "payee_id": cafe, "name": name})
    assert applied["status"] == "applied", applied
    return applied["operation_id"], cafe


async def nothing_undone(home: Household, op_id: str) -> dict:
    mark = await request_mark()
    async with agent() as client:
        answer = ok(await undo(client, plan_id=home.id, operation_id=op_id))
    assert answer["status"] == "nothing_to_do"
    assert await writes_after(mark) == []
    assert (await Operation.objects.aget(pk=op_id)).status == "applied"
    return answer


async def test_it_puts_the_old_name_back(home):
    op_id, cafe = await renamed(home)

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"] == "Undo: rename payee ‘Corner Cafe’ to ‘CORNER CAFE’?"
    assert (second["status"], second["restored"]) == ("applied", 1)
    assert await payee_name(home.id, cafe) == "CORNER CAFE"
    undo_row = await Operation.objects.aget(pk=second["operation_id"])
    assert undo_row.undo_data == {"restored": [{"payee_id": cafe}]}


async def test_a_name_changed_since_is_left_alone_and_reported(home):
    op_id, cafe = await renamed(home)
    await rename_in_ynab(home.id, cafe, "Corner Café")

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"] == [
        {
            "id": cafe,
            "name": "Corner Café",
            "reason": "its name is now ‘Corner Café’, not ‘Corner Cafe’ as the operation left it",
        }
    ]
    assert await payee_name(home.id, cafe) == "Corner Café"


async def test_an_old_name_taken_since_is_left_alone_and_reported(home):
    op_id, cafe = await renamed(home, "Le Coin")
    await ynab("POST", f"/plans/{home.id}/payees", json={"payee": {"name": "corner cafe"}})

    answer = await nothing_undone(home, op_id)

    assert answer["conflicts"] == [
        {
            "id": cafe,
            "name": "Le Coin",
            "reason": "the name ‘CORNER CAFE’ is now another payee's, and YNAB's API cannot merge payees",
        }
    ]
    assert await payee_name(home.id, cafe) == "Le Coin"


async def test_a_name_put_back_in_ynab_counts_as_already_as_before(home):
    op_id, cafe = await renamed(home)
    await rename_in_ynab(home.id, cafe, "CORNER CAFE")

    answer = await nothing_undone(home, op_id)

    assert (answer["already_as_before"], answer["restored"]) == (1, 0)
