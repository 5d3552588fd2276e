"""list_category_groups: the groups a category can be created in, as the sandbox holds them."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.sandbox.models import CategoryGroup
from tests.helpers.reads import call
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_get
from tests.mcp.answers import summary

pytestmark = pytest.mark.anyio


async def test_it_lists_the_visible_groups_and_leaves_out_hidden_internal_and_card_payments(own_demo_plan):
    await sync_to_async(CategoryGroup.objects.filter(plan=own_demo_plan, name="Fun").update)(hidden=True)
    held = (await sandbox_get(f"/plans/{own_demo_plan.id}/categories"))["category_groups"]

    result = await call("list_category_groups", plan_id=own_demo_plan.id)

    groups = ok(result)["groups"]
    creatable = [
        group
        for group in held
        if not (group["hidden"] or group["internal"] or group["deleted"])
        and group["name"] != "Credit Card Payments"
    ]
    assert {(g["category_group_id"], g["name"]) for g in groups} == {(g["id"], g["name"]) for g in creatable}
    assert [g["name"].casefold() for g in groups] == sorted(g["name"].casefold() for g in groups)
    assert {g["name"] for g in held} >= {"Fun", "Credit Card Payments", "Internal Master Category"}
    assert summary(result).startswith(f"{len(groups)} category groups: ")


async def test_a_warm_call_costs_one_ynab_request(demo_plan):
    await call("list_category_groups", plan_id=demo_plan.id)
    mark = await request_mark()

    ok(await call("list_category_groups", plan_id=demo_plan.id))

    assert len(await requests_after(mark)) == 1


async def test_a_plan_whose_groups_are_all_hidden_says_no_group_can_take_a_category(own_demo_plan):
    await sync_to_async(CategoryGroup.objects.filter(plan=own_demo_plan, internal=False).update)(hidden=True)

    result = await call("list_category_groups", plan_id=own_demo_plan.id)

    assert ok(result)["groups"] == []
    assert summary(result) == "No category group can take a new category in this plan."
