"""create_scheduled_transaction through the SDK's real client: its paths, preview, refusals, undo."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Account
from tests.helpers.write_cases.schedules import (
    LANDLORD,
    MEMO,
    changed_in_ynab,
    creating,
    days_ahead,
    schedule,
    scheduled_in_ynab,
    schedules,
)
from tests.writes.checks import says_yes, ynab
from tests.writes.harness import (
    ARGUMENTS_ONLY_PATHS,
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

TOOL = "create_scheduled_transaction"


@pytest.fixture
def case(home: Household) -> WriteCase:
    return creating(home)


# The subject is the arguments (and the transfer payee of an account, which YNAB never changes):
# nothing YNAB holds makes the same arguments a different change, so no plan-changed path.
PATHS = paths_for(TOOL, ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for(TOOL, FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    with case_shared_by_module(lambda: creating(household())) as case:
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


async def test_the_preview_reads_like_the_bill_and_the_result_gives_the_new_id(home, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == (
        f"Schedule 1200.00 to Landlord from Checking; monthly from {days_ahead(10)}; as Rent?\n"
        "- memo: ‘flat 3’"
    )
    (row,) = (await ynab("GET", f"/plans/{home.id}/scheduled_transactions"))["scheduled_transactions"]
    assert {key: answer[key] for key in answer if key in first} | {"status": None} == {
        "plan_id": home.id,
        "status": None,
        "message": answer["message"],
        "operation_id": answer["operation_id"],
        "preview": first["preview"],
        "confirmation": None,
        "scheduled_transaction_id": row["id"],
        "account": "Checking",
        "date": days_ahead(10),
        "frequency": "monthly",
        "amount": "-1200.00",
        "payee": LANDLORD,
        "category": "Rent",
        "memo": MEMO,
    }
    assert answer["message"] == (
        f"Scheduled Landlord; 1200.00 monthly from Checking. Done as operation {answer['operation_id']}; "
        "undo_operation with that id reverses it."
    )


async def test_an_inflow_a_transfer_and_a_single_date_read_their_own_way(home):
    h = home.home
    pay = creating(
        home, amount="2500", payee_name="Employer", category_id=h.ready_to_assign, memo=None, flag="green"
    )
    transfer = creating(
        home, amount="-500", payee_name=None, transfer_account_id=h.savings, category_id=None, memo=None
    )
    once = creating(home, frequency="never", category_id=None, memo=None)
    income = creating(home, amount="150", payee_name=None, transfer_account_id=h.savings, category_id=None)

    async with connected(MODERN) as client:
        previews = [content(await call(client, c))["preview"] for c in (pay, transfer, once, income)]

    assert previews == [
        f"Schedule +2500.00 from Employer into Checking; monthly from {days_ahead(10)}; as Inflow: Ready to "
        "Assign?\n- flag: green",
        f"Schedule 500.00 to Savings from Checking; monthly from {days_ahead(10)}?",
        f"Schedule 1200.00 to Landlord from Checking; once on {days_ahead(10)}?",
        f"Schedule +150.00 from Savings into Checking; monthly from {days_ahead(10)}?\n- memo: ‘flat 3’",
    ]


async def test_a_transfer_is_scheduled_with_the_other_accounts_transfer_payee(home):
    h = home.home
    case = creating(home, amount="-500", payee_name=None, transfer_account_id=h.savings, category_id=None)
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    row = await schedule(home.id, answer["scheduled_transaction_id"])
    savings_payee = (await Account.objects.aget(pk=h.savings)).transfer_payee_id
    assert (row["payee_id"], row["transfer_account_id"], row["amount"]) == (
        savings_payee,
        h.savings,
        -500_000,
    )
    assert answer["payee"] == "Savings"


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"date": "today"},
            "date 'today' is not a date: give YYYY-MM-DD, e.g. 2026-09-15.",
        ),
        ({"date": days_ahead(0)}, "past"),
        ({"date": days_ahead(5 * 366 + 2)}, "far"),
        (
            {"frequency": "fortnightly"},
            "frequency 'fortnightly' is not one of YNAB's: give one of never, daily, weekly, "
            "everyOtherWeek, every4Weeks, twiceAMonth, monthly, everyOtherMonth, every3Months, every4Months, "
            "twiceAYear, yearly, everyOtherYear.",
        ),
        (
            {"amount": "0"},
            "amount is 0: give the amount the schedule moves (money out negative, in positive).",
        ),
        (
            {"transfer_account_id": "savings"},
            "Give exactly one of payee_name (a payee) and transfer_account_id (a transfer to or from another "
            "account).",
        ),
        (
            {"payee_name": None},
            "Give exactly one of payee_name (a payee) and transfer_account_id (a transfer to or from another "
            "account).",
        ),
        ({"payee_name": " "}, "payee_name is empty: give at least one visible character."),
        ({"memo": "m" * 501}, "memo is 501 characters long: give at most 500."),
        (
            {"account_id": "no-such-account"},
            "No account 'no-such-account' in this plan; list_accounts gives the valid ids.",
        ),
        (
            {"payee_name": None, "transfer_account_id": "checking"},
            "Account 'CHECKING' is both the schedule's account and its transfer account: give two different "
            "accounts.",
        ),
        (
            {"account_id": "house"},
            "Account 'HOUSE' is a tracking account, and tracking accounts carry no categories: give no "
            "category_id.",
        ),
        (
            {"category_id": "card_payment"},
            "Category 'CARD_PAYMENT' is a credit card payment category, which YNAB drops from a transaction; "
            "give a spending category from get_category_balances.",
        ),
        (
            {"category_id": "uncategorized"},
            "Category 'UNCATEGORIZED' is YNAB's Uncategorized, which means no category: give a category from "
            "get_category_balances.",
        ),
        (
            {"category_id": "no-such-category"},
            "No category 'no-such-category' in this plan; get_category_balances gives the valid ids.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_home, arguments, refusal):
    home, h = shared_home, shared_home.home
    ids = {
        "savings": h.savings,
        "checking": h.checking,
        "house": h.house,
        "card_payment": h.card_payment,
        "uncategorized": h.uncategorized,
    }
    given = {
        key: ids.get(value, value) if isinstance(value, str) else value for key, value in arguments.items()
    }
    case = creating(home, **given)
    start = await before(creating(home))
    if refusal == "past":
        refusal = _date_refusal(days_ahead(0))
    if refusal == "far":
        refusal = _date_refusal(days_ahead(5 * 366 + 2))
    for name, value in ids.items():
        refusal = refusal.replace(f"'{name.upper()}'", f"'{value}'")

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(creating(home), start)


def _date_refusal(day: str) -> str:
    return (
        f"date {day} is not after today ({days_ahead(0)}) or is more than 5 years ahead: a schedule's next "
        f"date must be from {days_ahead(1)} to {_five_years()} (for what already happened, use "
        "create_transactions)."
    )


def _five_years() -> str:
    today = days_ahead(0)
    year, rest = today[:4], today[4:]
    if rest == "-02-29":
        rest = "-02-28"
    return f"{int(year) + 5}{rest}"


async def created(home: Household) -> tuple[str, str]:
    """The rent scheduled by the tool, agreed to: (the operation's id, the schedule's id)."""
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, creating(home)))
    assert answer["status"] == "applied", answer
    return answer["operation_id"], answer["scheduled_transaction_id"]


async def undo(home: Household, operation_id: str):
    """undo_operation, agreed to: (its answer, the questions the person saw)."""
    person = says_yes()
    async with connected(MODERN, person) as client:
        result = await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": operation_id})
    return content(result), person.messages


async def test_undo_deletes_the_schedule_still_as_created(home):
    operation_id, scheduled_id = await created(home)

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], answer["restored"], answer["conflicts"]) == ("applied", 1, [])
    assert questions == ["Undo: delete the schedule Landlord; 1200.00 monthly from Checking?"]
    assert await schedule(home.id, scheduled_id) is None
    assert (await Operation.objects.aget(pk=operation_id)).status == "undone"
    assert (await Operation.objects.aget(pk=answer["operation_id"])).undo_data == {
        "deleted_ids": [scheduled_id]
    }


async def test_undo_leaves_a_schedule_changed_since_and_says_why(home):
    operation_id, scheduled_id = await created(home)
    await changed_in_ynab(home, scheduled_id, amount=-1_300_000)

    answer, questions = await undo(home, operation_id)

    assert (answer["status"], answer["restored"], questions) == ("nothing_to_do", 0, [])
    assert answer["conflicts"] == [
        {
            "id": scheduled_id,
            "name": "Landlord; 1300.00 monthly from Checking",
            "reason": "it changed since it was created (date, frequency, amount, payee, category, memo or "
            "flag)",
        }
    ]
    assert (await schedule(home.id, scheduled_id))["amount"] == -1_300_000


async def test_undo_leaves_a_schedule_moved_to_another_payee(home):
    operation_id, scheduled_id = await created(home)
    await changed_in_ynab(home, scheduled_id, payee_id=None, payee_name="Other Landlord")

    answer, _questions = await undo(home, operation_id)

    assert (answer["status"], [c["name"] for c in answer["conflicts"]]) == (
        "nothing_to_do",
        ["Other Landlord; 1200.00 monthly from Checking"],
    )
    assert await schedule(home.id, scheduled_id) is not None


async def test_undo_of_a_schedule_deleted_since_is_already_as_before(home):
    operation_id, scheduled_id = await created(home)
    await ynab("DELETE", f"/plans/{home.id}/scheduled_transactions/{scheduled_id}")

    answer, _questions = await undo(home, operation_id)

    assert (answer["status"], answer["already_as_before"]) == ("nothing_to_do", 1)


async def _lost(home: Household, fault: str) -> Operation:
    """The rent asked with its answer lost (`fault` on the POST), then settled."""
    case = creating(home)
    await sync_to_async(faults.inject)(fault, method="POST", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    op = await Operation.objects.filter(plan_id=home.id).order_by("-created_at").afirst()
    assert op.status == "unknown"
    await settling.settle_plan(home.id)
    return await Operation.objects.aget(pk=op.pk)


async def test_a_lost_answer_is_settled_by_finding_the_new_schedule_apart_from_one_alike(home):
    """The person had the same rent scheduled already: settling finds the other one, by elimination."""
    twin = await scheduled_in_ynab(home)
    op = await _lost(home, "drop_after_write")

    (new,) = [row for row in await _ids(home) if row != twin]
    assert (op.status, op.undo_data["scheduled_transaction_id"], op.undo_data["alike"]) == (
        "applied",
        new,
        [],
    )
    assert op.error == (
        f"Settled from YNAB's state: the schedule monthly from Checking, next on {days_ahead(10)} is in "
        f"YNAB ({new})."
    )


async def test_two_alike_appearing_leave_it_unknown_and_its_undo_touches_neither(home):
    """The answer was lost and the person made the same rent in YNAB meanwhile: which is ours
    cannot be told, so settling leaves it unknown and undo deletes nothing."""
    case = creating(home)
    await sync_to_async(faults.inject)("drop_after_write", method="POST", path=case.write_path)
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        error_text(await call(client, case, confirmation=code), case)
    await scheduled_in_ynab(home)
    await settling.settle_plan(home.id)
    op = await Operation.objects.filter(plan_id=home.id).order_by("-created_at").afirst()

    answer, questions = await undo(home, op.pk)

    ids = await _ids(home)
    assert (op.status, op.settled_at is not None, len(ids)) == ("unknown", True, 2)
    assert op.error == (
        f"Settled from YNAB's state: 2 schedules monthly from Checking, next on {days_ahead(10)} appeared "
        f"({', '.join(sorted(ids))}), so which one it created cannot be told; check them with "
        "list_scheduled_transactions."
    )
    assert (answer["status"], questions) == ("nothing_to_do", [])
    assert answer["conflicts"] == [
        {
            "id": "",
            "name": f"monthly from Checking, next on {days_ahead(10)}",
            "reason": "YNAB's answer was lost, so which schedule it created is not known (the operation's "
            "log says what settling found)",
        }
    ]


async def test_a_lost_request_that_never_ran_is_settled_failed(home):
    op = await _lost(home, "drop_before_write")

    assert (op.status, await schedules(home.id)) == ("failed", [])


async def _ids(home: Household) -> list[str]:
    rows = (await ynab("GET", f"/plans/{home.id}/scheduled_transactions"))["scheduled_transactions"]
    return [row["id"] for row in rows if not row["deleted"]]
