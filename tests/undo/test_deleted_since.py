"""Undoing an operation whose item YNAB deleted since (in its app; the API cannot delete a
payee, category or group): the item is a conflict named "it was deleted", nothing is written,
and the operation stays in effect.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.db import models

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import Category, CategoryGroup, Payee
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, moved, renamed, undo, write_with_code
from tests.sandbox.plans import SmallPlan, small_plan
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def small(live_service) -> SmallPlan:
    return small_plan("Undo, deleted since")


@pytest.fixture
def home(live_service) -> Household:
    return household("Undo, payee deleted since")


def _delete(plan_id: str, model: type[models.Model], pk: str) -> None:
    """Delete as YNAB's app does: a change the next delta read returns."""
    with plan_write(plan_id) as write:
        model.objects.filter(pk=pk).update(deleted=True, knowledge=write.knowledge)
        write.months_changed_from(write.plan.first_month)


async def deleted_in_ynab(plan_id: str, model: type[models.Model], pk: str) -> None:
    await sync_to_async(_delete)(plan_id, model, pk)


async def nothing_undone(plan_id: str, op_id: str) -> dict:
    mark = await request_mark()
    async with agent() as client:
        answer = ok(await undo(client, plan_id=plan_id, operation_id=op_id))
    assert answer["status"] == "nothing_to_do"
    assert await writes_after(mark) == []
    assert (await Operation.objects.aget(pk=op_id)).status == "applied"
    return answer


async def test_a_payee_deleted_since_its_rename_is_left_as_it_is(home):
    op_id, cafe = await renamed(home)
    await deleted_in_ynab(home.id, Payee, cafe)

    answer = await nothing_undone(home.id, op_id)

    assert [(c["id"], c["name"], c["reason"]) for c in answer["conflicts"]] == [
        (cafe, "Corner Cafe", "it was deleted")
    ]


async def test_a_category_deleted_since_it_was_moved_is_left_as_it_is(small):
    op_id, _bills = await moved(small)
    await deleted_in_ynab(small.id, Category, small.dining)

    answer = await nothing_undone(small.id, op_id)

    assert [(c["id"], c["name"], c["reason"]) for c in answer["conflicts"]] == [
        (small.dining, "Restaurants", "it was deleted")
    ]


async def test_a_group_deleted_since_a_category_left_it_is_named(small):
    before_group = (await Category.objects.aget(pk=small.dining)).group_id
    op_id, _bills = await moved(small)
    group = await CategoryGroup.objects.aget(pk=before_group)
    await deleted_in_ynab(small.id, CategoryGroup, before_group)

    answer = await nothing_undone(small.id, op_id)

    [conflict] = answer["conflicts"]
    assert (conflict["id"], conflict["reason"]) == (
        small.dining,
        f"its group before, {group.name}, was deleted",
    )


async def test_a_category_deleted_since_its_budget_was_set_is_left_as_it_is(small):
    arguments = {
        "plan_id": small.id,
        "month": small.this_month.isoformat(),
        "category_id": small.groceries,
        "amount": "150.00",
    }
    op_id = (await write_with_code("set_category_budget", arguments))["operation_id"]
    await deleted_in_ynab(small.id, Category, small.groceries)

    answer = await nothing_undone(small.id, op_id)

    assert [(c["id"], c["reason"]) for c in answer["conflicts"]] == [(small.groceries, "it was deleted")]


async def test_a_category_deleted_since_its_target_was_set_is_left_as_it_is(small):
    arguments = {
        "plan_id": small.id,
        "category_id": small.groceries,
        "amount": "300.00",
        "cadence": "monthly",
    }
    op_id = (await write_with_code("set_category_target", arguments))["operation_id"]
    await deleted_in_ynab(small.id, Category, small.groceries)

    answer = await nothing_undone(small.id, op_id)

    assert [(c["id"], c["reason"]) for c in answer["conflicts"]] == [(small.groceries, "it was deleted")]
