"""Undoing apply_categories: categories put back where YNAB still holds what the operation set."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, fresh, undo, undo_with_code, write_with_code
from tests.writes.checks import ynab
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> Household:
    return household("Undo apply_categories")


async def categories(home: Household) -> dict[str, str | None]:
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    return {t["id"]: t["category_id"] for t in data["transactions"]}


async def set_category(home: Household, transaction_id: str, category_id: str | None) -> None:
    body = {"transactions": [{"id": transaction_id, "category_id": category_id}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)


async def recategorised(home: Household) -> str:
    """market (uncategorised) and cafe (Dining Out) both set to Groceries: the operation's id."""
    assignments = [
        {"transaction_id": home.market, "category_id": home.home.groceries},
        {"transaction_id": home.cafe, "category_id": home.home.groceries},
    ]
    applied = await write_with_code("apply_categories", {"plan_id": home.id, "assignments": assignments})
    assert applied["status"] == "applied", applied
    return applied["operation_id"]


async def test_it_puts_back_the_categories_still_as_the_operation_set_them(home):
    op_id = await recategorised(home)
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"].splitlines()[0] == "Undo: recategorise 2 transaction(s)?"
    assert any(line.endswith(": Groceries → (uncategorised)") for line in first["preview"].splitlines())
    assert any(line.endswith(": Groceries → Dining Out") for line in first["preview"].splitlines())
    assert (second["status"], second["restored"], second["conflicts"]) == ("applied", 2, [])
    held = await categories(home)
    assert (held[home.market], held[home.cafe]) == (None, home.home.dining)
    assert len(await writes_after(mark)) == 1  # one bulk PATCH
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_a_transaction_recategorised_since_is_left_alone_and_reported(home):
    op_id = await recategorised(home)
    await set_category(home, home.cafe, home.home.rent)

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"].splitlines()[0] == "Undo: recategorise 1 transaction(s)?"
    assert any(
        "Left as it is, changed since:" in line and "Rent" in line for line in first["preview"].splitlines()
    )
    assert second["restored"] == 1
    [conflict] = second["conflicts"]
    assert conflict["id"] == home.cafe
    assert conflict["reason"] == "its category is now Rent"
    held = await categories(home)
    assert (held[home.market], held[home.cafe]) == (None, home.home.rent)


async def test_a_transaction_deleted_since_is_a_conflict_and_one_back_as_before_counts_as_such(home):
    op_id = await recategorised(home)
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.cafe}")
    await set_category(home, home.market, None)
    mark = await request_mark()

    async with agent() as client:
        answer = ok(await undo(client, plan_id=home.id, operation_id=op_id))

    assert answer["status"] == "nothing_to_do"
    assert answer["already_as_before"] == 1
    assert [(c["id"], c["reason"]) for c in answer["conflicts"]] == [(home.cafe, "it was deleted")]
    assert await writes_after(mark) == []
    assert (await Operation.objects.aget(pk=op_id)).status == "applied"


async def test_undoing_the_undo_is_refused(home):
    op_id = await recategorised(home)
    _, second = await undo_with_code(home.id, operation_id=op_id)

    async with agent() as client:
        result = await undo(client, plan_id=home.id, operation_id=second["operation_id"])

    assert result.is_error
    assert "an undo cannot be undone" in result.content[0].text
    undo_row = await Operation.objects.aget(pk=second["operation_id"])
    assert (await fresh(undo_row)).status == "applied"
