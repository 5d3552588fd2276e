"""The matcher of schedules to recurring flows (docs/conventions.md#heuristics), on its own and
in the forecast: a flow a schedule is gets projected once, whatever the bank calls it."""

from __future__ import annotations

from datetime import date

import pytest

from avenir_mcp.tools.logic.forecast import project
from avenir_mcp.tools.logic.recurring import Recurring
from avenir_mcp.tools.logic.schedule_match import (
    NameMatch,
    ScheduledFlow,
    amounts_close,
    match_schedules,
    same_flow,
    same_merchant,
)
from tests.logic.plan_rows import account, payee, scheduled, snapshot, transaction

TODAY = date(2026, 3, 20)
HISTORY = ["2025-11", "2025-12", "2026-01", "2026-02"]  # the 4 full months before TODAY


def flow(merchant: str, amount: int, day: int = 14, frequency: str = "monthly", **fields) -> ScheduledFlow:
    return ScheduledFlow(
        scheduled_id=fields.pop("scheduled_id", f"s-{merchant}"),
        merchant=merchant,
        amount=amount,
        frequency=frequency,
        day=day,
        transfer_account_id=fields.pop("transfer_account_id", None),
    )


def recurring(merchant: str, amount: int, day: int = 14) -> Recurring:
    return Recurring(merchant=merchant, amount=amount, day=day, months_seen=4, category_id=None)


@pytest.mark.parametrize(
    ("scheduled_as", "paid_as", "expected"),
    [
        ("NETFLIX", "NETFLIX.COM", NameMatch.CONTAINED),
        ("ACME SAS", "ACME SAS SALAIRE", NameMatch.CONTAINED),
        ("FREE MOBILE", "FREE MOBILE ABONNEMENT", NameMatch.CONTAINED),
        ("AMAZON PRIME", "AMAZON.FR", NameMatch.STEM),
        ("EDF", "EDF", NameMatch.SAME),
    ],
)
def test_payees_match_by_whole_words_one_within_the_other_or_a_shared_first_word(
    scheduled_as, paid_as, expected
):
    assert same_merchant(scheduled_as, paid_as) == expected
    assert same_merchant(paid_as, scheduled_as) == expected


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("AMAZON", "AMAZONIA"),  # a shared beginning of letters is not a word
        ("FREE", "FREENOW"),
        ("SFR BOX", "SFR MOBILE"),  # a first word under 4 characters is no stem
        ("NETFLIX", "SPOTIFY"),
        ("SAS ACME", "ACME SAS"),  # the words in another order
        ("", "ACME"),
    ],
)
def test_payees_sharing_only_a_prefix_or_short_word_do_not_match(one, other):
    assert same_merchant(one, other) is None


def test_amounts_within_20_percent_of_the_flow_match_whatever_the_day():
    assert same_flow(flow("NETFLIX", -12_000, day=1), recurring("NETFLIX.COM", -10_000, day=15))
    assert not same_flow(flow("NETFLIX", -12_001, day=1), recurring("NETFLIX.COM", -10_000, day=15))
    assert same_flow(flow("NETFLIX", -8_000, day=1), recurring("NETFLIX.COM", -10_000, day=15))
    assert not same_flow(flow("NETFLIX", -7_999, day=1), recurring("NETFLIX.COM", -10_000, day=15))


def test_days_within_3_match_whatever_the_amount_even_across_the_months_end():
    salary = recurring("ACME SAS SALAIRE", 61_040_000, day=25)
    assert same_flow(flow("ACME SAS", 3_000_000, day=25), salary)  # stale at a twentieth
    assert same_flow(flow("ACME SAS", 3_000_000, day=28), salary)
    assert not same_flow(flow("ACME SAS", 3_000_000, day=29), salary)
    month_end = recurring("ACME SAS SALAIRE", 61_040_000, day=30)
    assert same_flow(flow("ACME SAS", 3_000_000, day=2), month_end)
    assert not same_flow(flow("ACME SAS", 3_000_000, day=3), month_end)


def test_opposite_directions_never_match():
    assert not same_flow(
        flow("ACME SAS", -61_040_000, day=25), recurring("ACME SAS SALAIRE", 61_040_000, day=25)
    )
    assert not same_flow(flow("NETFLIX", 13_490), recurring("NETFLIX.COM", -13_490))


def test_a_schedule_more_often_than_monthly_is_compared_by_its_amount_a_month():
    # 52 x -100.00 a year is -433.33 a month: within 20 % of -450.00, not of -600.00.
    assert same_flow(flow("CLEANER", -100_000, frequency="weekly", day=1), recurring("CLEANER", -450_000, 20))
    assert not same_flow(
        flow("CLEANER", -100_000, frequency="weekly", day=20), recurring("CLEANER", -600_000, 20)
    )


