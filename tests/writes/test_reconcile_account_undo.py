"""Undoing reconcile_account: cleared again where still reconciled, the adjustment deleted if unchanged."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tools.writes.reconcile_account import LoggedReconciliation
from tests.helpers.write_cases.reconcile_account import reconciling, set_cleared
from tests.writes.checks import says_yes, standing, ynab
from tests.writes.harness import MODERN, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


async def reconciled(home: Household, gap: int):
    case = await reconciling(home, gap=gap)
    start = await standing(case)
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))
    return case, start, answer


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_returns_them_to_cleared_and_deletes_the_adjustment(home):
    case, start, answer = await reconciled(home, 5_000)
    count = len(case.extra["to_reconcile"])

    undo, questions = await undone(home, answer["operation_id"])

    lines = questions[0].splitlines()
    assert (
        lines[0]
        == f"Undo: return {count} transaction(s) on Checking to cleared and delete the +5.00 adjustment?"
    )
    assert len(lines) == count + 2
    assert lines[-1].endswith("; Reconciliation Balance Adjustment; +5.00: deleted")
    assert all(line.endswith(": reconciled → cleared") for line in lines[1:-1])
    assert (undo["status"], undo["restored"], undo["conflicts"]) == ("applied", count + 1, [])
    assert await case.state() == start.state


async def test_one_changed_since_and_a_changed_adjustment_are_left_and_named(home):
    case, _start, answer = await reconciled(home, 5_000)
    adjustment = answer["adjustment"]["transaction_id"]
    changed = case.extra["to_reconcile"][0]
    await set_cleared(home.id, [changed], "uncleared")
    body = {"transactions": [{"id": adjustment, "memo": "checked with the bank"}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)

    undo, questions = await undone(home, answer["operation_id"])

    count = len(case.extra["to_reconcile"]) - 1
    assert questions[0].splitlines()[0] == f"Undo: return {count} transaction(s) on Checking to cleared?"
    reasons = {c["id"]: c["reason"] for c in undo["conflicts"]}
    assert reasons == {
        changed: "it is uncleared now",
        adjustment: "it changed since it was entered (date, amount, payee, category or memo)",
    }
    statuses, new = await case.state()
    assert statuses[changed] == "uncleared"
    assert [row[4] for row in new] == ["checked with the bank"]  # the adjustment is still there
    assert all(statuses[t] == "cleared" for t in case.extra["to_reconcile"][1:])


async def undo_refusing_the_delete(home, answer: dict):
    """undo_operation of `answer`'s reconciliation, the person saying yes, and YNAB refusing the
    adjustment's delete (400)."""
    adjustment = answer["adjustment"]["transaction_id"]
    await sync_to_async(faults.inject)(
        "status", method="DELETE", path=f"/transactions/{adjustment}$", status=400
    )
    async with connected(MODERN, says_yes()) as client:
        arguments = {"plan_id": home.id, "operation_id": answer["operation_id"]}
        return await client.call_tool("undo_operation", arguments)


async def test_an_adjustment_whose_delete_is_refused_is_said_and_a_later_undo_deletes_it(home):
    case, start, answer = await reconciled(home, 5_000)
    adjustment = answer["adjustment"]["transaction_id"]
    count = len(case.extra["to_reconcile"])
    refused = await undo_refusing_the_delete(home, answer)

    assert refused.is_error
    text = refused.content[0].text
    assert text.startswith(
        f"The {count} transaction(s) are cleared again, but deleting the adjustment {adjustment} failed: "
    )
    assert "Call undo_operation again to delete it." in text
    undo_row = await Operation.objects.aget(undo_of_id=answer["operation_id"])
    assert undo_row.status == "failed"
    assert sorted(undo_row.undo_data["cleared_ids"]) == sorted(case.extra["to_reconcile"])

    again, _questions = await undone(home, answer["operation_id"])

    assert (again["status"], again["restored"], again["already_as_before"]) == ("applied", 1, count)
    assert await case.state() == start.state


