"""create_transactions whose answer was lost: settled by finding the lines by their content, then undone.

Through the SDK's real client and the live sandbox: the write's answer is dropped (after YNAB ran
it, or before), the person may act in YNAB meanwhile (enter a look-alike, delete a line, change
another transaction), then `settle_plan` reads the plan over real HTTP as the service does
before list_operations and undo_operation answer (`CreateTransactions.settle`), and
undo_operation deletes what was found, or says it looked and found none.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tokens.auth import Principal
from tests.helpers.write_cases.create_transactions import ids_on
from tests.writes.checks import make_available, says_yes, write_made, ynab
from tests.writes.fault_matrix import SCENARIOS
from tests.writes.harness import MODERN, WriteCase, connected, content

pytestmark = pytest.mark.anyio

PREFIX = "Settled from YNAB's state:"
HOW = "by their date, amount, payee and memo"


async def lines_case() -> tuple[WriteCase, str, set[str]]:
    """The matrix's case (Parking Meter, Cash from Mum on Checking), its account, and its ids now."""
    case = await SCENARIOS["create_transactions"].case()
    account = case.arguments["account_id"]
    return case, account, await ids_on(case.plan_id, account)


async def lost(case: WriteCase, fault: str) -> Operation:
    """The case's write with its answer lost (`fault`): the row is `unknown`, not settled yet."""
    await sync_to_async(faults.inject)(fault, method=case.write_method, path=case.write_path)
    async with connected(MODERN) as client:
        assert (await write_made(case, client)).is_error
    op = await Operation.objects.filter(plan_id=case.plan_id, tool=case.tool).alatest("created_at")
    assert (op.status, op.settled_at) == ("unknown", None)
    return op


async def settled(op: Operation) -> Operation:
    await settling.settle_plan(op.plan_id)
    return await Operation.objects.aget(pk=op.pk)


async def enter_again(case: WriteCase, index: int, *, plus: int = 0) -> str:
    """The person enters line `index` of the case once more in YNAB: the same content, or `plus`
    milliunits more."""
    line = case.arguments["transactions"][index]
    body = {
        "account_id": case.arguments["account_id"],
        "date": line["date"],
        "amount": int(Decimal(line["amount"]) * 1000) + plus,
        "payee_name": line["payee_name"],
        "memo": line.get("memo"),
    }
    answer = await ynab("POST", f"/plans/{case.plan_id}/transactions", json={"transaction": body})
    return answer["transaction"]["id"]


async def undone(case: WriteCase, op: Operation) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": case.plan_id, "operation_id": op.pk})
    return content(result), person.messages


async def entered(case: WriteCase, originals: set[str]) -> tuple[str, str]:
    """The two transactions the case's write entered: Parking Meter's, then Cash from Mum's."""
    data = await ynab("GET", f"/plans/{case.plan_id}/accounts/{case.arguments['account_id']}/transactions")
    new = {
        t["amount"]: t["id"] for t in data["transactions"] if t["id"] not in originals and not t["deleted"]
    }
    return new[-4_500], new[20_000]


def dated(case: WriteCase, index: int) -> str:
    return case.arguments["transactions"][index]["date"]


async def test_a_lost_answer_settles_applied_with_the_ids_found_and_undo_deletes_exactly_those():
    case, account, originals = await lines_case()
    dining = case.arguments["transactions"][0]["category_id"]
    await make_available(case.plan_id, dated(case, 0), dining, 10_000)
    op = await lost(case, "drop_after_write")
    parking, cash = await entered(case, originals)

    done = await settled(op)
    answer, questions = await undone(case, done)

    assert (done.status, [item["id"] for item in done.undo_data["transactions"]]) == (
        "applied",
        [parking, cash],
    )
    assert done.error == (
        f"{PREFIX} all 2 transaction(s) were found on Checking {HOW}, entered by this write: "
        f"transaction 1 ({parking}), transaction 2 ({cash}). undo_operation deletes exactly these."
    )
    assert questions == [
        "Undo: delete 2 transaction(s) on Checking?\n"
        f"- {dated(case, 0)}; Parking Meter; 4.50; Dining Out\n"
        f"- {dated(case, 1)}; Cash from Mum; +20.00; (uncategorised)\n"
        "Available, before → after:\n"
        f"- Dining Out for {dated(case, 0)[:7]}-01: 5.50 → 10.00\n"
        f"YNAB's answer was lost; these were found afterwards {HOW} ({parking}, {cash})."
    ]
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 2, [])
    assert await ids_on(case.plan_id, account) == originals


async def test_a_same_content_transaction_entered_before_the_write_is_not_claimed():
    case, account, _ = await lines_case()
    earlier = await enter_again(case, 0)  # a real duplicate the person entered before
    await enter_again(case, 0, plus=-10)  # and one of the same day and payee, 0.01 more
    originals = await ids_on(case.plan_id, account)
    op = await lost(case, "drop_after_write")
    parking, cash = await entered(case, originals)

    done = await settled(op)

    assert done.status == "applied"
    assert [item["id"] for item in done.undo_data["transactions"]] == [parking, cash]
    assert earlier not in done.error


async def test_nothing_entered_and_nothing_changed_since_is_settled_failed():
    case, _account, _originals = await lines_case()
    await enter_again(case, 0)  # same content, before the write: not taken for it
    op = await lost(case, "drop_before_write")

    done = await settled(op)

    assert (done.status, done.undo_data["transactions"]) == ("failed", [])
    assert done.error == (
        f"{PREFIX} none of the 2 transaction(s) is on Checking {HOW}, and no transaction was entered, "
        "changed or deleted there since the write: nothing was entered."
    )


