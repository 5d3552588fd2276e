"""get_net_worth_trend on a hand-made plan with a tracking asset, a loan, a card and a closed account."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import day_in, hand_plan, month_of, today

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def household(live_service):
    """From month -2: checking 1,000, house 200,000 (tracking), car loan -5,000 (tracking),
    Visa -100, an old bank account with 300 and an unused one, both closed later.

    Month -1: the old bank's 300 moves to checking, 200 is spent. Today: 500 paid on the loan.
    """
    home = hand_plan(2)
    checking = home.account("Checking", "checking", "1000.00")
    home.account("House", "otherAsset", "200000.00")
    loan = home.account("Car loan", "autoLoan", "-5000.00")
    home.account("Visa", "creditCard", "-100.00")
    old = home.account("Old bank", "checking", "300.00")
    unused = home.account("Never used", "savings")
    home.transfer(old, checking, day_in(month_of(-1), 5), "300.00")
    home.spend(checking, day_in(month_of(-1), 9), "-200.00", "SHOP")
    home.transfer(checking, loan, today(), "500.00")
    home.close(old)
    home.close(unused)
    with read_only(home.plan):
        yield home


async def test_month_end_balances_count_tracking_accounts_debts_and_a_closed_account_while_it_held_money(
    household,
):
    # End of month -2: assets 1,000 + 200,000 + 300 = 201,300; debts -5,000 - 100 = -5,100.
    # End of month -1: checking 1,100, old bank 0: assets 201,100; debts -5,100.
    # Now: checking 600, loan -4,500: assets 200,600; debts -4,600.
    result = await call("get_net_worth_trend", plan_id=household.id)
    content = ok(result)

    assert content["months"] == [
        {
            "month": month_of(-2).isoformat(),
            "assets": "201300.00",
            "debts": "-5100.00",
            "net_worth": "196200.00",
        },
        {
            "month": month_of(-1).isoformat(),
            "assets": "201100.00",
            "debts": "-5100.00",
            "net_worth": "196000.00",
        },
        {
            "month": month_of(0).isoformat(),
            "assets": "200600.00",
            "debts": "-4600.00",
            "net_worth": "196000.00",
        },
    ]
    assert (content["first_net_worth"], content["last_net_worth"], content["change"]) == (
        "196200.00",
        "196000.00",
        "-200.00",
    )
    assert [(a["name"], a["on_budget"], a["closed"]) for a in content["accounts"]] == [
        ("Checking", True, False),
        ("Visa", True, False),
        ("Car loan", False, False),
        ("House", False, False),
        ("Old bank", True, True),
    ]
    assert result.content[0].text.splitlines()[0] == (
        f"Net worth 196000.00 at the end of {month_of(0).isoformat()}; -200.00 since the end of "
        f"{month_of(-2).isoformat()} (3 months, 5 accounts)."
    )


async def test_months_before_the_plan_began_are_not_listed(household):
    content = ok(await call("get_net_worth_trend", plan_id=household.id, months_count=24))

    assert [month["month"] for month in content["months"]] == [month_of(b).isoformat() for b in (-2, -1, 0)]


async def test_one_month_is_the_current_one(household):
    content = ok(await call("get_net_worth_trend", plan_id=household.id, months_count=1))

    assert [month["net_worth"] for month in content["months"]] == ["196000.00"]
    assert content["change"] == "0.00"
