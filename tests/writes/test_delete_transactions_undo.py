"""Undoing delete_transactions: the deleted transactions entered again (one POST), unless a
transaction of the same account, date, amount and payee was entered since."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import utc_today
from tests.helpers.write_cases.delete_transactions import deleting, other_side
from tests.writes.checks import make_available, requests_since, says_yes, standing, ynab
from tests.writes.harness import MODERN, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio

DAY = (utc_today() - timedelta(days=3)).isoformat()
FIELDS = ("date", "amount", "payee_name", "memo", "category_id", "cleared", "approved", "flag_color")


async def deleted(home: Household, transaction_ids: list[str]) -> str:
    case = deleting(home, transaction_ids)
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))
    return answer["operation_id"]


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def held(home: Household) -> dict[str, dict]:
    """Every live transaction of the plan, by id."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    return {t["id"]: t for t in data["transactions"] if not t["deleted"]}


def _as_entered(transaction: dict) -> tuple:
    lines = sorted(
        (line["amount"], line["category_id"], line["memo"], line["transfer_account_id"])
        for line in transaction["subtransactions"]
    )
    return (transaction["account_id"], *(transaction[name] for name in FIELDS), lines)


async def test_undo_enters_each_again_as_it_was_with_its_lines_and_both_sides_of_a_transfer(home):
    body = {
        "transactions": [{"id": home.market, "flag_color": "red", "approved": True, "cleared": "uncleared"}]
    }
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)
    given = [home.market, home.cafe, home.split, home.transfer]
    before = await held(home)
    savings_side = other_side(home.id, home.transfer)
    operation_id = await deleted(home, given)
    await make_available(home.id, DAY, home.home.dining, 30_000)
    await make_available(home.id, DAY, home.home.groceries, 10_000)
    start = await standing(deleting(home, given))

    answer, questions = await undone(home, operation_id)

    assert questions == [
        "Undo: enter 4 deleted transaction(s) again?\n"
        f"- {DAY}; CB MARKET FRESH 0509; 86.43; (uncategorised); on Checking\n"
        f"- {DAY}; CORNER CAFE; 12.34; Dining Out; on Checking\n"
        f"- {DAY}; BIG STORE; 30.00; Split; on Checking\n"
        f"- {DAY}; Transfer : Savings; 100.00; on Checking; transfer to Savings (both sides)\n"
        "Available, before → after:\n"
        f"- Groceries for {DAY[:7]}-01: 10.00 → -10.00\n"
        f"- Dining Out for {DAY[:7]}-01: 30.00 → 7.66\n"
        f"This leaves Groceries overspent by 10.00 for {DAY[:7]}-01."
    ]
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 4, [])
    sent = [line for line in await requests_since(start.mark) if not line.startswith("GET")]
    assert sent == [f"POST /sandbox/v1/plans/{home.id}/transactions"]  # one POST
    now = await held(home)
    entered = {t: now[t] for t in now.keys() - before.keys()}
    assert sorted(map(_as_entered, entered.values())) == sorted(
        _as_entered(before[t]) for t in (*given, savings_side)
    )
    undo_row = await Operation.objects.aget(pk=answer["operation_id"])
    restored = {item["deleted_id"]: item["transaction_id"] for item in undo_row.undo_data["restored"]}
    assert list(restored) == given
    assert now[restored[home.market]]["flag_color"] == "red"
    assert now[restored[home.transfer]]["transfer_transaction_id"] in entered  # its other side came back


async def test_a_lookalike_entered_since_is_left_and_named_a_twin_that_was_there_is_not(home):
    twin = {"account_id": home.home.checking, "date": DAY, "amount": -12_340, "payee_name": "CORNER CAFE"}
    made = await ynab("POST", f"/plans/{home.id}/transactions", json={"transactions": [twin]})
    [twin_id] = made["transaction_ids"]
    operation_id = await deleted(home, [home.market, twin_id])
    again = {
        "account_id": home.home.checking,
        "date": DAY,
        "amount": -86_430,
        "payee_name": "cb market fresh 0509",
    }
    made = await ynab("POST", f"/plans/{home.id}/transactions", json={"transactions": [again]})
    [again_id] = made["transaction_ids"]

    answer, questions = await undone(home, operation_id)

    reason = f"a transaction of the same account, date, amount and payee was entered since ({again_id})"
    assert questions == [
        "Undo: enter 1 deleted transaction(s) again?\n"
        f"- {DAY}; CORNER CAFE; 12.34; (uncategorised); on Checking\n"
        f"Left as it is, changed since: {DAY}; CB MARKET FRESH 0509; 86.43 ({reason})."
    ]
    assert (answer["status"], answer["restored"]) == ("applied", 1)
    assert answer["conflicts"] == [
        {"id": home.market, "name": f"{DAY}; CB MARKET FRESH 0509; 86.43", "reason": reason}
    ]
    cafes = [t for t in (await held(home)).values() if t["amount"] == -12_340]
    assert len(cafes) == 2  # the cafe that stayed, and its twin entered again


async def test_an_undo_whose_answer_is_lost_is_settled_as_landed(home):
    operation_id = await deleted(home, [home.market, home.salary])
    path = f"/plans/{home.id}/transactions$"
    await sync_to_async(faults.inject)("drop_after_write", method="POST", path=path)

    async with connected(MODERN, says_yes()) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    assert result.is_error
    await settling.settle_plan(home.id)

    undo_row = await Operation.objects.aget(undo_of_id=operation_id)
    original = await Operation.objects.aget(pk=operation_id)
    assert (undo_row.status, original.status, original.undone_by_id) == ("applied", "undone", undo_row.pk)
    assert (
        undo_row.error
        == f"Settled from YNAB's state: the undo landed: nothing of {operation_id} is left as it set it."
    )
