"""Concurrency: concurrent undos of one operation, and one confirmation code spent 50 times at once."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, ElicitResult

from avenir_mcp.confirmations import messages
from avenir_mcp.oplog.models import Operation
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.servers import catalog_server
from tests.helpers.undo import PERSON, agent, fresh, set_assigned, undo, write_with_code
from tests.writes.checks import LEGACY
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


async def concurrently(*calls) -> list[CallToolResult]:
    """Run the calls at once; their results, in order."""
    results: list[CallToolResult | None] = [None] * len(calls)

    async def run(index: int, call) -> None:
        results[index] = await call()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(run, index, call)
    return results


@pytest.mark.parametrize("undos", [2, 8])
async def test_of_concurrent_undos_of_one_operation_exactly_one_proceeds(budgets, undos):
    async with agent() as client:
        arguments = {"plan_id": budgets.plan_id, "operation_id": budgets.op.pk}
        codes = [ok(await undo(client, **arguments))["confirmation"] for _ in range(undos)]
        mark = await request_mark()

        results = await concurrently(
            *[lambda code=code: undo(client, **arguments, confirmation=code) for code in codes]
        )

    applied = [r.structured_content for r in results if not r.is_error]
    refused = [r.content[0].text for r in results if r.is_error]
    assert len(applied) == 1
    assert applied[0]["status"] == "applied"
    assert len(refused) == undos - 1
    # Each loser names the winner: stopped when choosing the operation, or at the claim.
    winner = applied[0]["operation_id"]
    named = (f"was already undone by operation {winner}.", f"was undone meanwhile by operation {winner},")
    assert all(any(said in text for said in named) for text in refused), refused
    assert len(await writes_after(mark)) == 2  # the winner's two PATCHes, nothing more
    assert await budgets.current() == budgets.before
    original = await fresh(budgets.op)
    assert (original.status, original.undone_by_id) == ("undone", applied[0]["operation_id"])
    undo_rows = [row async for row in Operation.objects.filter(undo_of_id=budgets.op.pk)]
    assert [row.pk for row in undo_rows if row.status == "applied"] == [applied[0]["operation_id"]]
    assert all(row.status == "failed" for row in undo_rows if row.pk != applied[0]["operation_id"])


@pytest.fixture
def home(live_service) -> Household:
    return household("Fifty attempts")


async def test_fifty_concurrent_attempts_to_spend_one_code_apply_the_change_once(home):
    arguments = {
        "plan_id": home.id,
        "assignments": [{"transaction_id": home.market, "category_id": home.home.groceries}],
    }
    async with agent() as client:
        code = ok(await client.call_tool("apply_categories", arguments))["confirmation"]
        mark = await request_mark()
        with_code = {**arguments, "confirmation": code}

        results = await concurrently(*[lambda: client.call_tool("apply_categories", with_code)] * 50)

    answered = [r.structured_content["status"] for r in results if not r.is_error]
    refused = [r.content[0].text for r in results if r.is_error]
    # One call spends the code and applies. Every other call is refused for the spent code, or,
    # when it reads the plan after the change landed, finds nothing left to do (nothing is
    # asked, spent or written then): the order depends on timing, the outcome does not.
    assert answered.count("applied") == 1
    assert set(answered) <= {"applied", "nothing_to_do"}
    assert len(answered) + len(refused) == 50
    assert all(text.endswith(messages.CODE_REFUSED) for text in refused)
    writes = await writes_after(mark)
    assert [(entry.method, entry.path.rsplit("/", 1)[-1]) for entry in writes] == [("PATCH", "transactions")]
    assert await Operation.objects.filter(plan_id=home.id).acount() == 1


async def test_an_undo_confirmed_in_the_client_while_another_client_undid_the_operation_writes_nothing(
    budgets,
):
    arguments = {"plan_id": budgets.plan_id, "operation_id": budgets.op.pk}
    async with agent("2026-07-28", answer="accept") as person:
        first = await person.session.call_tool("undo_operation", arguments, allow_input_required=True)
        await write_with_code("undo_operation", arguments)  # another client undoes it meanwhile
        mark = await request_mark()

        answer = await person.session.call_tool(
            "undo_operation",
            arguments,
            input_responses={"confirm": {"action": "accept", "content": {"value": True}}},
            request_state=first.request_state,
            allow_input_required=True,
        )

    assert answer.is_error
    assert "was already undone by operation" in answer.content[0].text
    assert await writes_after(mark) == []
    assert await budgets.current() == budgets.before


async def test_an_undo_agreed_during_the_call_after_another_client_undid_it_sends_nothing(budgets):
    """While the person is asked (in the call), another client undoes the operation and the person
    then sets the amounts back by hand: the plan looks restorable again, but the operation is
    undone already, so this undo claims nothing and sends nothing."""
    arguments = {"plan_id": budgets.plan_id, "operation_id": budgets.op.pk}

    async def elsewhere_then_yes(context, params) -> ElicitResult:
        other = await write_with_code("undo_operation", arguments)
        for item in budgets.items:
            await set_assigned(budgets.plan_id, budgets.month, item["category_id"], item["after"])
        elsewhere.append(other["operation_id"])
        return ElicitResult(action="accept", content={"value": True})

    elsewhere: list[str] = []
    async with Client(
        catalog_server(writes=True, principal=PERSON), mode=LEGACY, elicitation_callback=elsewhere_then_yes
    ) as person:
        mark = await request_mark()
        answer = await undo(person, **arguments)

    assert answer.is_error
    said = f"Operation {budgets.op.pk} was undone meanwhile by operation {elsewhere[0]}, so this undo"
    assert answer.content[0].text.startswith(f"{said} sent nothing")
    # the other undo's two PATCHes and the person's two; none of this undo's
    assert [entry.method for entry in await writes_after(mark)] == ["PATCH"] * 4
    assert await budgets.current() == budgets.after
    original = await fresh(budgets.op)
    assert (original.status, original.undone_by_id) == ("undone", elsewhere[0])
