"""Undoing transfer_money (both sides deleted while the transfer is exactly as created), and a
transfer whose answer was lost: settled by finding it, never entered twice, then undone."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tools.writes.transfer_money import TransferUndo
from tests.helpers.write_cases.create_transactions import days_ago
from tests.helpers.write_cases.transfer_money import entered_on, originals_of, transferring
from tests.writes.checks import make_available, says_yes, write_made, ynab
from tests.writes.harness import MODERN, WriteCase, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio

PREFIX = "Settled from YNAB's state:"
HOW = "by their date, amount, payee and memo"


async def transferred(home: Household) -> tuple[WriteCase, str, list[str]]:
    """The card payment made: its case, operation id and both sides' ids."""
    case = transferring(home, await originals_of(home.id, home.home.checking, home.home.card))
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))
    return case, answer["operation_id"], answer["transaction_ids"]


async def undone(plan_id: str, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": plan_id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_deletes_both_sides_with_one_delete_of_the_source(home):
    case, operation_id, (source, pair) = await transferred(home)
    mark = await sync_to_async(faults.last_request_id)()

    answer, questions = await undone(home.id, operation_id)

    assert questions == [f"Undo: delete the transfer of 150.00 from Checking to Visa on {days_ago(1)}?"]
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 1, [])
    assert await case.state() == []
    served = await sync_to_async(faults.requests_since)(mark)
    assert [f"{e.method} {e.path}" for e in served if e.method != "GET"] == [
        f"DELETE /sandbox/v1/plans/{home.id}/transactions/{source}"
    ]
    undo_row = await Operation.objects.aget(pk=answer["operation_id"])
    assert undo_row.undo_data == {"deleted_ids": [source, pair]}
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"


async def test_undo_of_a_categorised_transfer_shows_the_category_getting_it_back(home):
    h = home.home
    await make_available(home.id, days_ago(0), h.rent, 600_000)
    case = transferring(
        home,
        await originals_of(home.id, h.checking, h.house),
        to_account_id=h.house,
        amount="500",
        date=days_ago(0),
        memo=None,
        category_id=h.rent,
    )
    async with connected(MODERN, says_yes()) as client:
        operation_id = content(await call(client, case))["operation_id"]

    answer, questions = await undone(home.id, operation_id)

    assert questions == [
        f"Undo: delete the transfer of 500.00 from Checking to House on {days_ago(0)}?\n"
        "Available, before → after:\n"
        f"- Rent for {days_ago(0)[:7]}-01: 100.00 → 600.00"
    ]
    assert answer["status"] == "applied"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"memo": "paid by phone"}, "it changed since it was created (date, amount, accounts or memo)"),
        ({"amount": -160_000}, "it changed since it was created (date, amount, accounts or memo)"),
    ],
)
async def test_a_transfer_changed_since_is_left_and_nothing_is_written(home, change, reason):
    case, operation_id, (source, _pair) = await transferred(home)
    await ynab("PUT", f"/plans/{home.id}/transactions/{source}", json={"transaction": change})
    changed = await case.state()
    mark = await sync_to_async(faults.last_request_id)()

    async with connected(MODERN) as client:
        answer = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
        )

    amount = "160.00" if "amount" in change else "150.00"
    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {"id": source, "name": f"{days_ago(1)}; Transfer : Visa; {amount}", "reason": reason}
    ]
    assert await case.state() == changed
    served = await sync_to_async(faults.requests_since)(mark)
    assert [e.method for e in served if e.method != "GET"] == []
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_a_side_given_another_payee_breaks_the_transfer_and_is_a_conflict(home):
    _case, operation_id, (source, pair) = await transferred(home)
    body = {"transaction": {"payee_name": "Card refund", "payee_id": None}}
    await ynab("PUT", f"/plans/{home.id}/transactions/{pair}", json=body)  # the source side goes with it

    async with connected(MODERN) as client:
        answer = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
        )

    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {
            "id": source,
            "name": f"{days_ago(1)}; Card refund; +150.00",
            "reason": "it is no longer this transfer: a side was deleted or given another payee since",
        }
    ]


async def test_a_transfer_deleted_in_ynab_is_already_as_before(home):
    case, operation_id, (_source, pair) = await transferred(home)
    await ynab("DELETE", f"/plans/{home.id}/transactions/{pair}")  # YNAB deletes both sides

    async with connected(MODERN) as client:
        answer = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
        )

    assert (answer["status"], answer["already_as_before"], answer["conflicts"]) == ("nothing_to_do", 1, [])
    assert await case.state() == []


# --- a lost answer ------------------------------------------------------------------------------------


async def lost(case: WriteCase, fault: str) -> Operation:
    """The case's write with its answer lost (`fault`): the row is `unknown`, not settled yet."""
    await sync_to_async(faults.inject)(fault, method=case.write_method, path=case.write_path)
    async with connected(MODERN) as client:
        assert (await write_made(case, client)).is_error
    op = await Operation.objects.filter(plan_id=case.plan_id, tool=case.tool).alatest("created_at")
    assert (op.status, op.settled_at, op.undo_data["transaction_ids"]) == ("unknown", None, [])
    return op


