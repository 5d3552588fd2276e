"""Protocol 2026-07-28: the input-required round trip, through the SDK's real client."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, InputRequiredResult, ListRootsResult

from avenir_mcp.confirmations import messages
from avenir_mcp.confirmations.codes import ConfirmationStore, Kind
from avenir_mcp.confirmations.confirm import CONFIRM_INPUT_KEY, CONFIRM_SCHEMA
from avenir_mcp.confirmations.fingerprint import fingerprint
from avenir_mcp.tokens.auth import Principal
from tests.confirmations.write_server import TOOL, build_server
from tests.helpers.confirmations import ADD, START, answering

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
YES = {"confirm": ElicitResult(action="accept", content={"value": True})}


def error_text(result) -> str:
    assert result.is_error
    return result.content[0].text


async def first_round(client: Client, args: dict) -> InputRequiredResult:
    first = await client.session.call_tool(TOOL, args, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    return first


async def answer(client: Client, args: dict, state: str, responses: dict):
    return await client.session.call_tool(
        TOOL, args, input_responses=responses, request_state=state, allow_input_required=True
    )


async def test_a_yes_applies_the_change_once(server, budget_row):
    async with Client(server, mode=MODERN, elicitation_callback=answering("accept", True)) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.structured_content["status"] == "applied"
    assert result.structured_content["confirmed_by"] == "input_required"
    assert await budget_row.assigned() == START + ADD


@pytest.mark.parametrize(
    ("action", "content"),
    [
        ("accept", {"value": False}),  # the box left unticked
        ("accept", {"value": "yes please"}),  # anything but exactly true
        ("accept", {"value": 1}),
        ("accept", None),
        ("decline", None),
    ],
)
async def test_anything_but_a_ticked_box_is_declined_and_writes_nothing(server, budget_row, action, content):
    async def callback(context, params):
        return ElicitResult(action=action, content=content)

    async with Client(server, mode=MODERN, elicitation_callback=callback) as client:
        with anyio.fail_after(10):
            result = await client.call_tool(TOOL, budget_row.args)

    assert result.structured_content["status"] == "declined"
    assert result.structured_content["message"] == messages.DECLINED
    assert await budget_row.assigned() == START


async def test_a_dismissed_question_falls_back_to_a_code_that_then_applies(server, budget_row):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await client.call_tool(TOOL, budget_row.args)
            assert first.structured_content["status"] == "confirmation_required"
            assert await budget_row.assigned() == START
            code = first.structured_content["confirmation"]
            second = await client.call_tool(TOOL, {**budget_row.args, "confirmation": code})

    assert second.structured_content["confirmed_by"] == "code"
    assert await budget_row.assigned() == START + ADD


async def test_the_question_is_one_confirm_form_with_a_boolean_value_and_the_preview(server, budget_row):
    seen = []
    async with Client(server, mode=MODERN, elicitation_callback=answering("decline", seen=seen)) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            await client.call_tool(TOOL, budget_row.args)

    assert list(first.input_requests) == ["confirm"]
    form = first.input_requests["confirm"].params
    assert form.mode == "form"
    assert form.message == "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
    assert form.requested_schema == CONFIRM_SCHEMA
    assert CONFIRM_SCHEMA["properties"]["value"]["type"] == "boolean"
    assert CONFIRM_SCHEMA["required"] == ["value"]
    assert [params.message for params in seen] == [form.message]


async def test_the_request_state_is_sealed_and_does_not_show_the_fingerprint(server, budget_row):
    subject = {
        "category_id": budget_row.category_id,
        "month": "2026-09-01",
        "assigned_before": START,
        "add": ADD,
    }
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)

    assert first.request_state.startswith("v1.")
    assert fingerprint(budget_row.plan_id, subject) not in first.request_state


async def test_a_preview_of_many_changes_shows_twenty_then_how_many_more(server, budget_row):
    seen = []
    labels = [f"change {i:02d}" for i in range(27)]
    async with Client(server, mode=MODERN, elicitation_callback=answering("decline", seen=seen)) as client:
        with anyio.fail_after(10):
            await client.call_tool(TOOL, {**budget_row.args, "labels": labels})

    lines = seen[0].message.split("\n")
    assert lines[1:21] == [f"- change {i:02d}" for i in range(20)]
    assert lines[21:] == ["… and 7 more"]


async def test_a_plan_changed_before_the_answer_is_refused_and_nothing_is_written(server, budget_row, caplog):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            await budget_row.set_assigned(100_000)  # someone changes the budget meanwhile
            result = await answer(client, budget_row.args, first.request_state, YES)

    assert error_text(result) == messages.PLAN_CHANGED
    assert await budget_row.assigned() == 100_000
    assert (  # the owner's trace of a refused attempt
        f"Refused an answer to a preview the plan no longer matches for {TOOL} on plan {budget_row.plan_id} "
        "from alice"
    ) in caplog.messages


async def test_a_replayed_answer_is_refused_and_writes_nothing_more(server, budget_row, caplog):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            applied = await answer(client, budget_row.args, first.request_state, YES)
            await budget_row.set_assigned(START)  # same subject again: only the nonce stops a replay
            replayed = await answer(client, budget_row.args, first.request_state, YES)

    assert applied.structured_content["status"] == "applied"
    assert error_text(replayed) == messages.ANSWER_NOT_VALID
    assert await budget_row.assigned() == START
    assert (
        f"Refused an answer already used, expired or revoked for {TOOL} on plan {budget_row.plan_id} "
        "from alice"
    ) in caplog.messages


async def test_a_tampered_request_state_is_refused_by_the_sdk(server, budget_row):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            state = first.request_state
            tampered = state[:-3] + ("AAA" if state[-3:] != "AAA" else "BBB")
            plaintext = json.dumps({"fingerprint": "0" * 64, "nonce": "x"})
            for forged in (tampered, plaintext):
                with pytest.raises(MCPError) as refused:
                    await answer(client, budget_row.args, forged, YES)
                assert refused.value.code == -32602
            with pytest.raises(MCPError):  # the state is bound to the exact arguments
                await answer(client, {**budget_row.args, "amount": 999_000}, state, YES)

    assert await budget_row.assigned() == START


async def test_an_answer_cannot_be_given_by_another_principal(store, budget_row):
    alice = build_server(Principal.local("alice"), store)
    bob = build_server(Principal.local("bob"), store)  # same name and keys: the seal alone would pass
    async with (
        Client(alice, mode=MODERN, elicitation_callback=answering("cancel")) as alice_client,
        Client(bob, mode=MODERN, elicitation_callback=answering("cancel")) as bob_client,
    ):
        with anyio.fail_after(10):
            first = await first_round(alice_client, budget_row.args)
            by_bob = await answer(bob_client, budget_row.args, first.request_state, YES)

    assert error_text(by_bob) == messages.ANSWER_NOT_VALID
    assert await budget_row.assigned() == START


@pytest.mark.parametrize(
    "responses",
    [{}, {CONFIRM_INPUT_KEY: ListRootsResult(roots=[])}],
    ids=["no answer", "not a form's answer"],
)
async def test_a_retry_without_the_forms_answer_counts_as_dismissed(server, store, budget_row, responses):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            result = await answer(client, budget_row.args, first.request_state, responses)

    assert result.structured_content["status"] == "confirmation_required"
    assert [item.kind for item in store.pending()] == [Kind.CODE]
    assert await budget_row.assigned() == START


async def test_a_question_revoked_by_the_owner_can_no_longer_be_answered(server, store, budget_row):
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            first = await first_round(client, budget_row.args)
            [question] = store.pending()
            assert question.kind == Kind.QUESTION
            assert question.code_for_person is None  # the question's secret is never on the owner's page
            store.revoke(question.id)
            result = await answer(client, budget_row.args, first.request_state, YES)

    assert error_text(result) == messages.ANSWER_NOT_VALID
    assert await budget_row.assigned() == START


async def test_when_too_many_questions_wait_it_refuses_to_ask_more(alice, budget_row):
    server = build_server(alice, ConfirmationStore(capacity=1))
    async with Client(server, mode=MODERN, elicitation_callback=answering("cancel")) as client:
        with anyio.fail_after(10):
            await first_round(client, budget_row.args)
            refused = await client.session.call_tool(TOOL, budget_row.args, allow_input_required=True)

    assert "Too many confirmations are waiting (1): nothing was changed." in error_text(refused)
    assert await budget_row.assigned() == START