def test_a_schedule_rarer_than_monthly_or_a_transfer_is_never_a_recurring_flow():
    bill = recurring("EDF", -80_000, day=5)
    assert not same_flow(flow("EDF", -80_000, day=5, frequency="yearly"), bill)
    assert not same_flow(flow("EDF", -80_000, day=5, frequency="never"), bill)
    assert not same_flow(flow("EDF", -80_000, day=5, transfer_account_id="savings"), bill)
    # Nor is its amount a month ever close to one: a yearly -80.00 is not -80.00 a month.
    assert not amounts_close(flow("EDF", -80_000, day=5, frequency="yearly"), bill)
    assert amounts_close(flow("EDF", -80_000, day=5), bill)


def test_each_schedule_is_one_flow_the_closest_and_the_order_given_does_not_matter():
    # EDF's schedule is EDF by name and amount; EDF GAZ, the same day, stays a flow of its own.
    electricity, gas = recurring("EDF", -80_000, day=5), recurring("EDF GAZ", -40_000, day=5)
    schedule = flow("EDF", -80_000, day=5)

    assert match_schedules([electricity, gas], [schedule]) == {electricity: schedule}
    assert match_schedules([gas, electricity], [schedule]) == {electricity: schedule}


def _monthly(merchant_payee: str, account_id: str, day: int, amount: int) -> list[dict]:
    return [
        transaction(
            f"t-{merchant_payee}-{month}", account_id, f"{month}-{day:02d}", amount, payee_id=merchant_payee
        )
        for month in HISTORY
    ]


def _project(plan, *accounts: str, variable_monthly: int | None = 0):
    return project(
        plan,
        today=TODAY,
        until=date(2026, 4, 1),
        account_ids=list(accounts),
        decimal_digits=2,
        variable_monthly=variable_monthly,
    )


def test_netflix_paid_as_netflix_com_and_scheduled_as_netflix_is_projected_once_a_month():
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000), account("visa", "Visa", type="creditCard")],
        payees=[payee("p-bank", "CB NETFLIX.COM 12/01"), payee("p-sched", "Netflix")],
        transactions=_monthly("p-bank", "visa", 14, -13_490),
        scheduled_transactions=[scheduled("s-netflix", "visa", "2026-04-14", -13_490, payee_id="p-sched")],
    )

    forecast = _project(plan, "checking", "visa")

    assert forecast.recurring == ()
    assert [effect.scheduled.id for effect in forecast.scheduled] == ["s-netflix"]
    _march, april = forecast.months
    assert (april.inflows, april.outflows) == (0, -13_490)
    assert forecast.schedules_off_history == ()


def test_a_salary_scheduled_at_a_twentieth_comes_once_a_month_at_the_pay_history_shows():
    # The schedule (+3,000.00 on the 25th) is the salary by its payee and day, but 20 times
    # under every pay of the last 4 months (+61,040.00): out of date, so the pay is counted
    # once a month at what history shows and the schedule is named, not counted besides.
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000)],
        payees=[payee("p-bank", "VIR SEPA ACME SAS SALAIRE"), payee("p-sched", "ACME SAS")],
        transactions=_monthly("p-bank", "checking", 25, 61_040_000),
        scheduled_transactions=[scheduled("s-pay", "checking", "2026-03-25", 3_000_000, payee_id="p-sched")],
    )

    forecast = _project(plan, "checking", variable_monthly=None)

    assert [(item.merchant, item.amount, item.day) for item in forecast.recurring] == [
        ("ACME SAS SALAIRE", 61_040_000, 25)
    ]
    assert forecast.scheduled == ()
    assert forecast.variable_monthly == 0  # the pay's history is not variable income either
    march, april = forecast.months
    assert (march.inflows, april.inflows) == (61_040_000, 61_040_000)
    [off] = forecast.schedules_off_history
    assert (off.scheduled.id, off.recurring.merchant) == ("s-pay", "ACME SAS SALAIRE")


def test_a_schedule_within_20_percent_of_its_flow_wins_on_its_own_day_and_amount():
    # Rent scheduled at 1,000.00 on the 3rd; the bank took 950.00 on the 1st: the schedule counts.
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000)],
        payees=[payee("p-bank", "PRLV SEPA FONCIA LOYER"), payee("p-sched", "Foncia")],
        transactions=_monthly("p-bank", "checking", 1, -950_000),
        scheduled_transactions=[
            scheduled("s-rent", "checking", "2026-04-03", -1_000_000, payee_id="p-sched")
        ],
    )

    forecast = _project(plan, "checking")

    assert forecast.recurring == ()
    assert forecast.schedules_off_history == ()
    _march, april = forecast.months
    assert (april.outflows, april.lowest_date) == (-1_000_000, date(2026, 4, 3))


