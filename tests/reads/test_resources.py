"""The JSON resources ynab://plans, ynab://plans/{plan_id}/categories and .../accounts."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from mcp import MCPError

from avenir_mcp.sandbox.ledger import rebuild_derived
from avenir_mcp.sandbox.models import Category
from tests.helpers.reads import agent, milliunits
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_get

pytestmark = pytest.mark.anyio


async def read(uri: str):
    """The resource's JSON, and how many requests reached the sandbox for it."""
    mark = await request_mark()
    async with agent() as client:
        contents = (await client.read_resource(uri)).contents[0]
    assert contents.mime_type == "application/json"
    return json.loads(contents.text), len(await requests_after(mark))


async def test_every_caller_sees_the_three_resources(live_service):
    async with agent() as client:
        static = {str(r.uri) for r in (await client.list_resources()).resources}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}

    assert "ynab://plans" in static
    assert templates >= {"ynab://plans/{plan_id}/categories", "ynab://plans/{plan_id}/accounts"}


async def test_plans_lists_each_plan_with_its_last_change_for_one_request(demo_plan):
    held = {p["id"]: p for p in (await sandbox_get("/plans"))["plans"]}

    plans, requests = await read("ynab://plans")

    mine = next(p for p in plans if p["plan_id"] == demo_plan.id)
    assert mine == {
        "plan_id": demo_plan.id,
        "name": held[demo_plan.id]["name"],
        "last_modified_on": mine["last_modified_on"],
    }
    assert mine["last_modified_on"][:19] == held[demo_plan.id]["last_modified_on"][:19]
    assert requests == 1


async def test_categories_come_by_group_in_ynabs_order_without_hidden_or_internal_ones(own_demo_plan):
    await sync_to_async(hide_category)(own_demo_plan, "Gifts")
    held = (await sandbox_get(f"/plans/{own_demo_plan.id}/categories"))["category_groups"]

    groups, requests = await read(f"ynab://plans/{own_demo_plan.id}/categories")

    expected = [
        {
            "group": group["name"],
            "categories": [
                {"category_id": c["id"], "name": c["name"]}
                for c in group["categories"]
                if not (c["hidden"] or c["internal"] or c["deleted"])
            ],
        }
        for group in held
        if not (group["hidden"] or group["internal"] or group["deleted"])
    ]
    assert groups == expected
    names = {c["name"] for g in groups for c in g["categories"]}
    assert "Gifts" not in names
    assert "Old Gym Membership" not in names  # hidden in the demo
    assert "Inflow: Ready to Assign" not in names  # internal
    assert requests == 1


async def test_accounts_lists_open_accounts_with_their_balance_budget_ones_first(demo_plan):
    held = (await sandbox_get(f"/plans/{demo_plan.id}/accounts"))["accounts"]

    accounts, requests = await read(f"ynab://plans/{demo_plan.id}/accounts")

    open_accounts = {a["id"]: a for a in held if not (a["closed"] or a["deleted"])}
    # list_accounts' order: budget accounts before tracking ones, then by name.
    in_order = sorted(
        open_accounts.values(), key=lambda a: (not a["on_budget"], a["name"].casefold(), a["id"])
    )
    assert [a["account_id"] for a in accounts] == [a["id"] for a in in_order]
    assert {a["on_budget"] for a in in_order} == {True, False}  # the order has both kinds to show
    for entry in accounts:
        account = open_accounts[entry["account_id"]]
        assert (entry["name"], entry["type"], entry["on_budget"]) == (
            account["name"],
            account["type"],
            account["on_budget"],
        )
        assert milliunits(entry["balance"]) == account["balance"]
    assert requests <= 2  # the plan, and the plan listing when this process meets the plan first


def hide_category(plan, name: str) -> None:
    Category.objects.filter(plan=plan, name=name).update(hidden=True)
    rebuild_derived(plan)  # the sandbox's figures and stamps follow the change


@pytest.mark.parametrize("kind", ["categories", "accounts"])
async def test_a_malformed_plan_id_is_refused_without_a_request(live_service, kind):
    mark = await request_mark()

    async with agent() as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(f"ynab://plans/bad%20id/{kind}")

    assert "plan id" in str(refused.value)
    assert await requests_after(mark) == []


async def test_a_plan_ynab_does_not_know_is_refused_with_ynabs_reason_in_one_line(live_service):
    async with agent() as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource("ynab://plans/0a1b2c3d-0000-4000-8000-000000000000/categories")

    said = str(refused.value)
    assert "YNAB has no such item (404.2)" in said
    assert "\n" not in said
