"""transfer_money through the SDK's real client: its own confirmation paths and faults, the preview,
each refusal, what it sends and what YNAB then holds on both accounts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write, utc_today
from avenir_mcp.sandbox.models import Account, Payee
from avenir_mcp.values.months import years_earlier
from tests.helpers.write_cases.create_transactions import days_ago
from tests.helpers.write_cases.transfer_money import (
    MEMO,
    entered_on,
    originals_of,
    transfer_rows,
    transferring,
)
from tests.writes.checks import make_available, says_yes, ynab
from tests.writes.harness import (
    ANSWER_WAYS,
    ARGUMENTS_ONLY_PATHS,
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    answered_after,
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


async def case_on(home: Household) -> WriteCase:
    return transferring(home, await originals_of(home.id, home.home.checking, home.home.card))


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("transfer_money", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("transfer_money", FAULT_PATHS)


@pytest.fixture
async def case(home: Household) -> WriteCase:
    return await case_on(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: case_on(household())) as case:
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


async def test_a_card_payment_is_previewed_then_entered_on_both_accounts_cleared_and_approved(home, case):
    person = says_yes()
    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    h = home.home
    assert person.messages == [f"Transfer 150.00 from Checking to Visa on {days_ago(1)}?\n- memo: ‘{MEMO}’"]
    assert answer["status"] == "applied"
    source, pair = answer["transaction_ids"]
    assert {key: answer[key] for key in ("from_account", "to_account", "amount", "date", "category")} == {
        "from_account": "Checking",
        "to_account": "Visa",
        "amount": "150.00",
        "date": days_ago(1),
        "category": None,
    }
    assert answer["message"] == (
        f"Transferred 150.00 from Checking to Visa. Done as operation {answer['operation_id']}; "
        "undo_operation with that id reverses it."
    )
    assert await case.state() == case.expected_after  # the source side cleared and approved, as sent
    sides = [await ynab("GET", f"/plans/{home.id}/transactions/{i}") for i in (source, pair)]
    assert [(t["transaction"]["account_id"], t["transaction"]["transfer_transaction_id"]) for t in sides] == [
        (h.checking, pair),
        (h.card, source),
    ]
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert (op.undoable, op.undo_data["transaction_ids"]) == (True, [source, pair])


async def test_to_a_tracking_account_it_counts_in_the_category_given_and_shows_its_available(home):
    h = home.home
    await make_available(home.id, days_ago(0), h.rent, 600_000)
    originals = await originals_of(home.id, h.checking, h.house)
    case = transferring(
        home, originals, to_account_id=h.house, amount="500", date=days_ago(0), memo=None, category_id=h.rent
    )
    month = days_ago(0)[:7]

    person = says_yes()
    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    assert person.messages == [
        f"Transfer 500.00 from Checking to House on {days_ago(0)}; counted as Rent?\n"
        "Available, before → after:\n"
        f"- Rent for {month}-01: 600.00 → 100.00"
    ]
    assert (answer["status"], answer["category"]) == ("applied", "Rent")
    assert await entered_on(home.id, (h.checking, h.house), originals) == transfer_rows(
        (h.checking, "Checking"), (h.house, "House"), days_ago(0), 500_000, None, category=h.rent
    )


async def test_from_a_tracking_account_it_may_count_as_ready_to_assign_and_the_date_defaults_to_today(home):
    h = home.home
    originals = await originals_of(home.id, h.checking, h.house)
    arguments = {"from_account_id": h.house, "to_account_id": h.checking, "amount": 25, "date": None}
    case = transferring(home, originals, **arguments, memo=None, category_id=h.ready_to_assign)
    del case.arguments["date"]
    today = utc_today().isoformat()

    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    assert (
        answer["preview"]
        == f"Transfer 25.00 from House to Checking on {today}; counted as Inflow: Ready to Assign?"
    )
    rows = await entered_on(home.id, (h.checking, h.house), originals)
    assert rows == sorted(
        [
            (h.house, today, -25_000, "Transfer : Checking", None, None, "cleared", True, h.checking),
            (
                h.checking,
                today,
                25_000,
                "Transfer : House",
                None,
                h.ready_to_assign,
                "uncleared",
                True,
                h.house,
            ),
        ]
    )


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_the_same_request_is_accepted_when_the_plan_changed_before_the_answer(home, case, way):
    """The person agreed to this transfer: a transaction entered meanwhile changes nothing of it."""
    await before(case)

    async def meanwhile() -> None:
        body = {
            "account_id": home.home.savings,
            "date": days_ago(0),
            "amount": -1_000,
            "payee_name": "Bank fee",
        }
        await ynab("POST", f"/plans/{home.id}/transactions", json={"transaction": body})

    result = await answered_after(way, case, meanwhile)

    assert content(result)["status"] == "applied"
    assert await case.state() == case.expected_after


TODAY = utc_today()


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"to_account_id": "checking"},
            "from_account_id and to_account_id are the same account ('{checking}'): give two different "
            "accounts.",
        ),
        (
            {"amount": "0"},
            "amount must be above zero: it is what leaves from_account_id for to_account_id (to transfer "
            "the other way, swap the two accounts).",
        ),
        (
            {"amount": "-5"},
            "amount must be above zero: it is what leaves from_account_id for to_account_id (to transfer "
            "the other way, swap the two accounts).",
        ),
        (
            {"date": (TODAY + timedelta(days=1)).isoformat()},
            f"date {(TODAY + timedelta(days=1)).isoformat()} is after today ({TODAY.isoformat()}): YNAB "
            "refuses future-dated transactions; a transfer to come is scheduled instead.",
        ),
        (
            {"date": (years_earlier(TODAY, 5) - timedelta(days=1)).isoformat()},
            f"date {(years_earlier(TODAY, 5) - timedelta(days=1)).isoformat()} is more than 5 years ago, "
            f"which YNAB refuses: give a date from {years_earlier(TODAY, 5).isoformat()} to today "
            f"({TODAY.isoformat()}).",
        ),
        ({"date": "12/09/2026"}, "date '12/09/2026' is not a date: give YYYY-MM-DD, e.g. 2026-09-15."),
        (
            {"to_account_id": "no-such-account"},
            "No account 'no-such-account' in this plan; list_accounts gives the valid ids.",
        ),
        (
            {"to_account_id": "house"},
            "Of Checking and House, one is on budget and the other a tracking account, so YNAB counts this "
            "transfer as spending or income on the budget side: give category_id, the category it counts "
            "in (get_category_balances).",
        ),
        (
            {"category_id": "rent"},
            "Checking and Visa are both on budget, and a transfer between them carries no category: give "
            "category_id null.",
        ),
        (
            {"to_account_id": "house", "category_id": "no-such-category"},
            "No category 'no-such-category' in this plan; get_category_balances gives the valid ids.",
        ),
        (
            {"to_account_id": "house", "category_id": "uncategorized"},
            "Category '{uncategorized}' is YNAB's Uncategorized, which means no category: give a category "
            "from get_category_balances.",
        ),
        (
            {"to_account_id": "house", "category_id": "card_payment"},
            "Category '{card_payment}' is a credit card payment category, which YNAB drops from a "
            "transaction; give a spending category from get_category_balances.",
        ),
        (
            {"memo": "pay\u200bment"},
            "memo contains U+200B (ZERO WIDTH SPACE), a control or invisible character: give the text on one "
            "line with visible characters only.",
        ),
        (
            {"from_account_id": "bad id!"},
            "'bad id!' is not a valid account id (it contains U+0020): use an id from list_accounts.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_home, arguments, refusal):
    home = shared_home
    h = home.home
    named = {
        "checking": h.checking,
        "house": h.house,
        "rent": h.rent,
        "uncategorized": h.uncategorized,
        "card_payment": h.card_payment,
    }
    given = {key: named.get(value, value) for key, value in arguments.items()}
    original = await case_on(home)
    case = transferring(home, set(), **given)
    start = await before(original)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal.format(**named)
    await expect_nothing_written(original, start)


async def _changed(plan_id: str, change) -> None:
    def write() -> None:
        with plan_write(plan_id) as made:
            change(made)

    await sync_to_async(write)()


async def test_a_closed_account_is_refused(home):
    await _changed(
        home.id,
        lambda w: Account.objects.filter(pk=home.home.card).update(closed=True, knowledge=w.knowledge),
    )
    case = await case_on(home)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        f"Account '{home.home.card}' is closed, so YNAB takes nothing new on it; give an open account from "
        "list_accounts."
    )


async def test_an_account_without_its_transfer_payee_is_refused(home):
    card = await Account.objects.aget(pk=home.home.card)
    await _changed(
        home.id,
        lambda w: Payee.objects.filter(pk=card.transfer_payee_id).update(deleted=True, knowledge=w.knowledge),
    )
    case = await case_on(home)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        f"Account '{home.home.card}' has no transfer payee in this plan, so YNAB cannot take a transfer to "
        "it; the person can make this transfer in YNAB itself."
    )