def test_a_merchant_sharing_a_prefix_with_a_schedule_and_an_opposite_flow_are_both_still_projected():
    # FREE (the phone) is scheduled; FREENOW (taxis) costs the same on the same day. ACME SAS
    # pays a salary, and a fee to ACME SAS is scheduled the same day: money out, not the pay.
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000)],
        payees=[
            payee("p-free", "FREE"),
            payee("p-taxi", "FREENOW"),
            payee("p-pay", "ACME SAS"),
        ],
        transactions=[
            *_monthly("p-taxi", "checking", 5, -19_990),
            *_monthly("p-pay", "checking", 25, 2_000_000),
        ],
        scheduled_transactions=[
            scheduled("s-free", "checking", "2026-04-05", -19_990, payee_id="p-free"),
            scheduled("s-fee", "checking", "2026-04-25", -50_000, payee_id="p-pay"),
        ],
    )

    forecast = _project(plan, "checking")

    assert [(item.merchant, item.amount) for item in forecast.recurring] == [
        ("FREENOW", -19_990),
        ("ACME SAS", 2_000_000),
    ]
    _march, april = forecast.months
    assert (april.inflows, april.outflows) == (2_000_000, -19_990 - 19_990 - 50_000)


def test_a_schedule_that_does_not_fall_in_the_forecast_leaves_the_flow_projected():
    # Netflix scheduled from June only: March and April are still paid as history shows.
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000)],
        payees=[payee("p-bank", "NETFLIX.COM"), payee("p-sched", "Netflix")],
        transactions=_monthly("p-bank", "checking", 14, -13_490),
        scheduled_transactions=[
            scheduled("s-netflix", "checking", "2026-06-14", -13_490, payee_id="p-sched")
        ],
    )

    forecast = _project(plan, "checking")

    assert [item.merchant for item in forecast.recurring] == ["NETFLIX.COM"]
    assert forecast.scheduled == ()
    _march, april = forecast.months
    assert april.outflows == -13_490


def test_a_frequent_merchant_comes_on_its_median_day_not_on_the_first():
    # The bakery takes 5.00 on the 1st, 10th, 20th and 28th of every month: 20.00 a month, on
    # the 10th (each month's median day, the lower middle), so April's balance drops on the
    # 10th, not on the 1st.
    plan = snapshot(
        accounts=[account("checking", balance=1_000_000)],
        payees=[payee("p-bakery", "BAKERY")],
        transactions=[
            transaction(f"t-{month}-{day}", "checking", f"{month}-{day:02d}", -5_000, payee_id="p-bakery")
            for month in HISTORY
            for day in (1, 10, 20, 28)
        ],
    )

    forecast = _project(plan, "checking")

    [bakery] = forecast.recurring
    assert (bakery.amount, bakery.day) == (-20_000, 10)
    _march, april = forecast.months
    assert (april.lowest, april.lowest_date) == (980_000, date(2026, 4, 10))


def test_a_scheduled_transfer_into_the_account_is_not_counted_again_in_its_average():
    # 250.00 a month from Checking to the car loan, scheduled, and seen each month on the loan
    # as a transfer from Checking (whose payee is "Transfer : Checking", not the schedule's
    # "Transfer : Car Loan"): the loan's forecast moves by the schedule alone, once.
    def transfers(account_id: str, other: str, amount: int) -> list[dict]:
        return [
            transaction(
                f"t-{account_id}-{month}", account_id, f"{month}-05", amount, transfer_account_id=other
            )
            for month in HISTORY
        ]

    plan = snapshot(
        accounts=[account("checking", balance=1_000_000), account("loan", "Car Loan", type="autoLoan")],
        payees=[payee("p-to-loan", "Transfer : Car Loan", transfer_account_id="loan")],
        transactions=transfers("loan", "checking", 250_000) + transfers("checking", "loan", -250_000),
        scheduled_transactions=[
            scheduled(
                "s-loan", "checking", "2026-04-05", -250_000, payee_id="p-to-loan", transfer_account_id="loan"
            )
        ],
    )

    loan = _project(plan, "loan", variable_monthly=None)
    checking = _project(plan, "checking", variable_monthly=None)

    assert (loan.variable_monthly, checking.variable_monthly) == (0, 0)
    assert [(month.inflows, month.outflows) for month in loan.months] == [(0, 0), (250_000, 0)]
    assert [(month.inflows, month.outflows) for month in checking.months] == [(0, 0), (0, -250_000)]


def test_money_that_usually_comes_in_is_projected_less_what_already_came_this_month():
    # A side income of 300.00 a month on average; 100.00 came on the 5th: 200.00 is left to
    # come over the days after today, and nothing once more than the average has come.
    def plan_with(received: int):
        return snapshot(
            accounts=[account("checking", balance=1_000_000)],
            payees=[payee("p-gig", "Odd jobs")],
            transactions=[transaction("t-gig", "checking", "2026-03-05", received, payee_id="p-gig")],
        )

    march, _april = _project(plan_with(100_000), "checking", variable_monthly=300_000).months
    assert (march.inflows, march.outflows) == (200_000, 0)
    march, _april = _project(plan_with(400_000), "checking", variable_monthly=300_000).months
    assert (march.inflows, march.outflows) == (0, 0)
