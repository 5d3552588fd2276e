"""update_scheduled_transaction through the SDK's real client: its paths, preview, refusals, undo."""

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
    changed_in_ynab,
    days_ahead,
    schedule,
    scheduled_in_ynab,
    updating,
)
from tests.writes.checks import says_yes, ynab
from tests.writes.harness import (
    CONFIRMED_PATHS,
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    before,
    call,
    case_shared_by_module,
    connected,
    content,
    error_text,
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

TOOL = "update_scheduled_transaction"
PATHS = paths_for(TOOL, CONFIRMED_PATHS)
FAULTS = paths_for(TOOL, FAULT_PATHS)


@pytest.fixture
async def rent(home: Household) -> str:
    return await scheduled_in_ynab(home)


@pytest.fixture
def case(home: Household, rent: str) -> WriteCase:
    return updating(home, rent)


def _shared() -> WriteCase:
    home = household()
    return updating(home, async_to_sync(scheduled_in_ynab)(home))


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


async def test_the_preview_names_the_schedule_and_each_change_and_the_put_sends_every_field(home, rent, case):
    mark = await sync_to_async(faults.last_request_id)()
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == (
        "Change the schedule Landlord; 1200.00 monthly from Checking: "
        f"next date {days_ahead(10)} → {days_ahead(12)}; amount 1200.00 → 1250.00?"
    )
    assert answer["fields"] == [
        {"field": "date", "from": days_ahead(10), "to": days_ahead(12)},
        {"field": "amount", "from": "1200.00", "to": "1250.00"},
    ]
    assert answer["message"] == (
        f"Changed the schedule Landlord; 1250.00 monthly from Checking. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )
    (put,) = [e for e in await sync_to_async(faults.requests_since)(mark) if e.method == "PUT"]
    assert put.path.endswith(f"/scheduled_transactions/{rent}")
    row = await schedule(home.id, rent)
    assert (row["memo"], row["category_id"], row["frequency"], row["payee_name"]) == (
        MEMO,
        home.home.rent,
        "monthly",
        LANDLORD,
    )


async def test_every_other_field_reads_in_the_preview_and_lands(home, rent):
    h = home.home
    case = updating(
        home,
        rent,
        date=None,
        amount=None,
        frequency="never",
        payee_name="New Landlord",
        category_id=h.groceries,
        memo="",
        account_id=h.savings,
        flag="red",
    )
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    assert answer["preview"] == (
        "Change the schedule Landlord; 1200.00 monthly from Checking: frequency monthly → once; "
        "payee Landlord → New Landlord; category Rent → Groceries; memo ‘flat 3’ → none; "
        "account Checking → Savings; flag none → red?"
    )
    row = await schedule(home.id, rent)
    assert (row["frequency"], row["payee_name"], row["category_id"], row["memo"], row["account_id"]) == (
        "never",
        "New Landlord",
        h.groceries,
        None,
        h.savings,
    )
    assert row["flag_color"] == "red"


async def test_values_already_as_given_are_nothing_to_do(home, rent):
    case = updating(home, rent, date=days_ahead(10), amount="-1200", memo=MEMO, flag="none")
    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert (answer["status"], answer["message"], answer["fields"]) == (
        "nothing_to_do",
        "Nothing to change: the schedule Landlord; 1200.00 monthly from Checking has those values.",
        [],
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


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"date": None, "amount": None},
            "Give at least one field to change: date, frequency, amount, payee_name, category_id, memo, "
            "account_id, flag.",
        ),
        (
            {"scheduled_transaction_id": "nope"},
            "No scheduled transaction 'nope' in this plan; list_scheduled_transactions gives the valid ids.",
        ),
        (
            {"amount": "0"},
            "amount is 0: give the amount the schedule moves (money out negative, in positive).",
        ),
        (
            {"frequency": "hourly"},
            "frequency 'hourly' is not one of YNAB's: give one of never, daily, weekly, "
            "everyOtherWeek, every4Weeks, twiceAMonth, monthly, everyOtherMonth, every3Months, every4Months, "
            "twiceAYear, yearly, everyOtherYear.",
        ),
        (
            {"account_id": "HOUSE"},
            "Account 'HOUSE' is a tracking account, and tracking accounts carry no "
            "categories: give no category_id.",
        ),
        ({"payee_name": "x" * 201}, "payee_name is 201 characters long: give at most 200."),
        (
            {"category_id": "no-such"},
            "No category 'no-such' in this plan; get_category_balances gives the valid ids.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_case, arguments, refusal):
    given = dict(arguments)
    house = shared_case.extra.get("house")
    if given.get("account_id") == "HOUSE":
        given["account_id"] = house
        refusal = refusal.replace("HOUSE", house)
    case = WriteCase(**{**shared_case.__dict__, "arguments": {**shared_case.arguments, **given}})
    case.arguments = {key: value for key, value in case.arguments.items() if value is not None}
    start = await before(shared_case)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(shared_case, start)


async def test_a_split_schedule_is_refused(home, rent, case):
    await sync_to_async(_split_in_ynab)(home, rent)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        f"Scheduled transaction '{rent}' is a split, and YNAB's API cannot write a split schedule's lines: "
        "the person can change it in YNAB itself."
    )


async def test_a_schedule_due_today_needs_a_new_date(home, case, rent):
    with_today = updating(home, rent, date=None)
    await sync_to_async(_due_today)(home, rent)

    async with connected(MODERN) as client:
        refused = await call(client, with_today)

    assert error_text(refused, with_today).startswith(f"date {days_ahead(0)} is not after today")


def _due_today(home: Household, scheduled_id: str) -> None:
    with plan_write(home.id) as write:
        ScheduledTransaction.objects.filter(pk=scheduled_id).update(
            date_next=write.today, knowledge=write.knowledge
        )


async def updated(home: Household, rent: str) -> str:
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, updating(home, rent)))
    assert answer["status"] == "applied", answer
    return answer["operation_id"]


