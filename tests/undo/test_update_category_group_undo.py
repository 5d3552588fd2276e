"""Undoing update_category_group: the old name back only while the name is still the new one and the
old one free.

The rename undone: Everyday → Fun.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import CategoryGroup
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import nothing_undone, undo_with_code, write_with_code
from tests.helpers.write_cases.category_groups import group_names, rename_group_in_ynab
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.checks import ynab

pytestmark = pytest.mark.anyio


@pytest.fixture
def budget(live_service) -> BudgetHome:
    return budget_home("Undo update_category_group")


async def _renamed(budget: BudgetHome, name: str = "Fun") -> str:
    """Everyday renamed `name`, agreed to: the operation's id."""
    arguments = {"plan_id": budget.id, "category_group_id": budget.home.everyday_group, "name": name}
    applied = await write_with_code("update_category_group", arguments)
    assert applied["status"] == "applied", applied
    return applied["operation_id"]


async def test_undo_puts_the_old_name_back(budget):
    op_id = await _renamed(budget)

    mark = await request_mark()

    first, second = await undo_with_code(budget.id, operation_id=op_id)

    assert first["preview"] == "Undo: rename category group ‘Fun’ to ‘Everyday’?"
    assert (second["status"], second["restored"]) == ("applied", 1)
    assert (await group_names(budget.id))[budget.home.everyday_group] == "Everyday"
    assert len(await writes_after(mark)) == 1
    undo_row = await Operation.objects.aget(pk=second["operation_id"])
    assert undo_row.undo_data == {"restored": [{"category_group_id": budget.home.everyday_group}]}
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_undo_leaves_a_name_changed_since_alone_and_reports_it(budget):
    group = budget.home.everyday_group
    op_id = await _renamed(budget)
    await rename_group_in_ynab(budget.id, group, "Leisure")

    answer = await nothing_undone(budget.home, op_id)

    assert answer["conflicts"] == [
        {
            "id": group,
            "name": "Leisure",
            "reason": "its name is now ‘Leisure’, not ‘Fun’ as the operation left it",
        }
    ]
    assert (await group_names(budget.id))[group] == "Leisure"


async def test_undo_leaves_it_alone_when_the_old_name_is_taken_since(budget):
    op_id = await _renamed(budget)
    await ynab("POST", f"/plans/{budget.id}/category_groups", json={"category_group": {"name": "EVERYDAY"}})

    answer = await nothing_undone(budget.home, op_id)

    assert answer["conflicts"] == [
        {
            "id": budget.home.everyday_group,
            "name": "Fun",
            "reason": "the name ‘Everyday’ is now another group's",
        }
    ]


async def test_undo_counts_a_name_put_back_in_ynab_as_already_as_before(budget):
    op_id = await _renamed(budget)
    await rename_group_in_ynab(budget.id, budget.home.everyday_group, "Everyday")

    answer = await nothing_undone(budget.home, op_id)

    assert (answer["already_as_before"], answer["restored"], answer["conflicts"]) == (1, 0, [])


async def test_undo_leaves_a_group_deleted_since_as_it_is(budget):
    """Deleted in YNAB's app (the API cannot delete a group): a conflict, nothing written."""
    group = budget.home.everyday_group
    op_id = await _renamed(budget)
    await sync_to_async(_deleted_in_ynab)(budget.id, group)

    answer = await nothing_undone(budget.home, op_id)

    assert answer["conflicts"] == [{"id": group, "name": "Fun", "reason": "it was deleted"}]


def _deleted_in_ynab(plan_id: str, group_id: str) -> None:
    with plan_write(plan_id) as write:
        CategoryGroup.objects.filter(pk=group_id).update(deleted=True, knowledge=write.knowledge)
        write.months_changed_from(write.plan.first_month)
