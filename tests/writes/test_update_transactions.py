"""update_transactions through the SDK's real client: its own confirmation paths and faults, the
preview and result, each refusal, fields already as asked, moving a transaction, a new payee."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.sandbox.models import Account
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.write_cases.create_transactions import days_ago
from tests.helpers.write_cases.update_transactions import (
    NEW_PAYEE,
    TOOL,
    held,
    month_of,
    moved_day,
    patch,
    update_case,
    updating,
)
from tests.writes.checks import requests_since, says_yes, standing, ynab
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
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

PATHS = paths_for(TOOL, CONFIRMED_PATHS)
FAULTS = paths_for(TOOL, FAULT_PATHS)


@pytest.fixture
def case(home: Household) -> WriteCase:
    return update_case(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: update_case(household())) as case:
        yield case


@pytest.fixture
def demo(live_service):
    return demo_plan_copy()


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


async def test_the_person_sees_each_field_before_and_after_in_argument_order(case, home):
    day, new_day = days_ago(3), moved_day()
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    assert person.messages == [
        "Change 3 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: amount 86.43 → 68.40; memo ‘weekly shop’ → ‘refund due’; "
        "uncleared → cleared\n"
        f"- {day}; CORNER CAFE; 12.34: date {day} → {new_day}; payee ‘CORNER CAFE’ → ‘{NEW_PAYEE}’\n"
        f"- {day}; Transfer : Savings; 100.00: amount 100.00 → 120.00 (and its transfer side on Savings)\n"
        "Available, before → after:\n"
        f"- Dining Out for {month_of(new_day)}: 0.00 → -12.34\n"
        f"- Dining Out for {month_of(day)}: -22.34 → -10.00\n"
        f"This leaves 2 categories overspent: Dining Out by 12.34 for {month_of(new_day)}; "
        f"Dining Out by 10.00 for {month_of(day)}."
    ]
    assert answer["changes"] == [
        {
            "transaction_id": home.market,
            "date": day,
            "payee": "CB MARKET FRESH 0509",
            "amount": "-86.43",
            "fields": [
                {"field": "amount", "from": "-86.43", "to": "-68.40"},
                {"field": "memo", "from": "weekly shop", "to": "refund due"},
                {"field": "cleared", "from": "uncleared", "to": "cleared"},
            ],
        },
        {
            "transaction_id": home.cafe,
            "date": day,
            "payee": "CORNER CAFE",
            "amount": "-12.34",
            "fields": [
                {"field": "date", "from": day, "to": new_day},
                {"field": "payee_name", "from": "CORNER CAFE", "to": NEW_PAYEE},
            ],
        },
        {
            "transaction_id": home.transfer,
            "date": day,
            "payee": "Transfer : Savings",
            "amount": "-100.00",
            "fields": [{"field": "amount", "from": "-100.00", "to": "-120.00"}],
        },
    ]
    assert answer["unchanged_count"] == 0
    assert answer["message"] == (
        f"Changed 3 transaction(s). Done as operation {answer['operation_id']}; "
        "undo_operation with that id reverses it."
    )
    savings = await ynab("GET", f"/plans/{home.id}/accounts/{home.home.savings}/transactions")
    assert [t["amount"] for t in savings["transactions"] if t["transfer_account_id"]] == [120_000]


async def test_fields_already_as_asked_are_dropped_and_all_dropped_asks_nothing(home):
    h = home.home
    none_left = updating(
        home,
        [
            {"transaction_id": home.market, "amount": "-86.43", "memo": "weekly shop"},
            {"transaction_id": home.cafe, "payee_name": "corner cafe", "cleared": "uncleared"},
            {"transaction_id": home.salary, "payee_name": "ACME PAYROLL"},
            {"transaction_id": home.transfer, "memo": "", "date": days_ago(3)},
        ],
        {home.market: None},
    )
    some = updating(
        home,
        [
            {"transaction_id": home.market, "amount": "-86.43", "memo": ""},
            {"transaction_id": home.cafe, "payee_name": "ACME PAYROLL"},
            {"transaction_id": home.salary, "account_id": h.savings},
        ],
        {home.market: None},
    )
    start = await standing(none_left)
    person = says_yes()

    async with connected(MODERN, person) as client:
        nothing = content(await call(client, none_left))
        assert person.questions == []
        await expect_nothing_written(none_left, start)
        applied = content(await call(client, some))

    assert (nothing["status"], nothing["unchanged_count"], nothing["changes"]) == ("nothing_to_do", 4, [])
    assert nothing["message"] == "Nothing to change: the 4 transaction(s) given already have these values."
    assert applied["status"] == "applied"
    day = days_ago(3)
    assert person.messages[0].splitlines() == [
        "Change 3 transaction(s)?",
        f"- {day}; CB MARKET FRESH 0509; 86.43: memo ‘weekly shop’ → none",
        f"- {day}; CORNER CAFE; 12.34: payee ‘CORNER CAFE’ → ‘ACME PAYROLL’",
        f"- {day}; ACME PAYROLL; +1234.56: account Checking → Savings",
    ]
    now = await held(home, home.market, home.cafe, home.salary)
    assert now[home.market][3] is None
    assert now[home.cafe][2] == "ACME PAYROLL"
    assert now[home.salary][5] == h.savings
    payees = await ynab("GET", f"/plans/{home.id}/payees")
    assert [p["name"] for p in payees["payees"]].count("ACME PAYROLL") == 1  # found, not created


async def test_arguments_alone_refused_before_any_request(shared_home):
    home = shared_home
    start = await standing(updating(home, [], {home.market: None}))
    cases = [
        ([], None),
        (
            [
                {"transaction_id": home.market, "memo": "a"},
                {"transaction_id": home.market, "cleared": "cleared"},
            ],
            f"Transaction '{home.market}' is listed twice; give it once.",
        ),
        (
            [{"transaction_id": home.market}],
            f"Update 1 (transaction {home.market}) names no field: give at least one of date, amount, "
            "payee_name, memo, cleared, account_id (a category: apply_categories; a flag: "
            "flag_transactions; approval: approve_transactions).",
        ),
        (
            [{"transaction_id": home.market, "date": days_ago(-1)}],
            f"Transaction 1 is dated {days_ago(-1)}, after today ({days_ago(0)}): YNAB refuses future-dated "
            "transactions; the person can schedule it in YNAB instead.",
        ),
        (
            [{"transaction_id": home.market, "date": "12/09/2026"}],
            "date of update 1 '12/09/2026' is not a date: give YYYY-MM-DD, e.g. 2026-09-15.",
        ),
        (
            [{"transaction_id": home.market, "amount": "1e3"}],
            None,
        ),
        (
            [{"transaction_id": home.market, "payee_name": "Mar\u202eket"}],
            "payee_name of update 1 contains U+202E (RIGHT-TO-LEFT OVERRIDE), a control or invisible "
            "character: give the text on one line with visible characters only.",
        ),
        (
            [{"transaction_id": home.market, "memo": "x" * 501}],
            "memo of update 1 is 501 characters long: give at most 500.",
        ),
        (
            [{"transaction_id": home.market, "memo": "   "}],
            "memo of update 1 is empty: give at least one visible character.",
        ),
        (
            [{"transaction_id": home.market, "account_id": "bad id"}],
            None,
        ),
    ]

    async with connected(MODERN) as client:
        for updates, expected in cases:
            result = await client.call_tool(TOOL, {"plan_id": home.id, "updates": updates})
            assert result.is_error, updates
            if expected is not None:
                assert result.content[0].text == expected

    assert await requests_since(start.mark) == []


async def test_each_refusal_the_plan_shows_asks_nothing_and_writes_nothing(home, demo):
    h = home.home
    await patch(home, {"id": home.salary, "cleared": "reconciled"})
    await patch(home, {"id": home.cafe, "category_id": h.groceries})
    savings_side = (await ynab("GET", f"/plans/{home.id}/transactions/{home.transfer}"))["transaction"][
        "transfer_transaction_id"
    ]
    savings_payee = (await ynab("GET", f"/plans/{home.id}/accounts/{h.savings}"))["account"][
        "transfer_payee_id"
    ]
    split_with_a_transfer = await ynab(
        "POST",
        f"/plans/{home.id}/transactions",
        json={
            "transaction": {
                "account_id": h.checking,
                "date": days_ago(2),
                "amount": -15_000,
                "subtransactions": [
                    {"amount": -5_000, "category_id": h.groceries},
                    {"amount": -10_000, "payee_id": savings_payee},
                ],
            }
        },
    )
    split_leg = split_with_a_transfer["transaction"]["subtransactions"][1]["transfer_transaction_id"]
    market, split, salary = (f"'{i}'" for i in (home.market, home.split, home.salary))
    cases = [
        (
            {"transaction_id": "t-unknown", "memo": "x"},
            "No transaction 't-unknown' in this plan; find_transactions gives the valid ids.",
        ),
        (
            {"transaction_id": home.split, "amount": "-31.00"},
            f"Transaction {split} is split: YNAB's API cannot change a split's amount (its lines must still "
            "add up and cannot be edited); the person can change it in YNAB.",
        ),
        (
            {"transaction_id": home.split, "date": days_ago(4)},
            f"Transaction {split} is split: YNAB's API cannot change a split's date (its lines must still "
            "add up and cannot be edited); the person can change it in YNAB.",
        ),
        *(
            (
                {"transaction_id": home.salary, field: value},
                f"Transaction {salary} is reconciled: changing its {field} would move a balance the person "
                "matched to the bank; do it in YNAB, which asks first.",
            )
            for field, value in (("amount", "1.00"), ("date", days_ago(4)), ("account_id", h.savings))
        ),
        *(
            (
                {"transaction_id": transaction_id, field: value},
                f"Transaction '{transaction_id}' is a transfer, whose {field} YNAB keeps with its other "
                "side: delete it (delete_transactions) and record it again with transfer_money instead.",
            )
            for transaction_id in (home.transfer, savings_side)
            for field, value in (("account_id", h.card), ("payee_name", "Bank"))
        ),
        (
            {"transaction_id": split_leg, "amount": "5.00"},
            f"Transaction '{split_leg}' is the other side of a split's transfer line: its amount moves with "
            "the split; the person can change the split in YNAB.",
        ),
        (
            {"transaction_id": home.market, "account_id": "a-unknown"},
            "No account 'a-unknown' in this plan; list_accounts gives the valid ids.",
        ),
        (
            {"transaction_id": home.market, "account_id": h.checking},
            f"Transaction {market} is already on account '{h.checking}': give another account, or leave "
            "account_id out.",
        ),
        (
            {"transaction_id": home.cafe, "account_id": h.house},
            f"Transaction '{home.cafe}' has a category, and account '{h.house}' is a tracking account, which "
            "carries none: remove its category first (apply_categories cannot; the person can in YNAB), or "
            "choose an account on the budget.",
        ),
    ]
    case = updating(home, [{"transaction_id": home.house_repair, "memo": "ok"}], {home.house_repair: None})
    person = says_yes()
    async with connected(MODERN, person) as client:
        for update, expected in cases:
            start = await standing(case)
            refused = await client.call_tool(
                TOOL,
                {
                    "plan_id": home.id,
                    "updates": [{"transaction_id": home.house_repair, "memo": "ok"}, update],
                },
            )
            assert error_text(refused, case) == expected, update
            await expect_nothing_written(case, start)
        closed = await sync_to_async(Account.objects.get)(plan=demo, closed=True)
        any_transaction = (await ynab("GET", f"/plans/{demo.id}/transactions"))["transactions"][-1]
        refused = await client.call_tool(
            TOOL,
            {
                "plan_id": demo.id,
                "updates": [{"transaction_id": any_transaction["id"], "account_id": closed.id}],
            },
        )
    assert refused.content[0].text == (
        f"Account '{closed.id}' is closed, so YNAB takes nothing new on it; give an open account from "
        "list_accounts."
    )
    assert person.questions == []


async def test_a_transaction_moves_to_another_account_with_its_category_and_a_memo_removed(home):
    h = home.home
    person = says_yes()
    moving = updating(
        home,
        [{"transaction_id": home.cafe, "account_id": h.card, "memo": "", "cleared": "cleared"}],
        {home.cafe: None},
    )

    async with connected(MODERN, person) as client:
        answer = content(await call(client, moving))

    assert person.messages[0].splitlines()[1] == (
        f"- {days_ago(3)}; CORNER CAFE; 12.34: memo ‘lunch’ → none; uncleared → cleared; "
        "account Checking → Visa"
    )
    assert answer["changes"][0]["fields"] == [
        {"field": "memo", "from": "lunch", "to": None},
        {"field": "cleared", "from": "uncleared", "to": "cleared"},
        {"field": "account_id", "from": "Checking", "to": "Visa"},
    ]
    transaction = (await ynab("GET", f"/plans/{home.id}/transactions/{home.cafe}"))["transaction"]
    assert (transaction["account_id"], transaction["memo"], transaction["category_id"]) == (
        h.card,
        None,
        h.dining,
    )
