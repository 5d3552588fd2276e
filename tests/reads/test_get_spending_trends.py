"""get_spending_trends through the SDK's client, checked against the sandbox's own months."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from avenir_mcp.values.months import add_months, month_start
from tests.helpers.reads import agent, call
from tests.helpers.results import ok, refusal
from tests.mcp.answers import summary
from tests.reads.hand_plans import hand_plan
from tests.reads.month_truth import SandboxPlan, is_internal, milliunits

pytestmark = pytest.mark.anyio


def expected_average(activity: list[int]) -> int:
    """The mean in cents, halves away from zero (ROUND_HALF_UP), as milliunits."""
    cents = (Decimal(sum(activity)) / len(activity) / 10).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(cents) * 10


async def sandbox_trends(sandbox: SandboxPlan, months: list[str]) -> dict[str, list[int]]:
    """Per category (not internal, not deleted) with any activity: its activity in each month."""
    groups = await sandbox.groups()
    activity: dict[str, list[int]] = {}
    for index, month in enumerate(months):
        for category in (await sandbox.month(month))["categories"]:
            if not is_internal(category, groups) and not category["deleted"]:
                activity.setdefault(category["id"], [0] * len(months))[index] = category["activity"]
    return {key: values for key, values in activity.items() if any(values)}


async def every_category(plan_id: str, months_count: int, limit: int) -> tuple[list[str], list[dict]]:
    rows, cursor, months = [], None, []
    async with agent() as client:
        while True:
            arguments = {"plan_id": plan_id, "months_count": months_count, "limit": limit}
            page = ok(
                await client.call_tool(
                    "get_spending_trends", arguments | ({"cursor": cursor} if cursor else {})
                )
            )
            assert months in ([], page["months"])
            months, rows, cursor = page["months"], rows + page["categories"], page["next_cursor"]
            if cursor is None:
                return months, rows


@pytest.mark.parametrize("months_count", [1, 3])
async def test_it_gives_each_categorys_activity_in_the_last_full_months_as_the_sandbox_has_it(
    demo_plan, sandbox, months_count
):
    current = month_start(timezone.localdate())
    months = [add_months(current, -back).isoformat() for back in range(months_count, 0, -1)]
    truth = await sandbox_trends(sandbox, months)

    listed_months, rows = await every_category(demo_plan.id, months_count, limit=200)

    assert listed_months == months
    assert {row["category_id"]: [milliunits(amount) for amount in row["activity"]] for row in rows} == truth
    assert {row["category_id"]: milliunits(row["average"]) for row in rows} == {
        key: expected_average(values) for key, values in truth.items()
    }


async def test_the_biggest_spending_comes_first(demo_plan):
    _months, rows = await every_category(demo_plan.id, 3, limit=200)

    totals = [sum(milliunits(amount) for amount in row["activity"]) for row in rows]
    assert totals == sorted(totals)


async def test_it_looks_only_at_months_the_plan_holds(demo_plan, sandbox):
    first, _last = await sandbox.months_held()
    current = month_start(timezone.localdate())

    result = await call("get_spending_trends", plan_id=demo_plan.id, months_count=24)
    content = ok(result)

    assert content["months"][0] == first
    assert content["months"][-1] == add_months(current, -1).isoformat()
    assert f"(the plan holds {len(content['months'])} full months only)" in summary(result)


async def test_paging_by_category_keeps_the_months_and_the_order(demo_plan):
    months, whole = await every_category(demo_plan.id, 4, limit=200)

    paged_months, paged = await every_category(demo_plan.id, 4, limit=3)

    assert len(whole) > 3
    assert (paged_months, paged) == (months, whole)


async def test_a_cursor_given_with_another_months_count_is_refused(demo_plan):
    first = ok(await call("get_spending_trends", plan_id=demo_plan.id, limit=2))

    result = await call(
        "get_spending_trends", plan_id=demo_plan.id, months_count=6, limit=2, cursor=first["next_cursor"]
    )

    assert refusal(result).endswith("This cursor belongs to another query; call again without cursor.")


@pytest.mark.parametrize("months_count", [0, 25])
async def test_it_refuses_a_months_count_out_of_bounds_before_any_ynab_request(
    demo_plan, ynab_requests, months_count
):
    result = await call("get_spending_trends", plan_id=demo_plan.id, months_count=months_count)

    assert result.is_error
    assert await ynab_requests() == []


async def test_a_plan_that_began_this_month_has_no_full_month_to_show(live_service):
    home = await sync_to_async(hand_plan)(0)
    await sync_to_async(home.account)("Checking", "checking", "300.00")

    result = await call("get_spending_trends", plan_id=home.id)

    assert ok(result)["months"] == []
    assert summary(result) == "No full month in this plan yet: it began this month."
