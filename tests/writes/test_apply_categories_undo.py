"""Undoing apply_categories with undo_operation: restores what is still as set, never overwrites a change."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes.apply_categories import CHECK
from tests.helpers.write_cases.apply_categories import categories, set_category
from tests.writes.checks import says_yes, ynab
from tests.writes.harness import MODERN, WriteCase, call, connected, content
from tests.writes.households import Household

pytestmark = pytest.mark.anyio


def assigning(home: Household, pairs: dict[str, str]) -> WriteCase:
    return WriteCase(
        tool="apply_categories",
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "assignments": [{"transaction_id": t, "category_id": c} for t, c in pairs.items()],
        },
        state=lambda: categories(home, *pairs),
        expected_after=pairs,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
    )


async def applied(home: Household, pairs: dict[str, str]) -> str:
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, assigning(home, pairs)))
    assert answer["status"] == "applied"
    return answer["operation_id"]


async def undone(home: Household, operation_id: str) -> tuple[dict, list[str]]:
    """undo_operation, agreed to; its result and the question the person saw."""
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_puts_every_category_back_and_marks_the_operation_undone(home):
    h = home.home
    operation_id = await applied(home, {home.market: h.groceries, home.cafe: h.rent})

    answer, questions = await undone(home, operation_id)

    assert await categories(home, home.market, home.cafe) == {home.market: None, home.cafe: h.dining}
    assert (answer["status"], answer["restored"], answer["already_as_before"], answer["conflicts"]) == (
        "applied",
        2,
        0,
        [],
    )
    day = (utc_today() - timedelta(days=3)).isoformat()
    month = f"{day[:7]}-01"
    # Nothing is assigned in the household: its split left Groceries at -20.00 and Dining Out at -22.34
    # (with the cafe), which the operation made -106.43 and -10.00, and Rent -12.34.
    assert questions == [
        "Undo: recategorise 2 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: Groceries → (uncategorised)\n"
        f"- {day}; CORNER CAFE; 12.34: Rent → Dining Out\n"
        "Available, before → after:\n"
        f"- Dining Out for {month}: -10.00 → -22.34\n"
        f"- Groceries for {month}: -106.43 → -20.00\n"
        f"- Rent for {month}: -12.34 → 0.00\n"
        f"This leaves 2 categories overspent: Dining Out by 22.34 for {month}; "
        f"Groceries by 20.00 for {month}."
    ]
    original = await Operation.objects.aget(pk=operation_id)
    assert (original.status, original.undone_by_id) == ("undone", answer["operation_id"])


async def test_undo_leaves_a_category_changed_since_and_names_it_as_a_conflict(home):
    h = home.home
    operation_id = await applied(home, {home.market: h.groceries, home.cafe: h.rent})
    await set_category(home, home.cafe, h.groceries)  # the person changed it in YNAB since

    answer, questions = await undone(home, operation_id)

    assert await categories(home, home.market, home.cafe) == {home.market: None, home.cafe: h.groceries}
    assert answer["restored"] == 1
    day = (utc_today() - timedelta(days=3)).isoformat()
    assert answer["conflicts"] == [
        {"id": home.cafe, "name": f"{day}; CORNER CAFE; 12.34", "reason": "its category is now Groceries"}
    ]
    assert questions[0].startswith("Undo: recategorise 1 transaction(s)?")


async def test_a_transaction_already_back_as_before_counts_as_such_and_is_not_written(home):
    h = home.home
    operation_id = await applied(home, {home.market: h.groceries, home.cafe: h.rent})
    await set_category(home, home.market, None)

    answer, _questions = await undone(home, operation_id)

    assert (answer["restored"], answer["already_as_before"]) == (1, 1)
    assert await categories(home, home.market, home.cafe) == {home.market: None, home.cafe: h.dining}


async def test_a_deleted_transaction_is_a_conflict_and_nothing_left_means_nothing_to_do(home):
    h = home.home
    operation_id = await applied(home, {home.market: h.groceries})
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.market}")

    answer, questions = await undone(home, operation_id)

    assert answer["status"] == "nothing_to_do"
    assert answer["conflicts"] == [
        {"id": home.market, "name": f"transaction {home.market}", "reason": "it was deleted"}
    ]
    assert questions == []
    assert (await Operation.objects.aget(pk=operation_id)).status == "applied"


async def test_an_uncategorized_transaction_shows_as_none_and_gets_ynabs_own_category_back(home):
    h = home.home
    await set_category(home, home.market, h.uncategorized)
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, assigning(home, {home.market: h.groceries})))
    assert (answer["changes"][0]["from_category_id"], answer["changes"][0]["from_category"]) == (None, None)
    assert ": (uncategorised) → Groceries" in answer["preview"]

    await undone(home, answer["operation_id"])

    assert await categories(home, home.market) == {home.market: h.uncategorized}


async def test_an_unknown_write_that_never_landed_is_settled_failed_and_nothing_is_undone(home):
    h = home.home
    await inject_lost_before_write(home)
    async with connected(MODERN, says_yes()) as client:
        lost = await call(client, assigning(home, {home.market: h.groceries, home.cafe: h.rent}))
    assert lost.is_error
    op = await Operation.objects.filter(plan_id=home.id).aget()
    assert op.status == "unknown"

    async with connected(MODERN, says_yes()) as client:
        refused = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": op.pk})

    assert refused.is_error
    assert refused.content[0].text.endswith(
        "failed, so it is not in effect and there is nothing to undo. What happened: Settled from YNAB's "
        "state: none of its 2 item(s) is in YNAB: nothing was changed."
    )
    assert (await Operation.objects.aget(pk=op.pk)).status == "failed"


async def inject_lost_before_write(home: Household) -> None:
    await sync_to_async(faults.inject)(
        "drop_before_write", method="PATCH", path=rf"/plans/{home.id}/transactions$"
    )
