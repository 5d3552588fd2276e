"""forecast_balance on plans made by hand, each answer worked out here from the plan's story."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok, refusal
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import day_in, days_after, hand_plan, last_day, month_of, today

pytestmark = pytest.mark.anyio
DEPENDS = "this depends on the assumptions returned."


@pytest.fixture(scope="module")
def weekly_rent(live_service):
    """Checking 1,000.00; 400.00 goes out every week from 5 days from now; no history."""
    home = hand_plan(1)
    checking = home.account("Checking", "checking", "1000.00")
    home.schedule(checking, days_after(5), "weekly", "-400.00", "LANDLORD")
    with read_only(home.plan):
        yield home


@pytest.fixture(scope="module")
def variable_spender(live_service):
    """Checking 10,000.00; the corner shop took 300, 600 and 900 in the last three full
    months (too uneven to recur) and 100 today."""
    home = hand_plan(4)
    checking = home.account("Checking", "checking", "10000.00")
    for back, amount in ((3, "-300.00"), (2, "-600.00"), (1, "-900.00")):
        home.spend(checking, day_in(month_of(-back), 10), amount, "CORNER SHOP")
    home.spend(checking, today(), "-100.00", "CORNER SHOP")
    with read_only(home.plan):
        yield home


@pytest.fixture
def paid_home(live_service):
    """Checking 1,000.00, and pay of 2,000.00 scheduled monthly from 3 days from now."""
    home = hand_plan(1)
    checking = home.account("Checking", "checking", "1000.00")
    home.schedule(checking, days_after(3), "monthly", "2000.00", "ACME PAYROLL")
    return home


@pytest.fixture
def paid_by_history(live_service):
    """Checking 1,000.00; ACME PAYROLL paid 2,000.00 on the 27th of each of the last 4 full
    months, with no schedule: recurring income found in the history."""
    home = hand_plan(4)
    checking = home.account("Checking", "checking", "1000.00")
    for back in (4, 3, 2, 1):
        home.spend(checking, day_in(month_of(-back), 27), "2000.00", "ACME PAYROLL")
    return home


async def test_the_balance_first_goes_below_zero_on_the_third_weekly_rent(weekly_rent):
    # 1000 - 400 (day +5) = 600, - 400 (day +12) = 200, - 400 (day +19) = -200.
    crossing = days_after(19)

    result = await call("forecast_balance", plan_id=weekly_rent.id)
    content = ok(result)

    expected = (
        f"The balance first goes below zero on {crossing.isoformat()} (-200.00), in "
        f"{crossing.replace(day=1).isoformat()}; {DEPENDS}"
    )
    assert content["message"] == expected
    assert result.content[0].text.splitlines()[0] == expected
    assert content["first_shortfall"] == crossing.replace(day=1).isoformat()
    assert content["start_balance"] == "1000.00"
    assert content["accounts"] == ["Checking"]
    assert [(s["payee"], s["amount"], s["dates"][:3]) for s in content["assumptions"]["scheduled"]] == [
        ("LANDLORD", "-400.00", [days_after(n).isoformat() for n in (5, 12, 19)])
    ]
    assert content["months"][0]["month"] == month_of(0).isoformat()
    assert content["months"][-1]["month"] == month_of(3).isoformat()


async def test_a_one_off_inflow_moves_the_day_it_goes_below_zero(weekly_rent):
    # 1000 - 400 + 300 (day +10) - 400 - 400 = 100 on day +19; -300 on day +26.
    crossing = days_after(26)
    one_off = {"date": days_after(10).isoformat(), "amount": "300.00", "label": "tax refund"}

    content = ok(await call("forecast_balance", plan_id=weekly_rent.id, one_offs=[one_off]))

    assert content["message"].startswith(
        f"The balance first goes below zero on {crossing.isoformat()} (-300.00)"
    )
    assert content["assumptions"]["one_offs"] == [one_off]


async def test_it_says_when_the_balance_stays_above_zero_and_how_low_it_gets(variable_spender):
    # 8,100.00 today, spending 500.00 over the rest of this month and 600.00 over next month,
    # day by day: the lowest balance is on next month's last day.
    lowest = "7000.00" if today() < last_day(month_of(0)) else "7500.00"

    content = ok(await call("forecast_balance", plan_id=variable_spender.id, until="next"))

    assert content["message"] == (
        f"The balance stays above zero through {month_of(1).isoformat()} (lowest {lowest} on "
        f"{last_day(month_of(1)).isoformat()}); {DEPENDS}"
    )
    assert content["first_shortfall"] is None
    assert content["months"][-1]["lowest"] == lowest


async def test_variable_spending_is_the_three_month_average_less_what_went_out_this_month(variable_spender):
    # (300 + 600 + 900) / 3 = 600 a month; 100 already went out today, so 500 is spread over
    # the days left this month (none when today is its last day), 600 over next month.
    left_this_month = "-500.00" if today() < last_day(month_of(0)) else "0.00"

    content = ok(await call("forecast_balance", plan_id=variable_spender.id, until="next"))

    assert content["assumptions"]["variable_monthly"] == "-600.00"
    assert content["assumptions"]["recurring"] == []
    assert content["start_balance"] == "8100.00"
    this, following = content["months"]
    assert (this["start"], this["outflows"], this["inflows"]) == ("8100.00", left_this_month, "0.00")
    assert this["end"] == ("7600.00" if left_this_month == "-500.00" else "8100.00")
    assert (following["start"], following["outflows"], following["end"]) == (
        this["end"],
        "-600.00",
        ("7000.00" if left_this_month == "-500.00" else "7500.00"),
    )


async def test_variable_monthly_given_replaces_the_average(variable_spender):
    # 1,200.00 a month; this month 1,200 - 100 already spent = 1,100 over the days left.
    left_this_month = "-1100.00" if today() < last_day(month_of(0)) else "0.00"

    content = ok(
        await call("forecast_balance", plan_id=variable_spender.id, until="next", variable_monthly="-1200.00")
    )

    assert content["assumptions"]["variable_monthly"] == "-1200.00"
    assert [month["outflows"] for month in content["months"]] == [left_this_month, "-1200.00"]
    assert "Variable spending is the amount given, spread evenly over each month's days." in content["notes"]


async def test_monthly_income_replaces_scheduled_pay(paid_home):
    # Pay scheduled 2,000.00 from day +3; with monthly_income 500.00 that pay is left out and
    # 500.00 comes on the 1st (no recurring income to take the day from): next month only.
    plain = ok(await call("forecast_balance", plan_id=paid_home.id, until="next"))
    given = ok(await call("forecast_balance", plan_id=paid_home.id, until="next", monthly_income="500.00"))

    assert [s["payee"] for s in plain["assumptions"]["scheduled"]] == ["ACME PAYROLL"]
    assert given["assumptions"]["scheduled"] == []
    assert given["assumptions"]["monthly_income"] == "500.00"
    assert [month["inflows"] for month in given["months"]] == ["0.00", "500.00"]
    assert given["months"][-1]["end"] == "1500.00"


async def test_monthly_income_replaces_recurring_pay_and_the_pay_stays_out_of_the_average(paid_by_history):
    # Start 1,000 + 4 x 2,000 = 9,000. Found: ACME PAYROLL +2,000 on the 27th, nothing else, so
    # the variable average is 0. With monthly_income 500.00 the pay comes as 500.00 on the 27th.
    plain = ok(await call("forecast_balance", plan_id=paid_by_history.id, until="next"))
    given = ok(await call("forecast_balance", plan_id=paid_by_history.id, until="next", monthly_income="500"))

    assert plain["assumptions"]["recurring"] == [
        {"payee": "ACME PAYROLL", "amount": "2000.00", "day": 27, "months_seen": 4}
    ]
    assert plain["assumptions"]["variable_monthly"] == given["assumptions"]["variable_monthly"] == "0.00"
    assert plain["months"][-1]["inflows"] == "2000.00"
    assert given["assumptions"]["recurring"] == []
    assert given["months"][-1]["inflows"] == "500.00"
    assert (
        "Income is the monthly_income given, on day 27 of each month, instead of the recurring and "
        "scheduled income." in given["notes"]
    )


async def test_an_unknown_account_is_refused_after_the_plan_is_read(weekly_rent):
    result = await call("forecast_balance", plan_id=weekly_rent.id, account_ids=["nope"])

    assert refusal(result) == "No account 'nope' in this plan; list_accounts gives the valid ids."


def _bounds() -> list[tuple[dict, str]]:
    current, latest, yesterday = month_of(0), month_of(24), days_after(-1)
    span = f"give a month from {current.isoformat()} to {latest.isoformat()}"
    return [
        (
            {"until": month_of(-1).isoformat()[:7]},
            f"until {month_of(-1).isoformat()} is in the past: {span}.",
        ),
        (
            {"until": month_of(25).isoformat()[:7]},
            f"until {month_of(25).isoformat()} is more than 24 months ahead: {span}.",
        ),
        (
            {"until": "sept"},
            "Month 'sept' is not understood: give current, next, YYYY-MM or YYYY-MM-01 (e.g. 2026-09).",
        ),
        (
            {"variable_monthly": "50"},
            "variable_monthly 50 is above zero: give variable spending a month as a negative amount or 0, "
            'like "-1200.00".',
        ),
        ({"monthly_income": "12.3456"}, "monthly_income '12.3456' has 4 decimals: give at most 3."),
        (
            {"monthly_income": "1e3"},
            "monthly_income '1e3' has an exponent (write the number out): give currency units as a decimal "
            'like "-42.50".',
        ),
        (
            {"one_offs": [{"date": yesterday.isoformat(), "amount": "-10", "label": "late"}]},
            f"One-off date {yesterday.isoformat()} is outside the forecast: give a date from "
            f"{today().isoformat()} to {last_day(month_of(3)).isoformat()}.",
        ),
        (
            {"one_offs": [{"date": "tomorrow", "amount": "-10", "label": "x"}]},
            "One-off date 'tomorrow' is not a date: give YYYY-MM-DD, e.g. 2026-09-15.",
        ),
        (
            {"one_offs": [{"date": today().isoformat(), "amount": "-10", "label": "pay\u202eme"}]},
            "label contains U+202E (RIGHT-TO-LEFT OVERRIDE), a control or invisible character: give the text "
            "on one line with visible characters only.",
        ),
        (
            {"one_offs": [{"date": today().isoformat(), "amount": "-10.0001", "label": "x"}]},
            "One-off amount '-10.0001' has 4 decimals: give at most 3.",
        ),
    ]


@pytest.mark.parametrize("case", range(10))
async def test_bad_arguments_are_refused_before_any_ynab_request(ynab_requests, case):
    arguments, expected = _bounds()[case]

    result = await call("forecast_balance", plan_id="de000000-0000-4000-8000-000000000001", **arguments)

    assert refusal(result) == expected
    assert await ynab_requests() == []


async def test_more_than_50_one_offs_are_refused_before_any_ynab_request(ynab_requests):
    one_offs = [{"date": today().isoformat(), "amount": "-1", "label": "x"}] * 51

    result = await call("forecast_balance", plan_id="de000000-0000-4000-8000-000000000001", one_offs=one_offs)

    assert result.is_error
    assert await ynab_requests() == []
