"""Undoing create_transactions: each created transaction deleted while exactly as created."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tools.writes.create_transactions import CreationUndo
from tests.helpers.write_cases.create_transactions import creating, days_ago, ids_on
from tests.writes.checks import make_available, says_yes, ynab
from tests.writes.harness import MODERN, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


async def created(home: Household) -> tuple[str, list[str], set[str]]:
    originals = await ids_on(home.id, home.home.checking)
    lines = [
        {"date": days_ago(1), "amount": "-4.50", "payee_name": "Parking", "category_id": home.home.dining},
        {"date": days_ago(2), "amount": "20", "payee_name": "Cash from Mum", "memo": "birthday"},
    ]
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, creating(home, lines, originals)))
    return answer["operation_id"], answer["created_ids"], originals


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_deletes_what_it_created(home):
    await make_available(home.id, days_ago(1), home.home.dining, 10_000)
    operation_id, ids, originals = await created(home)

    answer, questions = await undone(home, operation_id)

    assert (
        questions
        == [  # the parking's 4.50 back in Dining Out, which had 10.00 before it
            "Undo: delete 2 transaction(s) on Checking?\n"
            f"- {days_ago(1)}; Parking; 4.50; Dining Out\n"
            f"- {days_ago(2)}; Cash from Mum; +20.00; (uncategorised)\n"
            "Available, before → after:\n"
            f"- Dining Out for {days_ago(1)[:7]}-01: 5.50 → 10.00"
        ]
    )
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 2, [])
    assert await ids_on(home.id, home.home.checking) == originals
    undo_row = await Operation.objects.aget(pk=answer["operation_id"])
    assert undo_row.undo_data == {"deleted_ids": ids}


async def test_a_transaction_changed_since_is_left_and_named_one_deleted_counts_as_before(home):
    operation_id, (parking, cash), originals = await created(home)
    body = {"transactions": [{"id": parking, "memo": "receipt kept"}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)  # changed in YNAB since
    await ynab("DELETE", f"/plans/{home.id}/transactions/{cash}")

    async with connected(MODERN) as client:
        answer = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
        )

    assert answer["status"] == "nothing_to_do"
    assert answer["already_as_before"] == 1
    assert answer["conflicts"] == [
        {
            "id": parking,
            "name": f"{days_ago(1)}; Parking; 4.50",
            "reason": "it changed since it was created (date, amount, payee, category or memo)",
        }
    ]
    assert await ids_on(home.id, home.home.checking) == originals | {parking}  # cash was deleted


async def refuse_delete_of(transaction_id: str) -> None:
    await sync_to_async(faults.inject)(
        "status", method="DELETE", path=f"/transactions/{transaction_id}$", status=400
    )


async def undo_refused(home: Household, operation_id: str) -> str:
    async with connected(MODERN, says_yes()) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    assert result.is_error
    return result.content[0].text


async def test_a_delete_refused_half_way_says_what_was_deleted_and_undoing_again_deletes_the_rest(home):
    operation_id, (parking, cash), originals = await created(home)
    await refuse_delete_of(cash)

    said = await undo_refused(home, operation_id)

    assert said.startswith(
        f"1 of the 2 transaction(s) were deleted ({parking}); the other 1 are still in YNAB because a "
        "delete failed: "
    )
    assert said.endswith(
        "Call undo_operation again to delete the rest (what is gone already counts as done)."
    )
    assert await ids_on(home.id, home.home.checking) == originals | {cash}
    undo_row = await Operation.objects.aget(undo_of_id=operation_id)
    assert (undo_row.status, undo_row.undo_data) == ("failed", {"deleted_ids": [parking]})
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"  # its claim given back

    again, _questions = await undone(home, operation_id)

    assert (again["status"], again["restored"], again["already_as_before"]) == ("applied", 1, 1)
    assert await ids_on(home.id, home.home.checking) == originals


async def test_a_first_delete_refused_deletes_nothing_and_leaves_the_operation_in_effect(home):
    operation_id, (parking, cash), originals = await created(home)
    await refuse_delete_of(parking)

    said = await undo_refused(home, operation_id)

    assert "1 of the 2" not in said
    assert await ids_on(home.id, home.home.checking) == originals | {parking, cash}
    undo_row = await Operation.objects.aget(undo_of_id=operation_id)
    assert undo_row.status == "failed"
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_a_delete_whose_answer_is_lost_leaves_the_undo_unknown_and_undoing_again_deletes_the_rest(home):
    operation_id, (parking, cash), originals = await created(home)
    await sync_to_async(faults.inject)("drop_after_write", method="DELETE", path=f"/transactions/{parking}$")

    said = await undo_refused(home, operation_id)

    undo_row = await Operation.objects.aget(undo_of_id=operation_id)
    assert said == (
        f"No answer came back from YNAB for operation {undo_row.pk}: the change may or may not be in "
        "YNAB, and it is not sent again. Call undo_operation again to see what is still to restore: it "
        "restores only what is still as the operation left it, so nothing is done twice."
    )
    assert undo_row.status == "unknown"
    assert await ids_on(home.id, home.home.checking) == originals | {cash}  # the lost delete landed

    again, _questions = await undone(home, operation_id)

    assert (again["status"], again["restored"], again["already_as_before"]) == ("applied", 1, 1)
    assert await ids_on(home.id, home.home.checking) == originals


DIGEST = "5" * 64


@pytest.mark.parametrize(
    "stored",
    [
        {"account_id": "checking", "transactions": [{"id": "t1", "digest": DIGEST}]},  # applied
        {  # begun, and kept when the answer is lost: the lines asked, the plan's knowledge
            "account_id": "checking",
            "transactions": [],
            "asked": [{"date": "2026-09-14", "content": DIGEST, "existing": ["t0"]}],
            "knowledge": 42,
        },
        {
            "account_id": "checking",
            "transactions": [],
            "asked": [{"date": "2026-09-14", "content": DIGEST, "existing": []}],
            "knowledge": None,
        },
        {  # settled by finding the lines by their content
            "account_id": "checking",
            "transactions": [{"id": "t1", "digest": DIGEST}, {"id": "t2", "digest": DIGEST}],
            "found_by_content": True,
        },
    ],
)
def test_a_rows_undo_data_as_logged_reads_back_and_is_stored_again_unchanged(stored):
    logged = CreationUndo.from_stored(stored)

    assert logged.stored() == stored
    assert [item.id for item in logged.transactions] == [item["id"] for item in stored["transactions"]]