async def undo(home: Household, operation_id: str):
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_puts_each_field_back(home, rent):
    operation_id = await updated(home, rent)
    await changed_in_ynab(home, rent, memo="flat 3b")  # another field: left as it is now

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], answer["restored"]) == ("applied", 1)
    assert questions == [
        f"Undo: change the schedule Landlord back: next date {days_ahead(12)} → {days_ahead(10)}; "
        "amount 1250.00 → 1200.00?"
    ]
    row = await schedule(home.id, rent)
    assert (row["date_next"], row["amount"], row["memo"]) == (days_ahead(10), -1_200_000, "flat 3b")
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"


async def test_undo_writes_nothing_when_a_field_changed_since(home, rent):
    operation_id = await updated(home, rent)
    await changed_in_ynab(home, rent, amount=-1_300_000)

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], questions) == ("nothing_to_do", [])
    assert answer["conflicts"] == [
        {
            "id": rent,
            "name": "Landlord; 1250.00 monthly from Checking",
            "reason": "it changed since the operation: amount 1250.00 → 1300.00",
        }
    ]
    assert (await schedule(home.id, rent))["amount"] == -1_300_000


async def test_undo_of_a_deleted_schedule_is_a_conflict_and_of_one_back_as_before_nothing(home, rent):
    operation_id = await updated(home, rent)
    await changed_in_ynab(home, rent, amount=-1_200_000, date=days_ahead(10))

    back, _ = await undo(home, operation_id)
    await ynab("DELETE", f"/plans/{home.id}/scheduled_transactions/{rent}")
    gone, _ = await undo(home, operation_id)

    assert (back["status"], back["already_as_before"]) == ("nothing_to_do", 1)
    assert gone["conflicts"] == [
        {"id": rent, "name": "Landlord; 1250.00 monthly from Checking", "reason": "it was deleted"}
    ]


async def test_a_lost_answer_whose_put_landed_is_settled_applied(home, rent, case):
    await sync_to_async(faults.inject)("drop_after_write", method="PUT", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    op = await Operation.objects.filter(plan_id=home.id).order_by("-created_at").afirst()

    await settling.settle_plan(home.id)

    assert (await Operation.objects.aget(pk=op.pk)).status == "applied"
