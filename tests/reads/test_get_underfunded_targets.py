"""get_underfunded_targets on a hand-made plan: YNAB's own underfunded amounts, in funding order."""

from __future__ import annotations

import pytest
from django.utils import timezone

from avenir_mcp.sandbox.ledger import rebuild_derived
from avenir_mcp.sandbox.models import Category
from tests.helpers.reads import call
from tests.helpers.results import ok, refusal
from tests.helpers.shared_plans import read_only
from tests.reads.hand_plans import hand_plan, last_day, month_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def targets(live_service):
    """This month only: checking 1,000.00 (Ready to Assign), and in Bills:

    - Rent: need 950.00 each month, 200.00 assigned → 750.00 needed.
    - Holiday: need 1,200.00 by the end of month +2 (3 months, this one included) → 400.00.
    - Rainy day: a balance of 500.00, no date (set in YNAB's app) → 500.00.
    - Laptop: need 100.00 each month, snoozed → left out.
    - Gym: need 50.00 each month, 50.00 assigned → funded, not listed.
    Ready to Assign: 1,000 - 200 - 50 = 750.00, short of 1,650.00 by 900.00.
    """
    home = hand_plan(0)
    home.account("Checking", "checking", "1000.00")
    bills = home.group("Bills")
    rent = home.category(bills, "Rent", goal_target=950_000, goal_frequency="monthly")
    holiday = home.category(
        bills, "Holiday", goal_target=1_200_000, goal_target_date=last_day(month_of(2)).isoformat()
    )
    rainy = home.category(bills, "Rainy day")
    Category.objects.filter(pk=rainy).update(
        goal_type="TB", goal_target=500_000, goal_creation_month=month_of(0)
    )
    laptop = home.category(bills, "Laptop", goal_target=100_000, goal_frequency="monthly")
    Category.objects.filter(pk=laptop).update(goal_snoozed_at=timezone.now())
    gym = home.category(bills, "Gym", goal_target=50_000, goal_frequency="monthly")
    home.assign(month_of(0), rent, "200.00")
    home.assign(month_of(0), gym, "50.00")
    home.ids = {"rent": rent, "holiday": holiday, "rainy": rainy}
    with read_only(home.plan):
        yield home


async def test_targets_needing_money_come_by_due_date_then_repeating_then_other(targets):
    result = await call("get_underfunded_targets", plan_id=targets.id)
    content = ok(result)

    month = month_of(0).isoformat()
    message = f"3 targets need 1650.00 more in {month}; Ready to Assign (750.00) is short by 900.00."
    assert content["message"] == message
    assert result.content[0].text.splitlines()[0] == message
    assert [
        (t["category_id"], t["name"], t["target"], t["due"], t["needed"], t["urgency"])
        for t in content["targets"]
    ] == [
        (
            targets.ids["holiday"],
            "Holiday",
            f"Need 1200.00 by {last_day(month_of(2)).isoformat()}",
            last_day(month_of(2)).isoformat(),
            "400.00",
            "due_date",
        ),
        (targets.ids["rent"], "Rent", "Need 950.00 each month", None, "750.00", "repeating"),
        (targets.ids["rainy"], "Rainy day", "Have a balance of 500.00", None, "500.00", "other"),
    ]
    assert (content["needed"], content["ready_to_assign"], content["enough"], content["short_by"]) == (
        "1650.00",
        "750.00",
        False,
        "900.00",
    )
    assert content["notes"] == [
        "Needed, left and percent complete are YNAB's own figures for the month.",
        "1 snoozed target left out.",
    ]


async def test_totals_cover_every_page(targets):
    first = ok(await call("get_underfunded_targets", plan_id=targets.id, limit=1))

    assert [t["name"] for t in first["targets"]] == ["Holiday"]
    assert first["needed"] == "1650.00"
    assert first["next_cursor"] is not None


@pytest.fixture(scope="module")
def no_targets(live_service):
    home = hand_plan(0)
    home.account("Checking", "checking", "300.00")
    with read_only(home.plan):
        yield home


async def test_a_plan_without_targets_needs_nothing(no_targets):
    content = ok(await call("get_underfunded_targets", plan_id=no_targets.id))

    assert content["message"] == f"No target needs more money in {month_of(0).isoformat()}."
    assert (content["targets"], content["needed"], content["enough"], content["short_by"]) == (
        [],
        "0.00",
        True,
        "0.00",
    )
    assert "No category has a target." in content["notes"]


async def test_a_month_before_the_plan_is_refused(no_targets):
    result = await call("get_underfunded_targets", plan_id=no_targets.id, month=month_of(-1).isoformat()[:7])

    assert refusal(result) == (
        f"Month {month_of(-1).isoformat()} is outside this plan: give a month from {month_of(0).isoformat()} "
        f"to {month_of(1).isoformat()}."
    )


async def test_a_month_in_another_form_is_refused_before_any_ynab_request(ynab_requests):
    result = await call(
        "get_underfunded_targets", plan_id="de000000-0000-4000-8000-000000000001", month="sept"
    )

    assert refusal(result) == (
        "Month 'sept' is not understood: give current, next, YYYY-MM or YYYY-MM-01 (e.g. 2026-09)."
    )
    assert await ynab_requests() == []


@pytest.fixture
def spaced_needs(live_service):
    """Two needs set in YNAB's app that repeat less often than monthly: 60.00 every 2 months
    (cadence monthly, frequency 2) and 90.00 every 3 months (YNAB's cadence 4)."""
    home = hand_plan(0)
    home.account("Checking", "checking", "1000.00")
    bills = home.group("Bills")
    water = home.category(bills, "Water", goal_target=60_000, goal_frequency="monthly")
    Category.objects.filter(pk=water).update(goal_cadence_frequency=2)
    insurance = home.category(bills, "Insurance", goal_target=90_000, goal_frequency="monthly")
    Category.objects.filter(pk=insurance).update(goal_cadence=4)
    rebuild_derived(home.plan)
    return home


async def test_needs_repeating_every_few_months_say_how_often(spaced_needs):
    content = ok(await call("get_underfunded_targets", plan_id=spaced_needs.id))

    assert sorted((t["name"], t["target"]) for t in content["targets"]) == [
        ("Insurance", "Need 90.00 every 3 months"),
        ("Water", "Need 60.00 every 2 months"),
    ]
