"""Undoing update_transactions: each transaction changed back where every field is still as left;
one changed since, or deleted, is left and named; one already back counts as such."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from tests.helpers.write_cases.create_transactions import days_ago
from tests.helpers.write_cases.update_transactions import (
    NEW_PAYEE,
    held,
    month_of,
    moved_day,
    patch,
    update_case,
    updating,
)
from tests.writes.checks import requests_since, says_yes, standing, ynab
from tests.writes.harness import MODERN, call, connected, content, error_text
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


async def updated(home: Household) -> str:
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, update_case(home)))
    assert answer["status"] == "applied", answer
    return answer["operation_id"]


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_changes_each_field_back_the_payee_by_its_id(home):
    h = home.home
    start = await held(home, home.market, home.cafe, home.transfer)
    payee_before = (await ynab("GET", f"/plans/{home.id}/transactions/{home.cafe}"))["transaction"][
        "payee_id"
    ]
    operation_id = await updated(home)

    answer, questions = await undone(home, operation_id)

    day, new_day = days_ago(3), moved_day()
    assert questions == [
        "Undo: change 3 transaction(s) back?\n"
        f"- {day}; CB MARKET FRESH 0509; 68.40: amount 68.40 → 86.43; memo ‘refund due’ → ‘weekly shop’; "
        "cleared → uncleared\n"
        f"- {new_day}; {NEW_PAYEE}; 12.34: date {new_day} → {day}; payee ‘{NEW_PAYEE}’ → ‘CORNER CAFE’\n"
        f"- {day}; Transfer : Savings; 120.00: amount 120.00 → 100.00 (and its transfer side on Savings)\n"
        "Available, before → after:\n"
        f"- Dining Out for {month_of(day)}: -10.00 → -22.34\n"
        f"- Dining Out for {month_of(new_day)}: -12.34 → 0.00\n"
        f"This leaves Dining Out overspent by 22.34 for {month_of(day)}."
    ]
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 3, [])
    assert await held(home, home.market, home.cafe, home.transfer) == start
    cafe = (await ynab("GET", f"/plans/{home.id}/transactions/{home.cafe}"))["transaction"]
    assert cafe["payee_id"] == payee_before
    savings = await ynab("GET", f"/plans/{home.id}/accounts/{h.savings}/transactions")
    assert [t["amount"] for t in savings["transactions"] if t["transfer_account_id"]] == [100_000]
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"


async def test_a_transaction_changed_since_is_left_and_named_the_rest_restored(home):
    operation_id = await updated(home)
    await patch(home, {"id": home.market, "amount": -70_000})  # the person corrected it again in YNAB
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.transfer}")

    answer, questions = await undone(home, operation_id)

    day = days_ago(3)
    assert questions[0].splitlines()[0] == "Undo: change 1 transaction(s) back?"
    assert questions[0].splitlines()[2:] == [
        "Available, before → after:",
        f"- Dining Out for {month_of(day)}: -10.00 → -22.34",
        f"- Dining Out for {month_of(moved_day())}: -12.34 → 0.00",
        f"Left as it is, changed since: {day}; CB MARKET FRESH 0509; 70.00 (its amount changed since).",
        f"Left as it is, changed since: transaction {home.transfer} (it was deleted).",
        f"This leaves Dining Out overspent by 22.34 for {month_of(day)}.",
    ]
    assert (answer["status"], answer["restored"]) == ("applied", 1)
    assert answer["conflicts"] == [
        {
            "id": home.market,
            "name": f"{day}; CB MARKET FRESH 0509; 70.00",
            "reason": "its amount changed since",
        },
        {"id": home.transfer, "name": f"transaction {home.transfer}", "reason": "it was deleted"},
    ]
    now = await held(home, home.market, home.cafe)
    assert now[home.market][1:5] == (-70_000, "CB MARKET FRESH 0509", "refund due", "cleared")
    assert now[home.cafe][:3] == (day, -12_340, "CORNER CAFE")


async def test_everything_back_or_changed_since_writes_nothing(home):
    operation_id = await updated(home)
    await patch(
        home,
        {"id": home.market, "amount": -86_430, "memo": "weekly shop", "cleared": "uncleared"},
        {"id": home.cafe, "date": days_ago(3), "payee_name": "CORNER CAFE"},
        {"id": home.transfer, "amount": -100_000, "memo": "savings"},
    )
    await patch(home, {"id": home.transfer, "amount": -90_000})

    start = await standing(update_case(home))
    async with connected(MODERN) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    answer = content(result)

    assert (answer["status"], answer["already_as_before"]) == ("nothing_to_do", 2)
    assert [c["reason"] for c in answer["conflicts"]] == ["its amount changed since"]
    assert [r for r in await requests_since(start.mark) if not r.startswith("GET ")] == []
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_a_payee_created_by_a_write_whose_answer_was_lost_is_found_by_name_and_undone(home):
    """YNAB created the payee but its answer, with the payee's id, was lost: settling and undo know
    the payee by its name, and a transaction that had none gets none back."""
    h = home.home
    made = await ynab(
        "POST",
        f"/plans/{home.id}/transactions",
        json={"transaction": {"account_id": h.checking, "date": days_ago(2), "amount": -2_500}},
    )
    bare = made["transaction"]["id"]
    case = updating(home, [{"transaction_id": bare, "payee_name": "Kiosk"}], {bare: None})
    await sync_to_async(faults.inject)("drop_after_write", method="PATCH", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    op = await Operation.objects.filter(plan_id=home.id).order_by("-created_at").afirst()
    assert op.status == "unknown"
    assert op.undo_data["transactions"][0]["fields"][0]["after"] == {"id": None, "name": "Kiosk"}

    answer, questions = await undone(home, op.pk)

    assert questions == [
        f"Undo: change 1 transaction(s) back?\n- {days_ago(2)}; Kiosk; 2.50: payee ‘Kiosk’ → none"
    ]
    assert answer["restored"] == 1
    assert (await held(home, bare))[bare][2] is None
