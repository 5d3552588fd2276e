"""Undoing move_money through undo_operation and through the admin: both categories back, or neither.

The detailed branches (destination first, the rollback of a failed second write, half a move)
are proven with the tool's own tests (tests/writes/test_move_money_undo.py); these check the
undo framework around the real two-write handler.
"""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, assigned, set_assigned, undo, undo_with_code, write_with_code
from tests.sandbox.plans import SmallPlan, small_plan

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> SmallPlan:
    return small_plan("Undo move_money")


async def both(home: SmallPlan) -> tuple[int, int]:
    month = home.this_month.isoformat()
    return await assigned(home.id, month, home.groceries), await assigned(home.id, month, home.dining)


async def moved(home: SmallPlan) -> str:
    arguments = {
        "plan_id": home.id,
        "month": home.this_month.isoformat(),
        "from_category_id": home.groceries,
        "to_category_id": home.dining,
        "amount": "30.00",
    }
    applied = await write_with_code("move_money", arguments)
    assert applied["status"] == "applied", applied
    return applied["operation_id"]


async def test_it_moves_the_money_back(home):
    before = await both(home)
    op_id = await moved(home)
    assert await both(home) == (before[0] - 30_000, before[1] + 30_000)
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    month = home.this_month.isoformat()
    assert first["preview"].splitlines()[0] == f"Undo: move 30.00 from Dining Out to Groceries for {month}?"
    assert (second["status"], second["restored"], second["conflicts"]) == ("applied", 2, [])
    assert await both(home) == before
    assert [entry.path.rsplit("/", 1)[1] for entry in await writes_after(mark)] == [
        home.dining,
        home.groceries,
    ]
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_when_one_category_changed_since_both_are_left_as_they_are(home):
    before = await both(home)
    op_id = await moved(home)
    await set_assigned(home.id, home.this_month.isoformat(), home.dining, 999_000)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=home.id, operation_id=op_id))

    assert answer["status"] == "nothing_to_do"
    assert {conflict["name"] for conflict in answer["conflicts"]} == {"Groceries", "Dining Out"}
    assert await writes_after(mark) == []
    assert await both(home) == (before[0] - 30_000, 999_000)


def test_the_owner_undoes_a_move_from_the_admin(home):
    before = async_to_sync(both)(home)
    op_id = async_to_sync(moved)(home)
    owner = User.objects.create_user(username=f"owner-{home.id[:8]}", is_staff=True, is_superuser=True)
    browser = Client()
    browser.force_login(owner)
    url = reverse("admin:oplog_operation_undo", args=[op_id])

    page = browser.get(url).content.decode()
    digest = re.search(r'name="digest" value="([0-9a-f]{64})"', page).group(1)
    response = browser.post(url, {"digest": digest})

    assert "Undo: move 30.00 from Dining Out to Groceries" in page
    assert response.status_code == 302
    assert async_to_sync(both)(home) == before
    original = Operation.objects.get(pk=op_id)
    assert original.status == "undone"
    assert Operation.objects.get(pk=original.undone_by_id).confirmed_by == "admin"
