"""import_transactions through the SDK's real client: acts at once, logged, never undoable."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.import_transactions import NO_LINKED_ACCOUNT, ImportRecord, ImportSubject
from tests.helpers.write_cases.import_transactions import importing, linked_account
from tests.writes.checks import requests_since, standing, writes_since, ynab
from tests.writes.harness import (
    FAULT_PATHS,
    MODERN,
    UNCONFIRMED_PATHS,
    Env,
    WriteCase,
    call,
    connected,
    content,
    expect_nothing_written,
    paths_for,
)
from tests.writes.households import Household

pytestmark = pytest.mark.anyio

PATHS = paths_for("import_transactions", UNCONFIRMED_PATHS)
FAULTS = paths_for("import_transactions", FAULT_PATHS)


@pytest.fixture
def linked(home: Household) -> str:
    return linked_account(home)


async def ids_on(home: Household, account_id: str) -> list[str]:
    data = await ynab("GET", f"/plans/{home.id}/accounts/{account_id}/transactions")
    return sorted(t["id"] for t in data["transactions"])


@pytest.fixture
def case(home: Household, linked: str) -> WriteCase:
    return importing(home, linked)


@pytest.mark.matrix
@pytest.mark.parametrize("path", PATHS)
async def test_each_client_gets_the_import_at_once_and_logged(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_it_returns_the_imported_ids_and_says_they_stay_unapproved(home, linked, case):
    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["imported"] == 2
    assert sorted(answer["transaction_ids"]) == await ids_on(home, linked)
    assert answer["message"] == (
        f"Imported 2 transaction(s), unapproved until the person has reviewed them. Done as operation "
        f"{answer['operation_id']}; it cannot be undone: imports are not reversed; the imported "
        "transactions stay in YNAB, unapproved, for review."
    )


async def test_a_second_import_brings_nothing_new_and_says_so_naming_its_logged_attempt(home, linked, case):
    async with connected(MODERN) as client:
        await call(client, case)
        start = await standing(case)
        again = content(await call(client, case))

    op = await Operation.objects.aget(pk=again["operation_id"])
    assert again["status"] == "nothing_to_do"
    assert (again["imported"], again["transaction_ids"]) == (0, [])
    assert again["message"] == f"YNAB had nothing new to import. Logged as operation {op.pk}."
    assert (op.status, op.undo_data["transaction_ids"], op.undoable) == ("applied", [], False)
    assert await case.state() == case.expected_after  # nothing imported twice
    assert await writes_since(case, start.mark) == 1


async def test_a_plan_without_a_linked_bank_has_nothing_to_import_and_sends_no_write(home):
    case = importing(home, home.home.checking)
    start = await standing(case)

    async with connected(MODERN) as client:
        answer = content(await call(client, case))
    sent = await requests_since(start.mark)

    assert (answer["status"], answer["message"], answer["operation_id"]) == (
        "nothing_to_do",
        NO_LINKED_ACCOUNT,
        None,
    )
    assert [request for request in sent if not request.startswith("GET ")] == []
    await expect_nothing_written(case, start)


async def test_undo_operation_refuses_an_import_and_says_why(home, linked, case):
    async with connected(MODERN) as client:
        answer = content(await call(client, case))
        refused = await client.call_tool(
            "undo_operation", {"plan_id": home.id, "operation_id": answer["operation_id"]}
        )

    assert refused.is_error
    assert "imports are not reversed" in refused.content[0].text
    assert await case.state() == case.expected_after


def test_the_log_keeps_the_knowledge_until_the_ids_are_known_as_rows_already_hold_them():
    begun, imported = {"transaction_ids": [], "knowledge_before": 42}, {"transaction_ids": ["t-new"]}

    assert ImportRecord.from_stored(begun) == ImportRecord(knowledge_before=42)
    assert ImportRecord.from_stored(imported) == ImportRecord(transaction_ids=("t-new",))
    assert [ImportRecord.from_stored(row).stored() for row in (begun, imported)] == [begun, imported]
    assert ImportSubject().fingerprinted() == ImportSubject().stored() == {"import": "linked accounts"}
