"""delete_scheduled_transaction through the SDK's real client: its paths, preview, refusals, undo."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import ScheduledSubtransaction, ScheduledTransaction
from tests.helpers.write_cases.schedules import (
    LANDLORD,
    MEMO,
    days_ahead,
    deleting,
    schedule,
    scheduled_in_ynab,
    schedules,
)
from tests.writes.checks import says_yes
from tests.writes.harness import (
    CONFIRMED_PATHS,
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    call,
    case_shared_by_module,
    connected,
    content,
    error_text,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

TOOL = "delete_scheduled_transaction"
PATHS = paths_for(TOOL, CONFIRMED_PATHS)
FAULTS = paths_for(TOOL, FAULT_PATHS)


@pytest.fixture
async def rent(home: Household) -> str:
    return await scheduled_in_ynab(home)


@pytest.fixture
def case(home: Household, rent: str) -> WriteCase:
    return deleting(home, rent)


def _shared() -> WriteCase:
    home = household()
    return deleting(home, async_to_sync(scheduled_in_ynab)(home))


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    with case_shared_by_module(_shared) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_names_the_schedule_and_how_undo_brings_it_back(home, rent, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == (
        f"Delete the schedule Landlord; 1200.00 monthly from Checking; next on {days_ahead(10)}?\n"
        "Undo creates it again (a new id)."
    )
    assert {key: answer[key] for key in ("scheduled_transaction_id", "date", "amount", "payee", "memo")} == {
        "scheduled_transaction_id": rent,
        "date": days_ahead(10),
        "amount": "-1200.00",
        "payee": LANDLORD,
        "memo": MEMO,
    }
    assert answer["message"] == (
        f"Deleted the schedule Landlord; 1200.00 monthly from Checking. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )


async def test_an_unknown_schedule_is_refused(shared_case):
    case = WriteCase(
        **{**shared_case.__dict__, "arguments": {**shared_case.arguments, "scheduled_transaction_id": "gone"}}
    )

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        "No scheduled transaction 'gone' in this plan; list_scheduled_transactions gives the valid ids."
    )


def _split_in_ynab(home: Household, scheduled_id: str) -> None:
    """The rent made a split in YNAB's app (the API cannot)."""
    with plan_write(home.id) as write:
        scheduled = ScheduledTransaction.objects.get(pk=scheduled_id)
        for amount, category in ((-1_000_000, home.home.rent), (-200_000, home.home.groceries)):
            ScheduledSubtransaction.objects.create(
                plan_id=home.id,
                scheduled_transaction=scheduled,
                amount=amount,
                category_id=category,
                knowledge=write.knowledge,
            )
        ScheduledTransaction.objects.filter(pk=scheduled_id).update(category=None, knowledge=write.knowledge)


async def test_a_split_schedule_is_deleted_with_a_warning_and_cannot_be_undone(home, rent, case):
    await sync_to_async(_split_in_ynab)(home, rent)

    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))
        undone = await client.call_tool(
            "undo_operation", {"plan_id": home.id, "operation_id": answer["operation_id"]}
        )

    assert answer["preview"] == (
        f"Delete the schedule Landlord; 1200.00 monthly from Checking; next on {days_ahead(10)}?\n"
        "Undo cannot create a split schedule again; only YNAB's app can."
    )
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert (op.undoable, op.undo_data["split"]) == (False, True)
    assert undone.is_error
    assert await schedule(home.id, rent) is None


async def deleted(home: Household, rent: str) -> str:
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, deleting(home, rent)))
    assert answer["status"] == "applied", answer
    return answer["operation_id"]


async def undo(home: Household, operation_id: str):
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_creates_it_again_with_every_field(home, rent):
    before = await schedules(home.id)
    operation_id = await deleted(home, rent)

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], answer["restored"]) == ("applied", 1)
    assert questions == ["Undo: create the schedule Landlord; 1200.00 monthly from Checking again?"]
    assert await schedules(home.id) == before
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"


async def test_undo_writes_nothing_once_the_next_date_is_not_after_today(home, rent):
    """A schedule due today (YNAB's app shows it so until it enters it): YNAB takes no such date."""
    await sync_to_async(_due_today)(home, rent)
    operation_id = await deleted(home, rent)

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], questions, await schedules(home.id)) == ("nothing_to_do", [], [])
    assert answer["conflicts"] == [
        {
            "id": rent,
            "name": "Landlord; 1200.00 monthly from Checking",
            "reason": f"its next date {days_ahead(0)} is no longer after today",
        }
    ]


def _due_today(home: Household, scheduled_id: str) -> None:
    with plan_write(home.id) as write:
        ScheduledTransaction.objects.filter(pk=scheduled_id).update(
            date_next=write.today, knowledge=write.knowledge
        )


async def test_a_schedule_created_again_in_ynab_counts_as_before(home, rent):
    operation_id = await deleted(home, rent)
    await scheduled_in_ynab(home)

    answer, _questions = await undo(home, operation_id)

    assert (answer["status"], answer["already_as_before"]) == ("nothing_to_do", 1)


async def test_a_lost_answer_whose_delete_landed_is_settled_applied(home, rent, case):
    await sync_to_async(faults.inject)("drop_after_write", method="DELETE", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    op = await Operation.objects.filter(plan_id=home.id).order_by("-created_at").afirst()

    await settling.settle_plan(home.id)

    assert (await Operation.objects.aget(pk=op.pk)).status == "applied"
