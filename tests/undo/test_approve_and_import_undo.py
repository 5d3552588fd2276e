"""Undoing approve_transactions (marks unapproved again what is still approved); import is refused."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import agent, undo, undo_with_code
from tests.writes.checks import ynab
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(live_service) -> Household:
    return household("Undo approve")


async def approvals(home: Household) -> dict[str, bool]:
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    return {t["id"]: t["approved"] for t in data["transactions"]}


async def approved(home: Household, *transaction_ids: str) -> str:
    async with agent() as client:
        answer = ok(
            await client.call_tool(
                "approve_transactions", {"plan_id": home.id, "transaction_ids": list(transaction_ids)}
            )
        )
    assert (answer["status"], answer["approved"]) == ("applied", len(transaction_ids)), answer
    return answer["operation_id"]


async def test_it_marks_unapproved_again_what_the_operation_approved(home):
    held = await approvals(home)
    assert (held[home.market], held[home.cafe]) == (False, False)
    op_id = await approved(home, home.market, home.cafe)
    mark = await request_mark()

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"].splitlines()[0] == "Undo: mark 2 transaction(s) unapproved again?"
    assert (second["status"], second["restored"]) == ("applied", 2)
    held = await approvals(home)
    assert (held[home.market], held[home.cafe]) == (False, False)
    assert len(await writes_after(mark)) == 1
    assert (await Operation.objects.aget(pk=op_id)).status == "undone"


async def test_a_transaction_deleted_since_is_reported_and_one_unapproved_since_is_already_as_before(home):
    op_id = await approved(home, home.market, home.cafe, home.salary)
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.cafe}")
    body = {"transactions": [{"id": home.salary, "approved": False}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)

    first, second = await undo_with_code(home.id, operation_id=op_id)

    assert first["preview"].splitlines()[0] == "Undo: mark 1 transaction(s) unapproved again?"
    assert (second["restored"], second["already_as_before"]) == (1, 1)
    assert [(c["id"], c["reason"]) for c in second["conflicts"]] == [(home.cafe, "it was deleted")]
    assert (await approvals(home))[home.market] is False


async def test_an_import_cannot_be_undone_and_says_why(demo_plan):
    async with agent() as client:
        imported = ok(await client.call_tool("import_transactions", {"plan_id": demo_plan.id}))
        assert imported["operation_id"] is not None, imported
        mark = await request_mark()
        text = refusal(await undo(client, plan_id=demo_plan.id, operation_id=imported["operation_id"]))

    assert text.startswith(
        f"Operation {imported['operation_id']} (import_transactions) cannot be undone: imports"
    )
    assert await writes_after(mark) == []
