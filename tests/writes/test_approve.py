"""approve_transactions through the SDK's real client: acts at once, logged, undone by un-approving."""

from __future__ import annotations

import pytest

from avenir_mcp.confirmations import messages
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tools.writes.approve import ApprovalSubject, ApprovalUndo
from tests.helpers.write_cases.approve import approved, approving
from tests.writes.checks import requests_since, standing, ynab
from tests.writes.harness import (
    FAULT_PATHS,
    MODERN,
    UNCONFIRMED_PATHS,
    Env,
    WriteCase,
    call,
    connected,
    content,
    error_text,
    expect_nothing_written,
    paths_for,
    says_yes,
)
from tests.writes.households import Household

pytestmark = pytest.mark.anyio

PATHS = paths_for("approve_transactions", UNCONFIRMED_PATHS)
FAULTS = paths_for("approve_transactions", FAULT_PATHS)


async def set_approved(home: Household, value: bool, *transaction_ids: str) -> None:
    body = {"transactions": [{"id": t, "approved": value} for t in transaction_ids]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)


@pytest.fixture
def case(home: Household) -> WriteCase:
    return approving(home, home.market, home.salary, home.split)


@pytest.mark.matrix
@pytest.mark.parametrize("path", PATHS)
async def test_each_client_gets_it_applied_at_once_and_logged(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_it_skips_transactions_approved_already_and_logs_only_those_it_approved(home):
    await set_approved(home, True, home.market)

    async with connected(MODERN) as client:
        answer = content(await call(client, approving(home, home.market, home.salary)))

    assert (answer["status"], answer["approved"], answer["unchanged_count"]) == ("applied", 1, 1)
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.undo_data == {"approved_ids": [home.salary]}
    assert op.preview.splitlines()[0] == "Approve 1 transaction(s)"


async def test_its_log_names_each_transaction_with_its_category_and_a_split_as_split(home):
    async with connected(MODERN) as client:
        answer = content(await call(client, approving(home, home.market, home.split)))

    op = await Operation.objects.aget(pk=answer["operation_id"])
    question, *lines = op.preview.splitlines()
    assert question == "Approve 2 transaction(s)"
    assert len(lines) == 2
    assert [line.endswith("; Split") for line in lines].count(True) == 1


async def test_it_has_nothing_to_do_when_every_transaction_is_approved_and_writes_nothing(home):
    await set_approved(home, True, home.market, home.salary)
    case = approving(home, home.market, home.salary)
    start = await standing(case)

    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert answer["message"] == "Nothing to approve: the 2 transaction(s) given are approved already."
    assert (answer["approved"], answer["unchanged_count"], answer["operation_id"]) == (0, 2, None)
    await expect_nothing_written(case, start)


async def test_it_refuses_an_unknown_transaction_and_approves_none_of_the_others(home):
    case = approving(home, home.market, "no-such-transaction")
    start = await standing(case)

    async with connected(MODERN, says_yes()) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        "No transaction 'no-such-transaction' in this plan; find_transactions gives the valid ids."
    )
    await expect_nothing_written(case, start)


async def test_it_refuses_a_transaction_listed_twice_before_asking_ynab_anything(home):
    case = approving(home, home.market, home.market)
    start = await standing(case)

    async with connected(MODERN) as client:
        refused = await call(client, case)
    sent = await requests_since(start.mark)

    assert error_text(refused, case) == f"Transaction '{home.market}' is listed twice; give it once."
    assert sent == []
    await expect_nothing_written(case, start)


async def test_undo_marks_unapproved_again_only_what_is_still_approved(home):
    async with connected(MODERN) as client:
        answer = content(await call(client, approving(home, home.market, home.salary, home.cafe)))
    await set_approved(home, False, home.salary)  # the person un-approved it in YNAB since
    person = says_yes()

    async with connected(MODERN, person) as client:
        undo = content(
            await client.call_tool(
                "undo_operation", {"plan_id": home.id, "operation_id": answer["operation_id"]}
            )
        )

    assert await approved(home, home.market, home.salary, home.cafe) == dict.fromkeys(
        (home.market, home.salary, home.cafe), False
    )
    assert (undo["status"], undo["restored"], undo["already_as_before"], undo["conflicts"]) == (
        "applied",
        2,
        1,
        [],
    )
    assert person.messages[0].splitlines()[0] == "Undo: mark 2 transaction(s) unapproved again?"
    assert (await Operation.objects.aget(pk=answer["operation_id"])).status == "undone"


async def test_a_read_only_caller_is_refused_even_where_the_tool_is_reachable(home):
    case = approving(home, home.market)
    start = await standing(case)
    reader = Principal.local("reader", read_only=True)

    async with connected(MODERN, principal=reader) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == messages.READ_ONLY
    await expect_nothing_written(case, start)


def test_the_log_keeps_the_approved_ids_as_rows_already_hold_them():
    old_row = {"approved_ids": ["t-market", "t-salary"]}

    assert ApprovalUndo.from_stored(old_row) == ApprovalUndo(approved_ids=("t-market", "t-salary"))
    assert ApprovalUndo.from_stored(old_row).stored() == old_row
    subject = ApprovalSubject(transaction_ids=("t-market",))
    assert subject.fingerprinted() == subject.stored() == {"transaction_ids": ["t-market"]}
