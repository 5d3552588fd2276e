"""find_recurring_charges on a hand-made history, the recurring ones picked out by hand here."""

from __future__ import annotations

import pytest

from tests.helpers.reads import agent, call
from tests.helpers.results import ok
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import day_in, days_after, hand_plan, month_of, today

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def bills(live_service):
    """Four full months of history (months -4 to -1) on checking:

    - CB NETFLIX.COM -15, -16, (none), -14 on the 14th: 3 of 4 months, within 20 % of -15.
    - PRLV SEPA EDF FACT 123456 -50, -60, -55, -65 on the 10th-13th: median -57.50, day 11;
      a schedule for EDF covers it.
    - WATER CO -100, -120, -100 (none in month -1): -120 is exactly 20 % off -100: recurs.
    - GYM CLUB -30, -30, -30, -40: -40 is 33 % off the median -30: does not recur.
    - SPORT SHOP -20 twice: 2 months only. A transfer to savings monthly: never a charge.
    - ACME PAYROLL +2,000.00 on the 27th every month: recurring income.
    """
    home = hand_plan(4)
    checking = home.account("Checking", "checking", "5000.00")
    savings = home.account("Savings", "savings")
    fun = home.group("Fun")
    streaming = home.category(fun, "Streaming")
    months = [month_of(-back) for back in (4, 3, 2, 1)]
    for month, amount in zip(months, ("-15.00", "-16.00", None, "-14.00"), strict=True):
        if amount:
            home.spend(checking, day_in(month, 14), amount, "CB NETFLIX.COM", streaming)
    for month, (day, amount) in zip(
        months, ((10, "-50.00"), (12, "-60.00"), (11, "-55.00"), (13, "-65.00")), strict=True
    ):
        home.spend(checking, day_in(month, day), amount, "PRLV SEPA EDF FACT 123456")
    for month, amount in zip(months[:3], ("-100.00", "-120.00", "-100.00"), strict=True):
        home.spend(checking, day_in(month, 2), amount, "WATER CO")
    for month, amount in zip(months, ("-30.00", "-30.00", "-30.00", "-40.00"), strict=True):
        home.spend(checking, day_in(month, 5), amount, "GYM CLUB")
    for month in months[:2]:
        home.spend(checking, day_in(month, 20), "-20.00", "SPORT SHOP")
    for month in months:
        home.transfer(checking, savings, day_in(month, 28), "100.00")
        home.spend(checking, day_in(month, 27), "2000.00", "ACME PAYROLL", home.ready_to_assign())
    home.spend(checking, today(), "-15.00", "CB NETFLIX.COM", streaming)  # this month: not looked at
    home.schedule(checking, days_after(5), "monthly", "-57.50", "EDF")
    with read_only(home.plan):
        yield home


WATER = {
    "payee": "WATER CO",
    "monthly_amount": "-100.00",
    "yearly_amount": "-1200.00",
    "day": 2,
    "months_seen": 3,
    "category": None,
    "scheduled": False,
}
EDF = {
    "payee": "EDF",
    "monthly_amount": "-57.50",
    "yearly_amount": "-690.00",
    "day": 11,
    "months_seen": 4,
    "category": None,
    "scheduled": True,
}
NETFLIX = {
    "payee": "NETFLIX.COM",
    "monthly_amount": "-15.00",
    "yearly_amount": "-180.00",
    "day": 14,
    "months_seen": 3,
    "category": "Streaming",
    "scheduled": False,
}
PAY = {
    "payee": "ACME PAYROLL",
    "monthly_amount": "2000.00",
    "yearly_amount": "24000.00",
    "day": 27,
    "months_seen": 4,
    "category": "Inflow: Ready to Assign",
    "scheduled": False,
}


async def test_it_finds_the_charges_seen_in_3_of_4_months_within_20_percent_costliest_first(bills):
    result = await call("find_recurring_charges", plan_id=bills.id)
    content = ok(result)

    months = [month_of(-back).isoformat() for back in (4, 3, 2, 1)]
    assert content["charges"] == [WATER, EDF, NETFLIX]
    assert content["yearly_total"] == "-2070.00"  # 12 x (-100 - 57.50 - 15)
    assert content["months_looked_at"] == months
    assert result.content[0].text.splitlines()[0] == (
        f"3 recurring charges costing 2070.00 a year; from {months[0]} to {months[-1]}."
    )


async def test_recurring_income_comes_after_the_charges_when_asked(bills):
    content = ok(await call("find_recurring_charges", plan_id=bills.id, include_income=True))

    assert content["charges"] == [WATER, EDF, NETFLIX, PAY]
    assert content["yearly_total"] == "-2070.00"


async def test_pages_follow_the_same_order(bills):
    async with agent() as client:
        first = ok(await client.call_tool("find_recurring_charges", {"plan_id": bills.id, "limit": 2}))
        second = ok(
            await client.call_tool(
                "find_recurring_charges", {"plan_id": bills.id, "limit": 2, "cursor": first["next_cursor"]}
            )
        )

    assert first["charges"] + second["charges"] == [WATER, EDF, NETFLIX]
    assert second["next_cursor"] is None
    assert first["yearly_total"] == second["yearly_total"] == "-2070.00"
