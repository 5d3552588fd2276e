"""get_monthly_summary through the SDK's client, checked against the sandbox's own month."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.mcp.answers import summary as summary_line
from tests.reads.conftest import call, ok, refusal
from tests.reads.month_truth import is_internal, milliunits
from tools.logic.months import add_months, month_start

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("months_back", [0, 1, 4])
async def test_it_gives_the_months_totals_and_age_of_money_as_the_sandbox_has_them(
    demo_plan, sandbox, months_back
):
    month = add_months(month_start(timezone.localdate()), -months_back)
    truth = await sandbox.month(month)

    result = ok(await call("get_monthly_summary", plan_id=demo_plan.id, month=month.isoformat()))

    assert (result["plan_id"], result["month"]) == (demo_plan.id, month.isoformat())
    assert {
        "income": milliunits(result["income"]),
        "budgeted": milliunits(result["assigned"]),
        "activity": milliunits(result["activity"]),
        "to_be_budgeted": milliunits(result["ready_to_assign"]),
        "age_of_money": result["age_of_money"],
    } == {key: truth[key] for key in ("income", "budgeted", "activity", "to_be_budgeted", "age_of_money")}


async def test_overspent_lists_every_category_below_zero_the_most_overspent_first(demo_plan, sandbox):
    truth, groups = await sandbox.month("current"), await sandbox.groups()
    expected = {
        category["id"]: category["balance"]
        for category in truth["categories"]
        if category["balance"] < 0 and not is_internal(category, groups) and not category["deleted"]
    }

    result = ok(await call("get_monthly_summary", plan_id=demo_plan.id))

    overspent = {row["category_id"]: milliunits(row["available"]) for row in result["overspent"]}
    assert expected, "the demo has an overspent category"
    assert overspent == expected
    assert result["overspent_count"] == len(expected)
    assert list(overspent.values()) == sorted(overspent.values())


async def test_its_text_is_one_line_with_the_figures(demo_plan):
    result = await call("get_monthly_summary", plan_id=demo_plan.id, month="current")
    summary = ok(result)

    assert summary["age_of_money"] is not None
    count = summary["overspent_count"]
    assert count >= 1, "the demo overspends Dining Out"
    overspent = "1 overspent category" if count == 1 else f"{count} overspent categories"
    assert summary_line(result) == (
        f"{summary['month']}: income {summary['income']}, assigned {summary['assigned']}, activity "
        f"{summary['activity']}, Ready to Assign {summary['ready_to_assign']}, age of money "
        f"{summary['age_of_money']} days, {overspent}."
    )


async def test_an_overspent_hidden_category_still_shows(demo_plan, sandbox):
    before = await sandbox.month("current")
    hidden = next(category for category in before["categories"] if category["name"] == "Old Gym Membership")
    await sandbox.assign("current", hidden["id"], hidden["budgeted"] - 12_340)
    after = next(
        category
        for category in (await sandbox.month("current"))["categories"]
        if category["id"] == hidden["id"]
    )

    result = ok(await call("get_monthly_summary", plan_id=demo_plan.id))

    assert hidden["hidden"]
    assert after["balance"] < 0
    listed = {row["category_id"]: row for row in result["overspent"]}
    assert listed[hidden["id"]]["name"] == "Old Gym Membership"
    assert milliunits(listed[hidden["id"]]["available"]) == after["balance"]


@pytest.mark.parametrize("month", ["2026-13", "last month", "2026-09-02"])
async def test_it_refuses_a_month_it_cannot_read_before_any_ynab_request(demo_plan, ynab_requests, month):
    result = await call("get_monthly_summary", plan_id=demo_plan.id, month=month)

    assert refusal(result).startswith("Month ")
    assert await ynab_requests() == []


async def test_it_refuses_a_month_after_the_plans_last_one(demo_plan, sandbox):
    first, last = await sandbox.months_held()
    after = add_months(month_start(timezone.localdate()), 12).isoformat()

    result = await call("get_monthly_summary", plan_id=demo_plan.id, month=after[:7])

    assert refusal(result).endswith(
        f"Month {after} is outside this plan: give a month from {first} to {last}."
    )