async def settled(op: Operation) -> Operation:
    await settling.settle_plan(op.plan_id)
    return await Operation.objects.aget(pk=op.pk)


async def sides_of(case: WriteCase) -> tuple[str, str]:
    data = await ynab(
        "GET", f"/plans/{case.plan_id}/accounts/{case.arguments['from_account_id']}/transactions"
    )
    [source] = [
        t
        for t in data["transactions"]
        if t["memo"] == case.arguments["memo"] and t["amount"] == -150_000 and not t["deleted"]
    ]
    return source["id"], source["transfer_transaction_id"]


async def test_a_lost_answer_finds_the_transfer_entered_and_undo_deletes_it(home):
    case = transferring(home, await originals_of(home.id, home.home.checking, home.home.card))
    op = await lost(case, "drop_after_write")
    source, pair = await sides_of(case)

    done = await settled(op)
    answer, questions = await undone(home.id, op.pk)

    assert (done.status, done.undo_data["transaction_ids"], done.undo_data["found_by_content"]) == (
        "applied",
        [source, pair],
        True,
    )
    assert done.error == (
        f"{PREFIX} all 1 transaction(s) were found on Checking {HOW}, entered by this write: "
        f"transaction 1 ({source}). undo_operation deletes exactly these."
    )
    assert questions == [
        f"Undo: delete the transfer of 150.00 from Checking to Visa on {days_ago(1)}?\n"
        "YNAB's answer was lost; this transfer was found afterwards by its date, amount, accounts and memo "
        f"({source}, {pair})."
    ]
    assert answer["status"] == "applied"
    assert await case.state() == []


async def test_a_same_transfer_made_before_the_write_or_claimed_by_another_is_not_taken(home):
    """The person paid the card the same amount before (existing), and the agent made the transfer
    again after the lost answer (another operation's): neither is this write's, so it entered nothing."""
    h = home.home
    originals = await originals_of(home.id, h.checking, h.card)
    earlier = transferring(home, originals)
    async with connected(MODERN, says_yes()) as client:
        content(await call(client, earlier))
    case = transferring(home, await originals_of(home.id, h.checking, h.card))
    op = await lost(case, "drop_before_write")
    async with connected(MODERN, says_yes()) as client:
        again = content(await call(client, case))

    done = await settled(op)

    assert again["status"] == "applied"
    assert done.status == "unknown"  # the plan moved since the write (the second one entered)
    assert done.error.startswith(f"{PREFIX} none of the 1 transaction(s) is on Checking {HOW}, but ")
    answer, _questions = await undone(home.id, op.pk)
    assert answer["status"] == "nothing_to_do"
    assert answer["message"] == (
        f"Nothing to undo in operation {op.pk}: YNAB's answer was lost, so the transfer's ids were never "
        "learnt, and looking for it by its date, amount, accounts and memo found none to delete "
        f"({done.error}). "
        f"Nothing was written, and {op.pk} keeps its status (unknown)."
    )


async def test_a_lost_write_that_never_ran_settles_failed_with_nothing_entered(home):
    case = transferring(home, await originals_of(home.id, home.home.checking, home.home.card))
    op = await lost(case, "drop_before_write")

    done = await settled(op)

    assert done.status == "failed"
    assert done.error == (
        f"{PREFIX} none of the 1 transaction(s) is on Checking {HOW}, and no transaction was entered, "
        "changed or deleted there since the write: nothing was entered."
    )
    assert await case.state() == []
    assert await entered_on(home.id, (home.home.checking,), set()) != []  # the household's own are there


DIGEST = "5" * 64
ASKED = {"date": "2026-09-14", "content": DIGEST, "existing": ["t0"]}


@pytest.mark.parametrize(
    "stored",
    [
        {  # begun, and kept when the answer is lost
            "from_account_id": "checking",
            "to_account_id": "visa",
            "date": "2026-09-14",
            "asked": ASKED,
            "knowledge": 42,
            "transaction_ids": [],
        },
        {  # applied
            "from_account_id": "checking",
            "to_account_id": "visa",
            "date": "2026-09-14",
            "asked": ASKED,
            "knowledge": 42,
            "transaction_ids": ["t1", "t2"],
            "digest": DIGEST,
        },
        {  # settled by finding it by its content
            "from_account_id": "checking",
            "to_account_id": "visa",
            "date": "2026-09-14",
            "asked": ASKED,
            "knowledge": 42,
            "transaction_ids": ["t1", "t2"],
            "digest": DIGEST,
            "found_by_content": True,
        },
    ],
)
def test_a_rows_undo_data_as_logged_reads_back_and_is_stored_again_unchanged(stored):
    assert TransferUndo.from_stored(stored).stored() == stored
