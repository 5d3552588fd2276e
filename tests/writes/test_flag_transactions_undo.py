"""Undoing flag_transactions: flags put back where still as set; one changed since is left and named."""

from __future__ import annotations

from datetime import timedelta

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from tests.helpers.write_cases.flag_transactions import flagged_yellow, flagging, flags, set_flag
from tests.writes.checks import requests_since, says_yes, standing, ynab
from tests.writes.harness import MODERN, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


async def flagged(home: Household) -> str:
    flagged_yellow(home, home.cafe)
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, flagging(home, {home.market: "red", home.cafe: "green"})))
    return answer["operation_id"]


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_puts_each_flag_back(home):
    operation_id = await flagged(home)

    answer, questions = await undone(home, operation_id)

    day = (utc_today() - timedelta(days=3)).isoformat()
    assert questions == [
        "Undo: change the flag of 2 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: red → none\n"
        f"- {day}; CORNER CAFE; 12.34: green → yellow"
    ]
    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 2, [])
    assert await flags(home, home.market, home.cafe) == {home.market: None, home.cafe: "yellow"}
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"


async def test_a_flag_changed_since_is_left_and_named_and_one_back_already_counts(home):
    operation_id = await flagged(home)
    await set_flag(home, home.cafe, "purple")  # the person changed it in YNAB since
    await set_flag(home, home.market, None)  # and removed this one

    first = content(await _undo_preview(home, operation_id))
    start = await standing(flagging(home, {home.cafe: "purple"}))
    assert first["status"] == "nothing_to_do"
    assert first["already_as_before"] == 1
    day = (utc_today() - timedelta(days=3)).isoformat()
    assert first["conflicts"] == [
        {"id": home.cafe, "name": f"{day}; CORNER CAFE; 12.34", "reason": "its flag is now purple"}
    ]
    assert await requests_since(start.mark) == []
    assert await flags(home, home.market, home.cafe) == {home.market: None, home.cafe: "purple"}


async def test_a_deleted_transaction_is_a_conflict_and_the_rest_is_restored(home):
    operation_id = await flagged(home)
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.market}")

    answer, questions = await undone(home, operation_id)

    assert questions[0].splitlines()[0] == "Undo: change the flag of 1 transaction(s)?"
    assert answer["restored"] == 1
    assert answer["conflicts"] == [
        {"id": home.market, "name": f"transaction {home.market}", "reason": "it was deleted"}
    ]
    assert await flags(home, home.cafe) == {home.cafe: "yellow"}


async def _undo_preview(home: Household, operation_id: str):
    async with connected(MODERN) as client:
        return await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
