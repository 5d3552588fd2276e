"""undo_operation through the SDK's real client: what it restores, reports, refuses and logs.

These tests drive the framework with the test handler of `budget_undo` (several independent
categories); the real tools' handlers have tests of their own (`test_<tool>_undo.py`).
"""

from __future__ import annotations

import pytest

from avenir_mcp.confirmations.fingerprint import fingerprint
from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import MODERN, PERSON, agent, fresh, logged, set_assigned, undo, undo_with_code

pytestmark = pytest.mark.anyio


async def test_it_restores_what_is_still_as_the_operation_left_it(budgets):
    mark = await request_mark()
    first, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    assert first["preview"].splitlines()[0] == f"Undo: budget 2 category(ies) for {budgets.month}?"
    assert second["status"] == "applied"
    assert second["undone_operation_id"] == budgets.op.pk
    assert (second["restored"], second["already_as_before"], second["conflicts"]) == (2, 0, [])
    assert await budgets.current() == budgets.before
    assert len(await writes_after(mark)) == 2  # one PATCH per category, each sent once


async def test_the_undo_is_logged_as_its_own_row_and_the_operation_as_undone(budgets):
    _, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    undo_row = await Operation.objects.aget(pk=second["operation_id"])
    original = await fresh(budgets.op)
    assert (original.status, original.undone_by_id) == ("undone", undo_row.pk)
    assert undo_row.tool == "undo_operation"
    assert (undo_row.status, undo_row.undo_of_id, undo_row.undoable) == ("applied", budgets.op.pk, False)
    assert undo_row.confirmed_by == "code"
    assert undo_row.client == PERSON.name
    assert undo_row.subject == {"operation_id": budgets.op.pk}
    assert undo_row.fingerprint == fingerprint(budgets.plan_id, {"operation_id": budgets.op.pk})
    assert undo_row.preview == second["preview"]
    assert undo_row.undo_data["restored"] == [item["category_id"] for item in budgets.items]
    assert second["message"].endswith(f"undoing {budgets.op.pk}; an undo cannot itself be undone.")


async def test_it_leaves_an_item_changed_since_alone_and_reports_it(budgets):
    changed = budgets.items[1]
    await set_assigned(budgets.plan_id, budgets.month, changed["category_id"], 777_000)

    first, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    preview = first["preview"].splitlines()
    assert preview[0] == f"Undo: budget 1 category(ies) for {budgets.month}?"
    assert [line for line in preview if line.startswith("- ")] == [preview[1]]
    assert preview[1].startswith("- Groceries: ")
    assert "Left as it is, changed since: Dining Out (assigned is now 777,00)." in preview
    assert second["status"] == "applied"
    assert second["restored"] == 1
    assert second["conflicts"] == [
        {"id": changed["category_id"], "name": "Dining Out", "reason": "assigned is now 777,00"}
    ]
    assert await budgets.current() == [budgets.before[0], 777_000]


async def test_items_already_back_as_before_are_counted_not_written(budgets):
    await set_assigned(budgets.plan_id, budgets.month, budgets.items[0]["category_id"], budgets.before[0])
    mark = await request_mark()

    _, second = await undo_with_code(budgets.plan_id, operation_id=budgets.op.pk)

    assert (second["restored"], second["already_as_before"]) == (1, 1)
    assert len(await writes_after(mark)) == 1
    assert await budgets.current() == budgets.before


async def test_with_nothing_left_to_restore_it_writes_nothing_and_the_operation_keeps_its_status(budgets):
    await set_assigned(budgets.plan_id, budgets.month, budgets.items[0]["category_id"], budgets.before[0])
    await set_assigned(budgets.plan_id, budgets.month, budgets.items[1]["category_id"], 5_000)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=budgets.plan_id, operation_id=budgets.op.pk))

    assert answer["status"] == "nothing_to_do"
    assert (answer["restored"], answer["already_as_before"], len(answer["conflicts"])) == (0, 1, 1)
    assert answer["confirmation"] is None
    assert answer["operation_id"] is None
    assert "Nothing was written" in answer["message"]
    assert await writes_after(mark) == []
    assert (await fresh(budgets.op)).status == "applied"


