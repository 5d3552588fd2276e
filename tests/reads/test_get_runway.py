"""get_runway on a hand-made plan: liquid money, spending over complete months, essential groups."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.sandbox.models import CategoryGroup
from tests.helpers.reads import call
from tests.helpers.results import ok, refusal
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import DINARS, YEN, day_in, hand_plan, month_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def household(live_service):
    """First month -3 holds only the Starting Balances (checking 6,000, savings 4,000, Visa
    -300, brokerage 10,000 and car loan -5,000 tracking); spending starts in month -2.

    Month -2: rent -1,000 and a loan payment -250 (Bills), hobbies -200 on the Visa and a
    +50 refund (Fun), checking → savings 500, → Visa 200, → brokerage 300.
    Month -1: rent -1,000, loan -250, hobbies -400 on the Visa.
    """
    home = hand_plan(3)
    checking = home.account("Checking", "checking", "6000.00")
    savings = home.account("Savings", "savings", "4000.00")
    visa = home.account("Visa", "creditCard", "-300.00")
    brokerage = home.account("Brokerage", "otherAsset", "10000.00")
    loan = home.account("Car loan", "autoLoan", "-5000.00")
    bills, fun = home.group("Bills"), home.group("Fun")
    rent, loan_payment = home.category(bills, "Rent"), home.category(bills, "Loan payment")
    hobbies = home.category(fun, "Hobbies")
    two, one = month_of(-2), month_of(-1)
    home.spend(checking, day_in(two, 3), "-1000.00", "LANDLORD", rent)
    home.transfer(checking, loan, day_in(two, 10), "250.00", loan_payment)
    home.spend(visa, day_in(two, 12), "-200.00", "HOBBY SHOP", hobbies)
    home.spend(visa, day_in(two, 14), "50.00", "HOBBY SHOP", hobbies)
    home.transfer(checking, savings, day_in(two, 20), "500.00")
    home.transfer(checking, visa, day_in(two, 21), "200.00")
    home.transfer(checking, brokerage, day_in(two, 22), "300.00", None)
    home.spend(checking, day_in(one, 3), "-1000.00", "LANDLORD", rent)
    home.transfer(checking, loan, day_in(one, 10), "250.00", loan_payment)
    home.spend(visa, day_in(one, 12), "-400.00", "HOBBY SHOP", hobbies)
    with read_only(home.plan):
        yield home


async def test_runway_is_liquid_money_over_average_spending_with_essentials_apart(household):
    # Checking 6,000 - 2,250 - 1,250 = 2,500; savings 4,500; Visa owes 300 + 200 - 50 - 200 + 400 = 650.
    # Liquid 2,500 + 4,500 - 650 = 6,350. Spending: month -2 1,000 + 250 + 200 = 1,450 (refund not
    # deducted, transfers to savings, Visa and brokerage left out), month -1 1,000 + 250 + 400 = 1,650:
    # 1,550 a month, 6,350 / 1,550 = 4.097 → 4.1. Bills: 1,250 a month, 6,350 / 1,250 = 5.08 → 5.1.
    result = await call("get_runway", plan_id=household.id, essential_groups=["bills"])
    content = ok(result)

    message = (
        "Liquid money of 6350.00 would last 4.1 months at 1550.00 a month "
        "(the average of 2 complete months); 5.1 months on essentials alone."
    )
    assert content["message"] == message
    assert result.content[0].text.splitlines()[0] == message
    assert (content["liquid"], content["owed_on_cards"], content["monthly_spending"]) == (
        "6350.00",
        "650.00",
        "-1550.00",
    )
    assert content["runway_months"] == 4.1
    assert content["essential"] == {"monthly_spending": "-1250.00", "runway_months": 5.1}
    assert content["essential_groups"] == ["Bills"]
    assert content["months"] == [
        {"month": month_of(-2).isoformat(), "spending": "-1450.00", "essential": "-1250.00"},
        {"month": month_of(-1).isoformat(), "spending": "-1650.00", "essential": "-1250.00"},
    ]
    assert content["accounts"] == [
        {"name": "Checking", "type": "checking", "balance": "2500.00"},
        {"name": "Savings", "type": "savings", "balance": "4500.00"},
        {"name": "Visa", "type": "creditCard", "balance": "-650.00"},
    ]
    assert [(a["name"], a["why"]) for a in content["left_out"]] == [
        ("Brokerage", "tracking account"),
        ("Car loan", "tracking account"),
    ]
    assert any("earlier months are skipped" in note for note in content["notes"])


async def test_savings_can_be_left_out_of_liquid_money(household):
    # 2,500 - 650 = 1,850; 1,850 / 1,550 = 1.19 → 1.2.
    content = ok(await call("get_runway", plan_id=household.id, include_savings=False))

    assert (content["liquid"], content["runway_months"], content["essential"]) == ("1850.00", 1.2, None)
    assert ("Savings", "savings left out") in [(a["name"], a["why"]) for a in content["left_out"]]


async def test_an_unknown_group_is_refused_with_the_valid_ones(household):
    result = await call("get_runway", plan_id=household.id, essential_groups=["Bills", "Food"])

    assert refusal(result) == (
        "No category group 'Food' in this plan; give names or ids of: Bills, Credit Card Payments, Fun."
    )


# Checking opened with 10,000 smallest units, spending 1,000 and 1,001 units in the last two
# complete months: 1,000.5 a month → 1,001 (half away from zero); liquid 7,999; 7,999 / 1,001 =
# 7.99 → 8.0 months. In each currency: ("opening, two months' spending", "liquid, spent a month").
SPENDING_IN = {
    "yen": (YEN, "10000 -1000 -1001", "7999 1001"),
    "dollars": (None, "100.00 -10.00 -10.01", "79.99 10.01"),
    "dinars": (DINARS, "10.000 -1.000 -1.001", "7.999 1.001"),
}


@pytest.fixture(params=SPENDING_IN)
def spending_in(live_service, request):
    currency_format, given, expected = SPENDING_IN[request.param]
    opening, *spent = given.split()
    home = hand_plan(3, currency_format=currency_format)
    checking = home.account("Checking", "checking", opening)
    for back, amount in zip((2, 1), spent, strict=True):
        home.spend(checking, day_in(month_of(-back), 5), amount, "GROCER")
    home.ids = (*spent, *expected.split())
    return home


async def test_the_monthly_spending_is_rounded_to_the_plans_own_digits(spending_in):
    before_last, last, liquid, monthly = spending_in.ids

    content = ok(await call("get_runway", plan_id=spending_in.id))

    assert content["message"] == (
        f"Liquid money of {liquid} would last 8.0 months at {monthly} a month "
        "(the average of 2 complete months)."
    )
    assert (content["liquid"], content["monthly_spending"]) == (liquid, f"-{monthly}")
    assert content["runway_months"] == 8.0
    assert [(row["month"], row["spending"]) for row in content["months"]] == [
        (month_of(-2).isoformat(), before_last),
        (month_of(-1).isoformat(), last),
    ]


@pytest.fixture
def no_history(live_service):
    home = hand_plan(2)
    home.account("Checking", "checking", "800.00")
    return home


async def test_without_spending_there_is_no_runway(no_history):
    content = ok(await call("get_runway", plan_id=no_history.id))

    assert (
        content["message"]
        == "No spending in a complete month yet, so no runway to measure; liquid money is 800.00."
    )
    assert (content["runway_months"], content["months"], content["monthly_spending"]) == (None, [], "0.00")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_runway", {"months_count": 0}),
        ("get_runway", {"months_count": 25}),
        ("get_runway", {"essential_groups": ["x"] * 51}),
        ("get_savings_rate", {"months_count": 0}),
        ("get_savings_rate", {"months_count": 25}),
        ("get_net_worth_trend", {"months_count": 0}),
        ("get_net_worth_trend", {"months_count": 25}),
        ("get_age_of_money", {"months_count": 0}),
        ("get_age_of_money", {"months_count": 25}),
    ],
)
async def test_months_count_and_list_bounds_are_refused_before_any_ynab_request(
    ynab_requests, tool, arguments
):
    result = await call(tool, plan_id="de000000-0000-4000-8000-000000000001", **arguments)

    assert result.is_error
    assert await ynab_requests() == []


async def test_a_group_named_by_its_id_and_a_history_as_long_as_asked(household):
    bills = await sync_to_async(CategoryGroup.objects.get)(plan_id=household.id, name="Bills")

    content = ok(await call("get_runway", plan_id=household.id, essential_groups=[bills.id], months_count=2))

    assert content["essential_groups"] == ["Bills"]
    assert content["essential"] == {"monthly_spending": "-1250.00", "runway_months": 5.1}
    assert not any("earlier months are skipped" in note for note in content["notes"])