async def test_undo_without_an_adjustment_returns_them_to_cleared_and_deletes_nothing(home):
    case, start, answer = await reconciled(home, 0)
    count = len(case.extra["to_reconcile"])

    undo, questions = await undone(home, answer["operation_id"])

    assert questions[0].splitlines()[0] == f"Undo: return {count} transaction(s) on Checking to cleared?"
    assert (undo["status"], undo["restored"], undo["conflicts"]) == ("applied", count, [])
    assert await case.state() == start.state


async def test_an_adjustment_the_person_deleted_since_counts_as_before(home):
    case, start, answer = await reconciled(home, 5_000)
    count = len(case.extra["to_reconcile"])
    await ynab("DELETE", f"/plans/{home.id}/transactions/{answer['adjustment']['transaction_id']}")

    undo, questions = await undone(home, answer["operation_id"])

    assert questions[0].splitlines()[0] == f"Undo: return {count} transaction(s) on Checking to cleared?"
    assert (undo["status"], undo["restored"], undo["already_as_before"]) == ("applied", count, 1)
    assert await case.state() == start.state


async def test_an_adjustment_whose_delete_gets_no_answer_leaves_the_undo_unknown(home):
    case, start, answer = await reconciled(home, 5_000)
    adjustment = answer["adjustment"]["transaction_id"]
    await sync_to_async(faults.inject)(
        "drop_after_write", method="DELETE", path=f"/transactions/{adjustment}$"
    )

    async with connected(MODERN, says_yes()) as client:
        arguments = {"plan_id": home.id, "operation_id": answer["operation_id"]}
        lost = await client.call_tool("undo_operation", arguments)

    assert lost.is_error
    undo_row = await Operation.objects.aget(undo_of_id=answer["operation_id"])
    assert undo_row.status == "unknown"
    assert lost.content[0].text.startswith(f"No answer came back from YNAB for operation {undo_row.pk}: ")
    assert await case.state() == start.state  # the cleared marks and the delete both landed


async def test_a_refused_delete_of_the_adjustment_alone_is_said_and_leaves_the_operation_in_effect(home):
    case, _start, answer = await reconciled(home, 5_000)
    await set_cleared(home.id, case.extra["to_reconcile"], "cleared")  # the person, since
    refused = await undo_refusing_the_delete(home, answer)

    assert refused.is_error
    undo_row = await Operation.objects.aget(undo_of_id=answer["operation_id"])
    assert refused.content[0].text == (
        "YNAB refused the request as invalid (400). YNAB said: Bad Request (a fault injected in the "
        "sandbox; the request was not run). Nothing was changed "
        f"(operation {undo_row.pk} is logged as failed)."
    )
    assert undo_row.status == "failed"
    assert (await Operation.objects.aget(pk=answer["operation_id"])).status == "applied"
    _statuses, new = await case.state()
    assert [row[1] for row in new] == [5_000]  # the adjustment is still in YNAB


@pytest.mark.parametrize(
    "stored",
    [
        {  # begun: no adjustment named yet
            "account_id": "checking",
            "reconciled_ids": ["t1", "t2"],
            "adjustment_id": None,
            "adjustment_digest": None,
            "knowledge_before": 42,
        },
        {
            "account_id": "checking",
            "reconciled_ids": [],
            "adjustment_id": "adj",
            "adjustment_digest": "5" * 64,
            "knowledge_before": 42,
        },
    ],
)
def test_a_rows_undo_data_as_logged_reads_back_and_is_stored_again_unchanged(stored):
    assert LoggedReconciliation.from_stored(stored).stored() == stored


@pytest.mark.parametrize("knowledge", ["42", True, 4.2])
def test_a_stored_knowledge_that_is_not_a_number_reads_as_unknown(knowledge):
    """Settling then claims no adjustment from the plan's delta (it cannot say since when)."""
    stored = {"account_id": "checking", "reconciled_ids": ["t1"], "knowledge_before": knowledge}

    assert LoggedReconciliation.from_stored(stored).knowledge_before is None