async def test_an_unknown_operation_whose_write_never_landed_is_settled_failed_and_not_undone(budgets):
    for item in budgets.items:  # the write was sent, no answer came back, and it never landed
        await set_assigned(budgets.plan_id, budgets.month, item["category_id"], item["before"])
    unknown = await logged(budgets.plan_id, status="unknown", undo_data=budgets.op.undo_data)
    mark = await request_mark()

    async with agent() as client:
        text = refusal(await undo(client, plan_id=budgets.plan_id, operation_id=unknown.pk))

    assert text.endswith(
        "failed, so it is not in effect and there is nothing to undo. What happened: Settled from YNAB's "
        "state: none of its 2 item(s) is in YNAB: nothing was changed."
    )
    assert await writes_after(mark) == []
    assert (await fresh(unknown)).status == "failed"


async def test_an_unknown_operation_whose_write_landed_is_restored(budgets):
    unknown = await logged(budgets.plan_id, status="unknown", undo_data=budgets.op.undo_data)

    _, second = await undo_with_code(budgets.plan_id, operation_id=unknown.pk)

    assert second["restored"] == 2
    assert await budgets.current() == budgets.before
    assert (await fresh(unknown)).status == "undone"


async def test_without_an_id_it_undoes_the_latest_operation_in_effect(budgets):
    _, second = await undo_with_code(budgets.plan_id)

    assert second["undone_operation_id"] == budgets.op.pk
    assert await budgets.current() == budgets.before


async def test_a_person_who_says_yes_in_the_client_gets_the_undo_applied(budgets):
    async with agent(MODERN, answer="accept") as client:
        answer = ok(await undo(client, plan_id=budgets.plan_id, operation_id=budgets.op.pk))

    assert answer["status"] == "applied"
    assert (await Operation.objects.aget(pk=answer["operation_id"])).confirmed_by == "input_required"
    assert await budgets.current() == budgets.before


@pytest.mark.parametrize("mode", [MODERN, "legacy"])
async def test_a_person_who_declines_gets_nothing_written(budgets, mode):
    mark = await request_mark()
    async with agent(mode, answer="decline") as client:
        answer = ok(await undo(client, plan_id=budgets.plan_id, operation_id=budgets.op.pk))

    assert answer["status"] == "declined"
    assert await writes_after(mark) == []
    assert await budgets.current() == budgets.after
    assert (await fresh(budgets.op)).status == "applied"


async def test_a_wrong_code_is_refused_and_writes_nothing(budgets):
    mark = await request_mark()
    async with agent() as client:
        arguments = {"plan_id": budgets.plan_id, "operation_id": budgets.op.pk, "confirmation": "x" * 11}
        text = refusal(await undo(client, **arguments))

    assert text.startswith("This confirmation code is unknown, expired, already used")
    assert await writes_after(mark) == []


async def test_the_preview_names_twenty_items_changed_since_then_says_how_many_more(budgets):
    gone = [{"category_id": f"deleted-{n:02}", "before": 0, "after": 1_000} for n in range(21)]
    data = {"month": budgets.month, "categories": [budgets.items[0], *gone]}
    op = await logged(budgets.plan_id, undo_data=data)

    async with agent() as client:
        first = ok(await undo(client, plan_id=budgets.plan_id, operation_id=op.pk))

    lines = first["preview"].splitlines()
    left = [line for line in lines if line.startswith("Left as it is, changed since: deleted-")]
    assert lines[0] == f"Undo: budget 1 category(ies) for {budgets.month}?"
    assert len(left) == 20
    assert left[0] == "Left as it is, changed since: deleted-00 (it was deleted)."
    assert lines[lines.index(left[-1]) + 1] == "… and 1 more left as they are, changed since."
    assert len(first["conflicts"]) == 21
