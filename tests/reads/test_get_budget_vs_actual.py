"""get_budget_vs_actual through the SDK's client, checked against the sandbox's own month."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.utils import timezone

from avenir_mcp.values.months import add_months, month_start
from tests.helpers.reads import agent, call
from tests.helpers.results import ok, refusal
from tests.mcp.answers import summary
from tests.reads.month_truth import in_budget_view, milliunits

pytestmark = pytest.mark.anyio


def expected_pct(activity: int, budgeted: int) -> float | None:
    """The formula of docs/tools.md#get_budget_vs_actual in plain Decimal arithmetic (halves away from zero:
    ROUND_HALF_UP)."""
    if budgeted <= 0:
        return None
    exact = Decimal(-activity) * 100 / Decimal(budgeted)
    return float(exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


async def every_row(plan_id: str, month: str, limit: int) -> list[dict]:
    rows, cursor = [], None
    async with agent() as client:
        while True:
            arguments = {"plan_id": plan_id, "month": month, "limit": limit}
            page = ok(
                await client.call_tool(
                    "get_budget_vs_actual", arguments | ({"cursor": cursor} if cursor else {})
                )
            )
            rows += page["categories"]
            cursor = page["next_cursor"]
            if cursor is None:
                return rows


@pytest.mark.parametrize("months_back", [0, 3])
async def test_it_measures_spending_against_what_was_assigned_in_each_category(
    demo_plan, sandbox, months_back
):
    month = add_months(month_start(timezone.localdate()), -months_back).isoformat()
    truth, groups = await sandbox.month(month), await sandbox.groups()

    rows = await every_row(demo_plan.id, month, limit=200)

    expected = {
        category["id"]: (
            category["budgeted"],
            category["activity"],
            category["balance"],
            expected_pct(category["activity"], category["budgeted"]),
        )
        for category in truth["categories"]
        if in_budget_view(category, groups)
        and any((category["budgeted"], category["activity"], category["balance"]))
    }
    assert {
        row["category_id"]: (
            milliunits(row["assigned"]),
            milliunits(row["activity"]),
            milliunits(row["available"]),
            row["utilisation_pct"],
        )
        for row in rows
    } == expected


async def test_utilisation_is_over_100_for_an_overspent_budget_and_null_without_one(
    own_demo_plan, own_sandbox
):
    truth = await own_sandbox.month("current")
    by_name = {category["name"]: category for category in truth["categories"]}
    await own_sandbox.assign("current", by_name["Health"]["id"], 0)

    rows = {row["name"]: row for row in await every_row(own_demo_plan.id, "current", limit=200)}

    dining = by_name["Dining Out"]
    assert -dining["activity"] > dining["budgeted"] > 0, "the demo overspends Dining Out"
    assert rows["Dining Out"]["utilisation_pct"] > 100
    assert rows["Health"]["assigned"] == "0.00"
    assert rows["Health"]["utilisation_pct"] is None


async def test_its_line_counts_the_categories_over_budget_not_the_overspent_ones(own_demo_plan, own_sandbox):
    truth = await own_sandbox.month("current")
    # The category with the most money left from before, made over budget but not overspent:
    # 0.01 assigned, at least 0.02 spent this month, what it had before still covering it.
    saved = max(truth["categories"], key=spare)
    assert spare(saved) >= 10, "the demo has savings"
    await own_sandbox.assign("current", saved["id"], 10)
    await own_sandbox.spend(saved["id"], 20 + max(saved["activity"], 0), timezone.localdate())

    result = await call("get_budget_vs_actual", plan_id=own_demo_plan.id, limit=200)

    answer = ok(result)
    over = {row["name"] for row in answer["categories"] if (row["utilisation_pct"] or 0) > 100}
    overspent = {row["name"] for row in answer["categories"] if milliunits(row["available"]) < 0}
    assert saved["name"] in over - overspent
    expected = f"{len(answer['categories'])} categories for {answer['month']}, {len(over)} over budget."
    assert summary(result) == expected


def spare(category: dict) -> int:
    """What a category still holds once its assignment and any money it received are taken out."""
    return category["balance"] - category["budgeted"] - max(category["activity"], 0)


async def test_pages_of_any_size_add_up_to_the_same_list(demo_plan):
    whole = await every_row(demo_plan.id, "current", limit=200)

    paged = await every_row(demo_plan.id, "current", limit=4)

    assert len(whole) > 4
    assert paged == whole


async def test_a_cursor_from_another_month_is_refused(demo_plan):
    first = ok(await call("get_budget_vs_actual", plan_id=demo_plan.id, limit=2))

    result = await call(
        "get_budget_vs_actual", plan_id=demo_plan.id, month="next", limit=2, cursor=first["next_cursor"]
    )

    assert refusal(result).endswith("This cursor belongs to another query; call again without cursor.")


@pytest.mark.parametrize(("argument", "value"), [("month", "09/2026"), ("plan_id", "a b")])
async def test_it_refuses_what_the_arguments_alone_show_before_any_ynab_request(
    demo_plan, ynab_requests, argument, value
):
    arguments = {"plan_id": demo_plan.id, argument: value}

    result = await call("get_budget_vs_actual", **arguments)

    assert refusal(result)
    assert await ynab_requests() == []


@pytest.mark.parametrize("limit", [0, 201])
async def test_it_refuses_a_page_size_out_of_bounds(demo_plan, limit):
    result = await call("get_budget_vs_actual", plan_id=demo_plan.id, limit=limit)

    assert result.is_error
