"""get_age_of_money: YNAB's own figure month by month (the sandbox's), the change and the trend."""

from __future__ import annotations

import itertools

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok
from tests.helpers.sandbox_side import sandbox_get
from tests.reads.hand_plans import hand_plan, month_of

pytestmark = pytest.mark.anyio


async def test_it_gives_ynabs_figures_and_which_way_they_go(demo_plan):
    held = {
        m["month"]: m["age_of_money"] for m in (await sandbox_get(f"/plans/{demo_plan.id}/months"))["months"]
    }
    months = [month_of(back).isoformat() for back in range(-3, 1)]
    figures = [held[month] for month in months]
    changes = [None] + [
        b - a if a is not None and b is not None else None for a, b in itertools.pairwise(figures)
    ]
    known = [days for days in figures if days is not None]
    change = known[-1] - known[0]
    trend = "up" if change > 2 else "down" if change < -2 else "steady"

    result = await call("get_age_of_money", plan_id=demo_plan.id, months_count=4)
    content = ok(result)

    assert content["months"] == [
        {"month": month, "days": days, "change": delta}
        for month, days, delta in zip(months, figures, changes, strict=True)
    ]
    assert (content["days"], content["latest_month"], content["change"], content["trend"]) == (
        known[-1],
        months[-1],
        change,
        trend,
    )
    first_known = months[figures.index(known[0])]
    days_word = "day" if abs(change) == 1 else "days"
    assert content["message"] == (
        f"Age of money is {known[-1]} days as of {months[-1]}, {trend} by {abs(change)} {days_word} "
        f"since {first_known}."
    )
    assert result.content[0].text.splitlines()[0] == content["message"]
    assert (
        "Age of money is YNAB's own figure, as its month data gives it; it is not recomputed here."
        in content["notes"]
    )


@pytest.fixture
def new_plan(live_service):
    home = hand_plan(0)
    home.account("Checking", "checking", "100.00")
    return home


async def test_a_plan_without_spending_has_no_age_of_money(new_plan):
    content = ok(await call("get_age_of_money", plan_id=new_plan.id))

    assert (
        content["message"]
        == "YNAB gives no age of money for these months yet (it needs some spending history)."
    )
    assert (content["days"], content["latest_month"], content["change"], content["trend"]) == (
        None,
        None,
        None,
        None,
    )
    assert content["months"] == [{"month": month_of(0).isoformat(), "days": None, "change": None}]
