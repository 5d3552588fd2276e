"""Undoing rename_payee: the old name back only while the name is still the new one and the old one free.

The rename undone: CORNER CAFE → Corner Cafe.
"""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.undo import nothing_undone, renamed, undo_with_code
from tests.writes.category_plans import payee_name, rename_in_ynab
from tests.writes.checks import ynab
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> Household:
    return household("Undo rename_payee")


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
