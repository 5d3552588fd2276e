"""get_debt_payoff_plan on hand-made debts, each month of the payoff worked out here."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok, refusal
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import DINARS, YEN, day_in, hand_plan, month_of

pytestmark = pytest.mark.anyio
PLAN_ID = "de000000-0000-4000-8000-000000000001"


@pytest.fixture(scope="module")
def debts(live_service):
    """Car loan -600.00 at 12 % (1 % a month), minimum 100.00, from YNAB; Visa -1,000.00 with
    no terms in YNAB (cards have none)."""
    home = hand_plan(3)
    first = home.first_month.isoformat()
    home.account("Checking", "checking", "5000.00")
    home.account(
        "Car loan",
        "autoLoan",
        "-600.00",
        debt_interest_rates={first: 12_000},
        debt_minimum_payments={first: 100_000},
    )
    home.account("Visa", "creditCard", "-1000.00")
    with read_only(home.plan):
        yield home


VISA_TERMS = {"account": "Visa", "interest_rate": "24", "minimum_payment": "50.00"}


async def test_avalanche_and_snowball_pay_off_in_known_months(debts):
    # 500.00 a month; Car 1 % a month, min 100; Visa 2 % a month (24 %), min 50.
    # Avalanche (Visa first):
    #  1: Car 606.00-100 = 506.00; Visa 1020.00-50-350 = 620.00
    #  2: Car 511.06-100 = 411.06; Visa 632.40-50-350 = 232.40
    #  3: Car 415.17-100 = 315.17; Visa 237.05-50-187.05 = 0 (paid), 162.95 to Car: 152.22
    #  4: Car 153.74 paid. Interest Car 6+5.06+4.11+1.52 = 16.69, Visa 20+12.40+4.65 = 37.05.
    # Snowball (Car first, the smaller balance):
    #  1: Car 606.00-100-350 = 156.00; Visa 1020.00-50 = 970.00
    #  2: Car 157.56 paid (292.44 left to Visa); Visa 989.40-50-292.44 = 646.96
    #  3: Visa 659.90-500 = 159.90.  4: Visa 163.10 paid.
    #  Interest Car 6+1.56 = 7.56, Visa 20+19.40+12.94+3.20 = 55.54.
    result = await call(
        "get_debt_payoff_plan", plan_id=debts.id, monthly_budget="500.00", overrides=[VISA_TERMS]
    )
    content = ok(result)

    m2, m3, m4 = (month_of(n).isoformat() for n in (2, 3, 4))
    message = (
        f"With 500.00 a month (given): avalanche pays them off in {m4} (4 months; 53.74 interest); "
        f"snowball pays them off in {m4} (4 months; 63.10 interest)."
    )
    assert content["message"] == message
    assert result.content[0].text.splitlines()[0] == message
    assert (content["monthly_budget"], content["budget_from"], content["first_month"]) == (
        "500.00",
        "given",
        month_of(1).isoformat(),
    )
    assert [
        (d["name"], d["balance"], d["interest_rate"], d["rate_from"], d["minimum_payment"], d["minimum_from"])
        for d in content["debts"]
    ] == [
        ("Car loan", "-600.00", 12.0, "ynab", "100.00", "ynab"),
        ("Visa", "-1000.00", 24.0, "override", "50.00", "override"),
    ]
    avalanche, snowball = content["plans"]
    assert avalanche == {
        "strategy": "avalanche",
        "debts": [
            {"name": "Visa", "payoff_month": m3, "months": 3, "interest": "37.05", "paid": "1037.05"},
            {"name": "Car loan", "payoff_month": m4, "months": 4, "interest": "16.69", "paid": "616.69"},
        ],
        "months_to_debt_free": 4,
        "debt_free_month": m4,
        "total_interest": "53.74",
        "total_paid": "1653.74",
    }
    assert snowball == {
        "strategy": "snowball",
        "debts": [
            {"name": "Car loan", "payoff_month": m2, "months": 2, "interest": "7.56", "paid": "607.56"},
            {"name": "Visa", "payoff_month": m4, "months": 4, "interest": "55.54", "paid": "1055.54"},
        ],
        "months_to_debt_free": 4,
        "debt_free_month": m4,
        "total_interest": "63.10",
        "total_paid": "1663.10",
    }
    assert (content["interest_saved_by_avalanche"], content["months_saved_by_avalanche"]) == ("9.36", 0)


async def test_one_strategy_alone_and_no_savings_figures(debts):
    content = ok(
        await call(
            "get_debt_payoff_plan",
            plan_id=debts.id,
            strategy="snowball",
            monthly_budget=500,
            overrides=[VISA_TERMS],
        )
    )

    assert [plan["strategy"] for plan in content["plans"]] == ["snowball"]
    assert (content["interest_saved_by_avalanche"], content["months_saved_by_avalanche"]) == (None, None)


async def test_without_a_budget_it_pays_the_minimums_and_says_what_it_does_not_know(debts):
    content = ok(await call("get_debt_payoff_plan", plan_id=debts.id))

    assert (content["monthly_budget"], content["budget_from"]) == ("100.00", "minimum payments")
    assert [(d["name"], d["rate_from"], d["minimum_from"]) for d in content["debts"]] == [
        ("Car loan", "ynab", "ynab"),
        ("Visa", "missing", "missing"),
    ]
    assert "No interest rate known for Visa: counted as 0 %; give overrides." in content["notes"]
    assert "No minimum payment known for Visa: counted as 0." in content["notes"]


async def test_an_override_naming_no_debt_is_refused_with_the_debts(debts):
    result = await call(
        "get_debt_payoff_plan", plan_id=debts.id, overrides=[{"account": "Boat", "interest_rate": 5}]
    )

    assert (
        refusal(result)
        == "No debt 'Boat' in this plan; give one of these debts by name or id: Car loan, Visa."
    )


async def test_a_budget_below_the_minimums_is_refused(debts):
    result = await call(
        "get_debt_payoff_plan", plan_id=debts.id, monthly_budget="120.00", overrides=[VISA_TERMS]
    )

    assert refusal(result) == (
        "monthly_budget 120.00 is below the minimum payments (150.00): give at least 150.00."
    )


@pytest.fixture
def card_only(live_service):
    home = hand_plan(3)
    checking = home.account("Checking", "checking", "2000.00")
    card = home.account("Visa", "creditCard", "-800.00")
    home.ids = (checking, card)
    return home


async def test_with_no_minimum_and_nothing_paid_a_budget_is_asked_for(card_only):
    result = await call("get_debt_payoff_plan", plan_id=card_only.id)

    assert refusal(result) == (
        "No minimum payment is known and nothing was paid to these debts in the last 3 complete months: "
        "give monthly_budget (what can go to debts each month) or overrides with minimum_payment."
    )


@pytest.fixture
def card_paid(card_only):
    """The card paid 90.00, 120.00 and 90.00 in the last three complete months."""
    checking, card = card_only.ids
    for back, amount in ((3, "90.00"), (2, "120.00"), (1, "90.00")):
        card_only.transfer(checking, card, day_in(month_of(-back), 15), amount)
    return card_only


async def test_with_no_minimum_the_budget_is_the_average_paid_over_three_complete_months(card_paid):
    content = ok(await call("get_debt_payoff_plan", plan_id=card_paid.id))

    assert (content["monthly_budget"], content["budget_from"]) == ("100.00", "past payments")  # 300 / 3
    assert content["debts"][0]["balance"] == "-500.00"
    assert content["plans"][0]["months_to_debt_free"] == 5  # no interest known: 5 x 100


# The same card in three currencies, written in each one's digits: paid 30,000, 30,001 and
# 30,001 smallest units in the last three complete months, owing 60,000 units today, at 12 %.
# Budget: 90,002 / 3 = 30,000.67 units → 30,001 (a cut would give 30,000.666… shown with its
# milliunits, or 30,000 with three digits). Each month at 1 %:
#  1: 60,000 + 600 = 60,600 - 30,001 = 30,599.  2: 30,599 + 305.99 → 306 = 30,905 - 30,001 = 904.
#  3: 904 + 9.04 → 9 = 913, paid off. Interest 600 + 306 + 9 = 915; paid 30,001 + 30,001 + 913.
ONE_CARD_IN = {  # currency: (format, "3 payments, opening balance", "budget, balance, interest, paid, saved")
    "yen": (YEN, "30000 30001 30001 -150002", "30001 -60000 915 60915 0"),
    "dollars": (None, "300.00 300.01 300.01 -1500.02", "300.01 -600.00 9.15 609.15 0.00"),
    "dinars": (DINARS, "30.000 30.001 30.001 -150.002", "30.001 -60.000 0.915 60.915 0.000"),
}


@pytest.fixture(params=ONE_CARD_IN)
def one_card(live_service, request):
    """The card of `ONE_CARD_IN` in one currency, with the figures expected in it."""
    currency_format, given, expected = ONE_CARD_IN[request.param]
    *payments, opening = given.split()
    home = hand_plan(3, currency_format=currency_format)
    checking = home.account("Checking", "checking", "5000000")
    card = home.account("Visa", "creditCard", opening)
    for back, amount in zip((3, 2, 1), payments, strict=True):
        home.transfer(checking, card, day_in(month_of(-back), 15), amount)
    home.ids = expected.split()
    return home


async def test_computed_figures_are_rounded_to_the_plans_own_digits(one_card):
    budget, balance, interest, paid, saved = one_card.ids
    home = one_card

    content = ok(
        await call(
            "get_debt_payoff_plan", plan_id=home.id, overrides=[{"account": "Visa", "interest_rate": "12"}]
        )
    )

    m3 = month_of(3).isoformat()
    assert content["message"] == (
        f"With {budget} a month (past payments): avalanche pays them off in {m3} (3 months; {interest} "
        f"interest); snowball pays them off in {m3} (3 months; {interest} interest)."
    )
    assert (content["monthly_budget"], content["debts"][0]["balance"]) == (budget, balance)
    for plan in content["plans"]:
        assert plan["debts"] == [
            {"name": "Visa", "payoff_month": m3, "months": 3, "interest": interest, "paid": paid}
        ]
        assert (plan["total_interest"], plan["total_paid"]) == (interest, paid)
    assert content["interest_saved_by_avalanche"] == saved


@pytest.fixture
def no_debts(live_service):
    home = hand_plan(1)
    home.account("Checking", "checking", "2000.00")
    home.account("Visa", "creditCard")
    return home


async def test_no_debt_means_nothing_to_pay_off(no_debts):
    content = ok(await call("get_debt_payoff_plan", plan_id=no_debts.id))

    assert content["message"] == "No open debt account owes money, so there is nothing to pay off."
    assert (content["debts"], content["plans"], content["monthly_budget"]) == ([], [], None)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"max_months": 11}, None),
        ({"max_months": 1201}, None),
        ({"overrides": []}, None),
        ({"overrides": [{"account": "Visa", "interest_rate": 1}] * 51}, None),
        ({"strategy": "fastest"}, None),
        (
            {"monthly_budget": "0"},
            'monthly_budget 0 is not above 0: give what can go to debts each month, like "600.00".',
        ),
        ({"monthly_budget": "12.3456"}, "monthly_budget '12.3456' has 4 decimals: give at most 3."),
        (
            {"monthly_budget": "NaN"},
            "monthly_budget 'NaN' is not a finite number: give currency units as a decimal like \"-42.50\".",
        ),
        (
            {"overrides": [{"account": "Visa", "interest_rate": "-1"}]},
            'interest_rate -1 is negative: give the yearly rate in %, like "19.9".',
        ),
        (
            {"overrides": [{"account": "Visa", "minimum_payment": "-5"}]},
            'minimum_payment -5 is negative: give it as a positive amount, like "35.00".',
        ),
    ],
)
async def test_bounds_and_decimals_are_refused_before_any_ynab_request(ynab_requests, arguments, expected):
    result = await call("get_debt_payoff_plan", plan_id=PLAN_ID, **arguments)

    assert result.is_error
    if expected is not None:
        assert refusal(result) == expected
    assert await ynab_requests() == []


async def test_a_budget_that_barely_covers_the_interest_pays_nothing_off_within_the_months_asked(debts):
    # Visa at 240 % a year: 200.00 of interest a month on 1,000.00, more than the 150.00 budget
    # leaves it once the car loan's 100.00 minimum is paid. Terms given in two overrides.
    result = await call(
        "get_debt_payoff_plan",
        plan_id=debts.id,
        monthly_budget="150.00",
        max_months=24,
        overrides=[
            {"account": "Visa", "interest_rate": "240"},
            {"account": "visa", "minimum_payment": "50.00"},
        ],
    )
    content = ok(result)

    assert content["message"] == (
        "With 150.00 a month (given): avalanche does not pay them off within 24 months; "
        "snowball does not pay them off within 24 months."
    )
    assert [(d["name"], d["interest_rate"], d["rate_from"], d["minimum_payment"], d["minimum_from"])
            for d in content["debts"]] == [
        ("Car loan", 12.0, "ynab", "100.00", "ynab"),
        ("Visa", 240.0, "override", "50.00", "override"),
    ]  # fmt: skip
    assert [plan["months_to_debt_free"] for plan in content["plans"]] == [None, None]
    assert (
        "Some debts are not paid off within 24 months: the budget barely covers the interest."
        in content["notes"]
    )
