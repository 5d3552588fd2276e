"""What undo_operation refuses (docs/undo.md#what-undo-refuses), each time saying why, writing nothing, asking
nothing."""

from __future__ import annotations

import pytest
from django.conf import settings

from avenir_mcp.confirmations import messages
from avenir_mcp.oplog.models import Operation
from tests.helpers.results import refusal
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, fresh, logged, undo, undo_with_code

pytestmark = pytest.mark.anyio


async def refused(plan_id: str, **arguments) -> str:
    """The refusal of an undo, checked to have written nothing and logged nothing."""
    rows, mark = await Operation.objects.filter(plan_id=plan_id).acount(), await request_mark()
    async with agent() as client:
        text = refusal(await undo(client, plan_id=plan_id, **arguments))
    assert await writes_after(mark) == []
    assert await Operation.objects.filter(plan_id=plan_id).acount() == rows
    return text


async def test_it_refuses_to_undo_an_undo(budgets):
    _, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    text = await refused(budgets.plan_id, operation_id=second["operation_id"])

    assert text == (
        f"Operation {second['operation_id']} (undo_operation) is itself the undo of {budgets.op.pk}, "
        "and an undo cannot be undone; to bring that change back, make it again."
    )


async def test_it_refuses_an_operation_already_undone_naming_the_undo(budgets):
    _, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    text = await refused(budgets.plan_id, operation_id=budgets.op.pk)

    undone_by = second["operation_id"]
    assert (
        text == f"Operation {budgets.op.pk} (undo_test_budgets) was already undone by operation {undone_by}."
    )


async def test_it_refuses_an_operation_of_another_plan_as_unknown_here(budgets, demo_plan):
    elsewhere = await logged("another-plan", undo_data=budgets.op.undo_data)

    text = await refused(budgets.plan_id, operation_id=elsewhere.pk)

    assert text == f"No operation '{elsewhere.pk}' in this plan; list_operations gives the valid ids."
    assert (await fresh(elsewhere)).status == "applied"


async def test_it_refuses_a_malformed_operation_id_before_reading_anything(budgets):
    text = await refused(budgets.plan_id, operation_id="k3P9/../x")

    assert text.startswith(
        "'k3P9/../x' is not a valid operation id (it contains '/'): use an id from list_operations"
    )


@pytest.mark.parametrize(
    ("status", "says"),
    [
        ("failed", "failed, so it is not in effect and there is nothing to undo."),
        ("pending", "is still pending: its outcome is not recorded yet, so there is nothing to undo"),
    ],
)
async def test_it_refuses_a_failed_or_pending_operation(budgets, status, says):
    op = await logged(budgets.plan_id, status=status, undo_data=budgets.op.undo_data)

    text = await refused(budgets.plan_id, operation_id=op.pk)

    assert text.startswith(f"Operation {op.pk} (undo_test_budgets) ")
    assert says in text


@pytest.mark.parametrize(
    ("tool", "reason"),
    [
        ("import_transactions", "imports are not reversed"),
        ("create_category", "YNAB's API cannot delete a category"),
        ("create_account", "YNAB's API cannot close or delete an account"),
        ("create_category_group", "YNAB's API cannot delete a category group"),
        ("split_transaction", "YNAB's API cannot edit a split"),
        ("set_category_target", "the previous target is a kind YNAB's API cannot set"),
    ],
)
async def test_it_refuses_an_operation_logged_as_not_undoable_with_the_reason(budgets, tool, reason):
    op = await logged(budgets.plan_id, tool=tool, undoable=False, undo_data={"ids": []})

    text = await refused(budgets.plan_id, operation_id=op.pk)

    assert text.startswith(f"Operation {op.pk} ({tool}) cannot be undone: {reason}")


async def test_without_an_id_it_refuses_naming_the_latest_operation_when_that_cannot_be_undone(budgets):
    imported = await logged(budgets.plan_id, tool="import_transactions", undoable=False)

    text = await refused(budgets.plan_id)

    assert text.startswith(
        f"The latest operation of this plan cannot be undone: Operation {imported.pk} (import_transactions)"
    )
    assert text.endswith("To undo an older one, pass its operation_id (list_operations gives them).")
    assert (await fresh(budgets.op)).status == "applied"


async def test_without_an_id_on_a_plan_with_no_operation_it_says_so(demo_plan):
    text = await refused(demo_plan.id)

    assert text == "This plan has no operation in effect to undo; list_operations shows its log."


async def test_a_passed_code_is_refused_when_only_the_persons_own_answer_counts(budgets):
    async with agent() as client:
        first = (await undo(client, plan_id=budgets.plan_id, operation_id=budgets.op.pk)).structured_content
    settings.AVENIR_MCP_REQUIRE_ELICITATION = True

    text = await refused(budgets.plan_id, operation_id=budgets.op.pk, confirmation=first["confirmation"])

    assert text == messages.CODES_DISABLED
    assert await budgets.current() == budgets.after


async def test_it_refuses_an_operation_of_a_tool_this_server_has_no_undo_for(budgets):
    retired = await logged(budgets.plan_id, tool="retired_tool", undo_data={"ids": ["t1"]})

    text = await refused(budgets.plan_id, operation_id=retired.pk)

    assert text == (
        f"Operation {retired.pk} (retired_tool) cannot be undone: this server has no undo for retired_tool."
    )
    assert (await fresh(retired)).status == "applied"


async def test_it_refuses_an_operation_logged_without_undo_data(budgets):
    bare = await logged(budgets.plan_id)

    text = await refused(budgets.plan_id, operation_id=bare.pk)

    assert (
        text
        == f"Operation {bare.pk} (undo_test_budgets) cannot be undone: nothing was recorded to undo it with."
    )
