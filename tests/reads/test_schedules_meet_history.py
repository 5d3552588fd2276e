"""find_recurring_charges and forecast_balance on a household whose schedules are named
otherwise than its bank labels (docs/conventions.md#heuristics, the matcher of schedules to
history): each flow counted once, and marked scheduled, whatever the bank calls it."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import day_in, hand_plan, month_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def relabelled(live_service):
    """Checking 5,000.00, four full months of history (months -4 to -1), schedules from next month:

    - CB NETFLIX.COM -13.49 on the 14th; scheduled as Netflix -13.49 on the 14th.
    - VIR SEPA ACME SAS SALAIRE +61,040.00 on the 25th; scheduled as ACME SAS +3,000.00 on the
      25th (out of date: a twentieth of the pay).
    - FREENOW (taxis) -19.99 on the 5th; FREE (the phone) scheduled -19.99 on the 5th: a shared
      beginning of letters, two merchants.
    """
    home = hand_plan(4)
    checking = home.account("Checking", "checking", "5000.00")
    for back in (4, 3, 2, 1):
        month = month_of(-back)
        home.spend(checking, day_in(month, 14), "-13.49", "CB NETFLIX.COM")
        home.spend(checking, day_in(month, 25), "61040.00", "VIR SEPA ACME SAS SALAIRE")
        home.spend(checking, day_in(month, 5), "-19.99", "FREENOW")
    following = month_of(1)
    home.schedule(checking, day_in(following, 14), "monthly", "-13.49", "Netflix")
    home.schedule(checking, day_in(following, 25), "monthly", "3000.00", "ACME SAS")
    home.schedule(checking, day_in(following, 5), "monthly", "-19.99", "FREE")
    with read_only(home.plan):
        yield home


async def test_recurring_charges_under_a_longer_bank_label_are_marked_scheduled(relabelled):
    content = ok(await call("find_recurring_charges", plan_id=relabelled.id, include_income=True))

    assert [(c["payee"], c["monthly_amount"], c["day"], c["scheduled"]) for c in content["charges"]] == [
        ("FREENOW", "-19.99", 5, False),
        ("NETFLIX.COM", "-13.49", 14, True),
        ("ACME SAS SALAIRE", "61040.00", 25, True),
    ]


async def test_the_forecast_counts_each_flow_once_and_names_the_out_of_date_salary_schedule(relabelled):
    # Next month: in, the pay once at what history shows (61,040.00; the schedule at 3,000.00 is
    # out of date, left out and named); out, Netflix's schedule once, FREE's schedule and
    # FREENOW's history. The pay and the charges recur: nothing left for the variable average.
    content = ok(await call("forecast_balance", plan_id=relabelled.id, until="next"))

    assert content["assumptions"]["recurring"] == [
        {"payee": "FREENOW", "amount": "-19.99", "day": 5, "months_seen": 4},
        {"payee": "ACME SAS SALAIRE", "amount": "61040.00", "day": 25, "months_seen": 4},
    ]
    assert sorted((s["payee"], s["amount"]) for s in content["assumptions"]["scheduled"]) == [
        ("FREE", "-19.99"),
        ("Netflix", "-13.49"),
    ]
    assert content["assumptions"]["variable_monthly"] == "0.00"
    following = content["months"][-1]
    assert (following["month"], following["inflows"], following["outflows"]) == (
        month_of(1).isoformat(),
        "61040.00",
        "-53.47",
    )
    assert (
        "ACME SAS is scheduled at 3000.00 (monthly) but came to 61040.00 a month as ACME SAS SALAIRE in "
        "the last 4 full months: the schedule is left out and the history counted; ask the person whether "
        "the schedule is out of date."
    ) in content["notes"]
