"""get_savings_rate on hand-made plans: a transfer to a tracking asset, a loan payment, no income."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import day_in, hand_plan, month_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def household(live_service):
    """From month -4, but nothing happens before month -2 (only Starting Balances).

    Month -2: pay +3,000 (Ready to Assign), groceries -1,000 and a +100 refund, 500 to the
    pension (tracking asset), 250 to the car loan (tracking loan), 200 to savings.
    Month -1: pay +2,000, groceries -2,500.
    """
    home = hand_plan(4)
    checking = home.account("Checking", "checking", "1000.00")
    savings = home.account("Savings", "savings")
    pension = home.account("Pension", "otherAsset", "20000.00")
    loan = home.account("Car loan", "autoLoan", "-5000.00")
    everyday = home.group("Everyday")
    groceries, loan_payment = home.category(everyday, "Groceries"), home.category(everyday, "Loan")
    two, one = month_of(-2), month_of(-1)
    home.spend(checking, day_in(two, 1), "3000.00", "ACME PAYROLL", home.ready_to_assign())
    home.spend(checking, day_in(two, 5), "-1000.00", "MARKET", groceries)
    home.spend(checking, day_in(two, 6), "100.00", "MARKET", groceries)
    home.transfer(checking, pension, day_in(two, 7), "500.00")
    home.transfer(checking, loan, day_in(two, 8), "250.00", loan_payment)
    home.transfer(checking, savings, day_in(two, 9), "200.00")
    home.spend(checking, day_in(one, 1), "2000.00", "ACME PAYROLL", home.ready_to_assign())
    home.spend(checking, day_in(one, 5), "-2500.00", "MARKET", groceries)
    with read_only(home.plan):
        yield home


async def test_money_moved_to_a_tracking_asset_is_saved_and_a_loan_payment_is_spent(household):
    # Month -2: income 3,000; spending -1,000 + 100 - 250 = -1,150; saved 1,850; 61.666 → 61.7 %.
    # Month -1: income 2,000; spending -2,500; saved -500; -25.0 %.
    # Both: income 5,000, spending -3,650, saved 1,350, 27.0 %; 675.00 saved a month on average.
    result = await call("get_savings_rate", plan_id=household.id)
    content = ok(result)

    message = "The savings rate was 27.0 % over the last 2 complete months: 1350.00 saved of 5000.00 income."
    assert content["message"] == message
    assert result.content[0].text.splitlines()[0] == message
    assert content["months"] == [
        {
            "month": month_of(-2).isoformat(),
            "income": "3000.00",
            "spending": "-1150.00",
            "saved": "1850.00",
            "rate": 61.7,
        },
        {
            "month": month_of(-1).isoformat(),
            "income": "2000.00",
            "spending": "-2500.00",
            "saved": "-500.00",
            "rate": -25.0,
        },
    ]
    assert (content["income"], content["spending"], content["saved"], content["rate"]) == (
        "5000.00",
        "-3650.00",
        "1350.00",
        27.0,
    )
    assert (content["average_saved"], content["moved_to_tracking"]) == ("675.00", "500.00")
    assert (content["best_month"], content["worst_month"]) == (
        month_of(-2).isoformat(),
        month_of(-1).isoformat(),
    )
    assert "Only 2 complete months with transactions: earlier months are skipped." in content["notes"]


async def test_one_month_looks_at_last_month_only(household):
    content = ok(await call("get_savings_rate", plan_id=household.id, months_count=1))

    assert [month["month"] for month in content["months"]] == [month_of(-1).isoformat()]
    assert content["rate"] == -25.0


@pytest.fixture
def no_income(live_service):
    home = hand_plan(1)
    checking = home.account("Checking", "checking", "500.00")
    home.spend(checking, day_in(month_of(-1), 4), "-100.00", "MARKET")
    return home


async def test_without_income_there_is_no_rate(no_income):
    content = ok(await call("get_savings_rate", plan_id=no_income.id))

    assert (
        content["message"]
        == "No income in the last 1 complete month, so no savings rate; -100.00 net was saved."
    )
    assert (content["rate"], content["best_month"], content["worst_month"]) == (None, None, None)
    assert content["months"][0]["rate"] is None
    assert "Months without income have no rate (null)." in content["notes"]


@pytest.fixture
def nothing_yet(live_service):
    home = hand_plan(1)
    home.account("Checking", "checking", "500.00")  # only its Starting Balance
    return home


async def test_without_a_complete_month_of_transactions_there_is_no_rate_to_give(nothing_yet):
    content = ok(await call("get_savings_rate", plan_id=nothing_yet.id))

    assert (
        content["message"] == "No complete month with transactions yet, so there is no savings rate to give."
    )
    assert (content["rate"], content["months"]) == (None, [])
