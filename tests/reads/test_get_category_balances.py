"""get_category_balances through the SDK's client, checked against the sandbox's own month."""

from __future__ import annotations

import pytest
from django.utils import timezone

from avenir_mcp.values.months import add_months, month_start
from tests.helpers.reads import agent, call
from tests.helpers.results import ok, refusal
from tests.mcp.answers import summary
from tests.reads.month_truth import in_budget_view, milliunits

pytestmark = pytest.mark.anyio


def figures_of(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    return {
        row["category_id"]: (
            milliunits(row["assigned"]),
            milliunits(row["activity"]),
            milliunits(row["available"]),
        )
        for row in rows
    }


@pytest.mark.parametrize("months_back", [0, 2])
async def test_it_gives_each_budget_category_the_figures_the_sandbox_has_for_the_month(
    demo_plan, sandbox, months_back
):
    month = add_months(month_start(timezone.localdate()), -months_back)
    truth, groups = await sandbox.month(month), await sandbox.groups()

    result = ok(await call("get_category_balances", plan_id=demo_plan.id, month=month.strftime("%Y-%m")))

    expected = {
        category["id"]: (category["budgeted"], category["activity"], category["balance"])
        for category in truth["categories"]
        if in_budget_view(category, groups)
        and any((category["budgeted"], category["activity"], category["balance"]))
    }
    assert (result["plan_id"], result["month"]) == (demo_plan.id, month.isoformat())
    assert figures_of(result["categories"]) == expected
    assert result["next_cursor"] is None


async def test_its_line_counts_the_categories_and_the_overspent_ones(demo_plan):
    result = await call("get_category_balances", plan_id=demo_plan.id)

    answer = ok(result)
    overspent = sum(milliunits(row["available"]) < 0 for row in answer["categories"])
    assert overspent >= 1, "the demo overspends Dining Out"
    expected = f"{len(answer['categories'])} categories for {answer['month']}, {overspent} overspent."
    assert summary(result) == expected


async def test_it_leaves_out_hidden_and_internal_categories_and_keeps_credit_card_payments(
    demo_plan, sandbox
):
    truth, groups = await sandbox.month("current"), await sandbox.groups()
    by_id = {category["id"]: category for category in truth["categories"]}

    result = ok(await call("get_category_balances", plan_id=demo_plan.id, include_empty=True))

    listed = {row["category_id"]: row for row in result["categories"]}
    left_out = {by_id[key]["name"] for key in by_id.keys() - listed.keys()}
    assert {"Inflow: Ready to Assign", "Uncategorized", "Old Gym Membership"} <= left_out
    assert all(not in_budget_view(by_id[key], groups) for key in by_id.keys() - listed.keys())
    assert "Credit Card Payments" in {row["group"] for row in listed.values()}


async def test_it_lists_all_zero_categories_only_when_asked(demo_plan):
    shown = ok(await call("get_category_balances", plan_id=demo_plan.id))["categories"]
    every = ok(await call("get_category_balances", plan_id=demo_plan.id, include_empty=True))["categories"]

    added = [row for row in every if row not in shown]
    assert added, "the demo has categories with nothing this month"
    assert {(row["assigned"], row["activity"], row["available"]) for row in added} == {
        ("0.00", "0.00", "0.00")
    }
    assert [row for row in every if row in shown] == shown


async def test_it_lists_categories_by_group_then_name(demo_plan):
    rows = ok(await call("get_category_balances", plan_id=demo_plan.id, include_empty=True))["categories"]

    keys = [(row["group"].casefold(), row["name"].casefold()) for row in rows]
    assert keys == sorted(keys)


async def test_pages_follow_each_other_to_the_whole_list(demo_plan):
    whole = ok(await call("get_category_balances", plan_id=demo_plan.id, include_empty=True))["categories"]
    pages, cursor = [], None
    async with agent() as client:
        while True:
            arguments = {"plan_id": demo_plan.id, "include_empty": True, "limit": 7}
            page = ok(
                await client.call_tool(
                    "get_category_balances", arguments | ({"cursor": cursor} if cursor else {})
                )
            )
            pages.append(page["categories"])
            cursor = page["next_cursor"]
            if cursor is None:
                break

    assert [len(page) for page in pages[:-1]] == [7] * (len(pages) - 1)
    assert [row for page in pages for row in page] == whole


async def test_a_cursor_of_another_month_or_filter_is_refused(demo_plan):
    first = ok(await call("get_category_balances", plan_id=demo_plan.id, include_empty=True, limit=3))

    other_filter = await call(
        "get_category_balances", plan_id=demo_plan.id, limit=3, cursor=first["next_cursor"]
    )
    other_month = await call(
        "get_category_balances",
        plan_id=demo_plan.id,
        include_empty=True,
        month="next",
        limit=3,
        cursor=first["next_cursor"],
    )

    for refused in (other_filter, other_month):
        assert refusal(refused).endswith("This cursor belongs to another query; call again without cursor.")


@pytest.mark.parametrize("month", ["2026-9", "sept", "2026-09-15", "previous", ""])
async def test_it_refuses_a_month_it_cannot_read_before_any_ynab_request(demo_plan, ynab_requests, month):
    result = await call("get_category_balances", plan_id=demo_plan.id, month=month)

    assert "give current, next, YYYY-MM or YYYY-MM-01" in refusal(result) or "first of a month" in refusal(
        result
    )
    assert await ynab_requests() == []


async def test_it_refuses_a_month_outside_the_plan_naming_the_months_it_has(
    demo_plan, sandbox, ynab_requests
):
    first, last = await sandbox.months_held()
    before = add_months(demo_plan.first_month, -1)
    mark = len(await ynab_requests())

    result = await call("get_category_balances", plan_id=demo_plan.id, month=before.isoformat())

    assert refusal(result).endswith(
        f"Month {before.isoformat()} is outside this plan: give a month from {first} to {last}."
    )
    assert len(await ynab_requests()) - mark == 1  # the plan's read, which tells what months it has


async def test_it_refuses_a_malformed_plan_id_before_any_ynab_request(ynab_requests):
    result = await call("get_category_balances", plan_id="plan/../../user")

    assert "is not a valid plan id" in refusal(result)
    assert await ynab_requests() == []