async def test_a_line_deleted_before_settling_leaves_the_other_applied_and_names_the_missing_one():
    case, account, originals = await lines_case()
    op = await lost(case, "drop_after_write")
    parking, cash = await entered(case, originals)
    await ynab("DELETE", f"/plans/{case.plan_id}/transactions/{cash}")  # the person, meanwhile

    done = await settled(op)
    answer, _questions = await undone(case, done)

    assert (done.status, [item["id"] for item in done.undo_data["transactions"]]) == ("applied", [parking])
    assert done.error == (
        f"{PREFIX} 1 of 2 transaction(s) were found on Checking {HOW}: transaction 1 ({parking}); not "
        f"found: transaction 2 (dated {dated(case, 1)}). undo_operation deletes only those found; check "
        "find_transactions for the others before entering them again."
    )
    assert (answer["status"], answer["restored"]) == ("applied", 1)
    assert await ids_on(case.plan_id, account) == originals  # parking deleted by the undo, cash before


async def test_a_look_alike_entered_after_the_write_makes_that_line_unclaimed():
    case, _account, originals = await lines_case()
    op = await lost(case, "drop_after_write")
    parking, cash = await entered(case, originals)
    again = await enter_again(case, 0)  # the person enters Parking Meter by hand, meanwhile

    done = await settled(op)

    both = ", ".join(sorted([parking, again]))
    assert (done.status, [item["id"] for item in done.undo_data["transactions"]]) == ("applied", [cash])
    assert done.error == (
        f"{PREFIX} 1 of 2 transaction(s) were found on Checking {HOW}: transaction 2 ({cash}); transaction 1 "
        f"matched by 2 transactions entered since ({both}), more than asked, so YNAB cannot tell which. "
        "undo_operation deletes only those found; check find_transactions for the others before entering "
        "them again."
    )


async def test_every_line_matched_twice_stays_unknown_and_undo_says_it_found_none():
    case, account, originals = await lines_case()
    op = await lost(case, "drop_after_write")
    parking, cash = await entered(case, originals)
    copies = [await enter_again(case, 0), await enter_again(case, 1)]
    present = await ids_on(case.plan_id, account)

    done = await settled(op)
    answer, questions = await undone(case, done)

    first, second = ", ".join(sorted([parking, copies[0]])), ", ".join(sorted([cash, copies[1]]))
    assert (done.status, done.settled_at is not None, done.undo_data["transactions"]) == ("unknown", True, [])
    assert done.error == (
        f"{PREFIX} transaction 1 matched by 2 transactions entered since ({first}), more than asked, so "
        f"YNAB cannot tell which; transaction 2 matched by 2 transactions entered since ({second}), more "
        "than asked, so YNAB cannot tell which. Check them with find_transactions; undo_operation deletes "
        "none."
    )
    assert (answer["status"], questions) == ("nothing_to_do", [])
    assert answer["message"] == (
        f"Nothing to undo in operation {op.pk}: YNAB's answer was lost, so its transactions' ids were "
        f"never learnt, and looking for them {HOW} found none to delete ({done.error}). Nothing was "
        f"written, and {op.pk} keeps its status (unknown)."
    )
    assert await ids_on(case.plan_id, account) == present


async def test_none_found_while_the_account_changed_since_stays_unknown():
    case, _account, originals = await lines_case()
    op = await lost(case, "drop_before_write")
    other = sorted(originals)[0]
    body = {"transactions": [{"id": other, "memo": "edited in YNAB"}]}
    await ynab("PATCH", f"/plans/{case.plan_id}/transactions", json=body)  # the person, meanwhile

    done = await settled(op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == (
        f"{PREFIX} none of the 2 transaction(s) is on Checking {HOW}, but 1 transaction(s) were entered, "
        "changed or deleted in the plan since the write, so one may be a line changed since. Check "
        f"find_transactions on Checking for transaction 1 (dated {dated(case, 0)}), transaction 2 (dated "
        f"{dated(case, 1)}) before entering them again; undo_operation deletes none."
    )


async def test_the_agent_entering_them_again_keeps_each_operation_its_own_transactions():
    case, _account, originals = await lines_case()
    op = await lost(case, "drop_after_write")
    first = set(await entered(case, originals))
    async with connected(MODERN) as client:
        retry = content(await write_made(case, client))  # the agent, told the outcome is unknown

    done = await settled(op)

    assert set(retry["created_ids"]).isdisjoint(first)
    assert done.status == "applied"
    assert {item["id"] for item in done.undo_data["transactions"]} == first


async def test_a_row_logged_without_its_lines_content_says_where_to_look(home):
    checking = home.home.checking
    op = await log.begin(
        plan_id=home.id,
        tool="create_transactions",
        subject={"account_id": checking, "transactions": [{"date": "2026-01-02", "category_id": None}]},
        fingerprint="0" * 64,
        preview="Create 1 transaction(s) on Checking?",
        confirmed_by="code",
        principal=Principal.local("a row from before the log kept content"),
        undoable=True,
        undo_data={"account_id": checking, "transactions": []},
    )
    log.finished_writing(op)
    await log.complete(op, status="unknown", error="No answer came back.")

    done = await settled(op)

    assert (done.status, done.settled_at is not None) == ("unknown", True)
    assert done.error == (
        f"{PREFIX} no answer came back and this row does not keep what its lines were, so YNAB's state "
        "cannot show whether they were entered. Check find_transactions on Checking for 1 transaction(s) "
        "dated 2026-01-02 before entering them again; undo_operation cannot delete them."
    )
