"""The computed reads' pure rules: recurring (docs/conventions.md#heuristics), spreading in whole cents,
interest and payoff order, runway, savings rate and age-of-money trend."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.age_of_money import trend
from avenir_mcp.tools.logic.debts import Debt, in_force, monthly_interest, order, simulate
from avenir_mcp.tools.logic.forecast import spread
from avenir_mcp.tools.logic.recurring import Charge, all_within_tolerance, find_recurring, median_amount
from avenir_mcp.tools.logic.runway import runway_tenths
from avenir_mcp.tools.logic.savings import rate_tenths
from avenir_mcp.ynab_client.snapshot import Account

MONTHS = [date(2026, m, 1) for m in (5, 6, 7, 8)]


def charges(merchant: str, amounts: list[int | None], day: int = 14) -> list[Charge]:
    return [
        Charge(merchant, month.replace(day=day), amount)
        for month, amount in zip(MONTHS, amounts, strict=True)
        if amount is not None
    ]


def test_three_of_four_months_within_20_percent_recur_at_the_median_on_the_median_day():
    seen = charges("NETFLIX", [-15_000, -16_000, None, -14_000])

    (found,) = find_recurring(seen, MONTHS, 2)

    assert (found.merchant, found.amount, found.day, found.months_seen) == ("NETFLIX", -15_000, 14, 3)


def test_a_merchant_charged_several_times_a_month_comes_on_its_median_day_not_the_first():
    # 5.00 on the 1st, 10th, 20th and 28th of each month: each month's median day (the lower
    # middle) is the 10th. In the last month the charges came on the 3rd, 4th and 27th: its
    # median is the 4th, and the median of 10, 10, 10, 4 (the lower middle) is still the 10th.
    seen = [
        Charge("BAKERY", month.replace(day=day), -5_000) for month in MONTHS[:3] for day in (1, 10, 20, 28)
    ] + [Charge("BAKERY", MONTHS[3].replace(day=day), -6_000) for day in (3, 4, 27)]

    (found,) = find_recurring(seen, MONTHS, 2)

    assert (found.amount, found.day) == (-20_000, 10)  # the median of -20, -20, -20, -18


def test_two_months_or_one_month_off_by_more_than_20_percent_do_not_recur():
    assert find_recurring(charges("SHOP", [-20_000, -20_000, None, None]), MONTHS, 2) == []
    assert find_recurring(charges("GYM", [-30_000, -30_000, -30_000, -40_000]), MONTHS, 2) == []


def test_exactly_20_percent_off_the_median_still_recurs():
    assert all_within_tolerance([-100_000, -120_000, -100_000])
    assert not all_within_tolerance([-100_000, -120_010, -100_000])


def test_an_even_count_takes_the_mean_of_the_middle_two_rounded_once_to_the_cent():
    assert median_amount([-50_000, -60_000, -55_000, -65_000], 2) == -57_500
    assert median_amount([-10_000, -10_005, -10_010, -10_020], 2) == -10_010  # -10.0075 → -10.01


def test_each_direction_is_its_own_pattern_and_charges_come_before_income():
    seen = charges("SHOP", [-10_000, -10_000, -10_000, None]) + charges("SHOP", [5_000, 5_000, 5_000, 5_000])

    found = find_recurring(seen, MONTHS, 2)

    assert [(r.merchant, r.amount) for r in found] == [("SHOP", -10_000), ("SHOP", 5_000)]


def test_a_month_outside_those_looked_at_is_not_counted():
    seen = [*charges("GYM", [-30_000, -30_000, None, None]), Charge("GYM", date(2026, 9, 3), -30_000)]

    assert find_recurring(seen, MONTHS, 2) == []


def test_spreading_keeps_every_cent_and_gives_leftovers_to_the_first_days():
    days = spread(-100_000, date(2026, 1, 1), date(2026, 1, 3), 2)

    assert [amount for _day, amount in days] == [-33_340, -33_330, -33_330]
    assert spread(0, date(2026, 1, 1), date(2026, 1, 3), 2) == []
    assert spread(-100_000, date(2026, 1, 4), date(2026, 1, 3), 2) == []


@given(st.integers(-(10**9), 10**9), st.integers(1, 31))
def test_spread_always_adds_up_to_the_amount_in_cents(amount, days):
    cents = amount // 10 * 10
    first = date(2026, 1, 1)
    spread_days = spread(cents, first, date(2026, 1, days), 2)
    assert sum(value for _day, value in spread_days) == cents
    assert all(value % 10 == 0 for _day, value in spread_days)


def test_interest_is_a_twelfth_of_the_yearly_rate_rounded_once_to_the_cent():
    assert monthly_interest(1_000_000, 12_000, 2) == 10_000  # 1,000.00 at 12 %: 10.00
    assert monthly_interest(411_060, 12_000, 2) == 4_110  # 4.1106 → 4.11
    assert monthly_interest(232_400, 24_000, 2) == 4_650  # 4.648 → 4.65
    assert monthly_interest(500_000, None, 2) == 0


def test_interest_is_rounded_to_the_plans_own_unit_with_none_or_three_decimal_digits():
    # Yen (no decimals): 30,599 at 12 % is 305.99 → 306; at 0.01 % a year 600,000 is 5 and
    # 660,000 is 5.5 → 6 (away from zero); 6 yen at 10 % is 0.05 → 0.
    assert monthly_interest(30_599_000, 12_000, 0) == 306_000
    assert monthly_interest(600_000_000, 10, 0) == 5_000
    assert monthly_interest(660_000_000, 10, 0) == 6_000
    assert monthly_interest(6_000, 10_000, 0) == 0
    # Dinars (three decimals): 30.599 at 12 % is 0.30599 → 0.306; 0.904 is 0.00904 → 0.009.
    assert monthly_interest(30_599, 12_000, 3) == 306
    assert monthly_interest(904, 12_000, 3) == 9


def test_the_term_in_force_is_the_latest_one_dated_on_or_before_today():
    values = ((date(2026, 1, 1), 100), (date(2026, 6, 1), 200), (date(2027, 1, 1), 300))
    assert in_force(values, date(2026, 7, 1)) == 200
    assert in_force(values, date(2025, 7, 1)) is None


def debt(name: str, owed: int, rate: int, minimum: int) -> Debt:
    account = Account(
        name, name, "autoLoan", False, False, None, -owed, -owed, 0, None, False, False, None, (), (), ()
    )
    return Debt(account, owed, rate, "ynab", minimum, "ynab", 0)


CAR = debt("Car", 600_000, 12_000, 100_000)
VISA = debt("Visa", 1_000_000, 24_000, 50_000)


def test_avalanche_pays_the_highest_rate_first_and_snowball_the_smallest_balance():
    assert [d.account.name for d in order([CAR, VISA], "avalanche")] == ["Visa", "Car"]
    assert [d.account.name for d in order([CAR, VISA], "snowball")] == ["Car", "Visa"]


def test_snowball_month_by_month():
    # Car 600.00 at 1 %/month, min 100; Visa 1,000.00 at 2 %/month, min 50; 500.00 a month.
    # 1: Car 606 - 100 - 350 = 156; Visa 1020 - 50 = 970.
    # 2: Car 157.56 - 100 - 57.56 = 0 (paid, 292.44 left); Visa 989.40 - 50 - 292.44 = 646.96.
    # 3: Visa 659.90 - 500 = 159.90.  4: Visa 163.10 paid.
    plan = simulate([CAR, VISA], 500_000, "snowball", 600, 2)

    assert [(o.debt.account.name, o.months, o.interest) for o in plan.debts] == [
        ("Car", 2, 7_560),
        ("Visa", 4, 55_540),
    ]
    assert (plan.months, plan.total_interest, plan.total_paid) == (4, 63_100, 1_663_100)


def test_a_budget_that_does_not_cover_the_interest_never_pays_off_within_the_limit():
    plan = simulate([debt("Big", 10_000_000, 24_000, 100_000)], 100_000, "avalanche", 12, 2)

    assert plan.months is None
    assert plan.debts[0].months is None


@pytest.mark.parametrize(
    ("liquid", "monthly", "tenths"),
    [
        (6_350_000, -1_550_000, 41),
        (6_350_000, -1_250_000, 51),
        (0, -100_000, 0),
        (-5, -100_000, 0),
        (100, 0, None),
    ],
)
def test_runway_in_tenths_of_a_month(liquid, monthly, tenths):
    assert runway_tenths(liquid, monthly) == tenths


def test_savings_rate_in_tenths_of_a_percent_and_none_without_income():
    assert rate_tenths(1_850_000, 3_000_000) == 617  # 61.666… → 61.7
    assert rate_tenths(-500_000, 2_000_000) == -250
    assert rate_tenths(100, 0) is None


@pytest.mark.parametrize(
    ("change", "expected"), [(3, "up"), (2, "steady"), (-2, "steady"), (-3, "down"), (None, None)]
)
def test_age_of_money_trend_moves_only_beyond_two_days(change, expected):
    assert trend(change) == expected


def test_the_recurring_tool_tells_the_agent_the_thresholds_the_rule_uses():
    from avenir_mcp.mcp_surface.registry import spec_of
    from avenir_mcp.tools.logic.recurring import LOOKBACK_MONTHS, MIN_MONTHS_SEEN, TOLERANCE_PERCENT
    from avenir_mcp.tools.reads.recurring import find_recurring_charges

    description = " ".join(spec_of(find_recurring_charges).description.split())

    said = f"in at least {MIN_MONTHS_SEEN} of the last {LOOKBACK_MONTHS} full months"
    assert said in description
    assert f"within {TOLERANCE_PERCENT} % of their median" in description
