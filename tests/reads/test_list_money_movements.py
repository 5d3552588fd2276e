"""list_money_movements: the assignments YNAB records as moved, named, newest first, for one
request a call (the movements are not in the plan export)."""

from __future__ import annotations

from datetime import datetime

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp import ynab_client
from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.models import Category, MoneyMovement
from tests.helpers.reads import call, every_page, milliunits
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_call, sandbox_get
from tests.mcp.answers import summary

pytestmark = pytest.mark.anyio


async def _names(plan_id: str) -> dict[str, str]:
    groups = (await sandbox_get(f"/plans/{plan_id}/categories"))["category_groups"]
    return {category["id"]: category["name"] for group in groups for category in group["categories"]}


def _as_listed(row: dict, names: dict[str, str]) -> tuple:
    side = lambda category_id: names[category_id] if category_id else None  # noqa: E731
    return (row["month"], side(row["from_category_id"]), side(row["to_category_id"]), row["amount"])


async def test_it_lists_every_movement_the_sandbox_holds_newest_first_with_category_names(demo_plan):
    held = (await sandbox_get(f"/plans/{demo_plan.id}/money_movements"))["money_movements"]
    names = await _names(demo_plan.id)

    found, pages = await every_page("list_money_movements", "movements", plan_id=demo_plan.id, limit=200)

    assert len(held) > 100  # six months of a household's assignments
    assert [page["total"] for page in pages] == [len(held)] * len(pages)
    assert sorted(
        ((m["month"], m["from_category"], m["to_category"], milliunits(m["amount"])) for m in found), key=repr
    ) == sorted((_as_listed(row, names) for row in held), key=repr)
    moments = [datetime.fromisoformat(m["moved_at"]) for m in found]
    assert moments == sorted(moments, reverse=True)
    assert all(moment.utcoffset().total_seconds() == 0 and moment.microsecond == 0 for moment in moments)
    first_month = min(m["month"] for m in found)
    assert {m["from_category"] for m in found if m["month"] == first_month} == {None}  # assigned from RTA


async def test_a_month_lists_only_its_movements_and_the_summary_names_the_newest(demo_plan):
    month = demo_plan.first_month.isoformat()
    held = (await sandbox_get(f"/plans/{demo_plan.id}/months/{month}/money_movements"))["money_movements"]

    result = await call("list_money_movements", plan_id=demo_plan.id, month=month[:7], limit=5)

    listing = ok(result)
    assert listing["month"] == month
    assert listing["total"] == len(held)
    assert {m["month"] for m in listing["movements"]} == {month}
    newest = listing["movements"][0]
    amount = newest["amount"].replace(".", ",")  # the plan's own format in sentences
    assert summary(result) == (
        f"{len(held)} money movements in {month}; newest: {amount} from Ready to Assign "
        f"to {newest['to_category']}; more with next_cursor."
    )


async def test_a_month_without_movements_says_so(demo_plan):
    result = await call("list_money_movements", plan_id=demo_plan.id, month="next")

    listing = ok(result)
    assert (listing["movements"], listing["total"], listing["next_cursor"]) == ([], 0, None)
    assert summary(result) == f"0 money movements in {listing['month']}."


async def test_money_moved_through_the_api_shows_at_the_top_in_both_directions(own_demo_plan):
    plan_id = own_demo_plan.id
    snapshot = await ynab_client.plan_snapshot(plan_id)
    gym = next(c for c in snapshot.categories.values() if c.name == "Gym")
    month = snapshot.month_keys()[-2]  # the current month
    assigned = snapshot.month_category(month, gym.id).budgeted
    await sandbox_call(
        "PATCH",
        f"/plans/{plan_id}/months/{month}/categories/{gym.id}",
        {"category": {"budgeted": assigned + 12_340}},
    )
    await sandbox_call(
        "PATCH", f"/plans/{plan_id}/months/{month}/categories/{gym.id}", {"category": {"budgeted": assigned}}
    )

    listing = ok(await call("list_money_movements", plan_id=plan_id, month="current", limit=2))

    assert [(m["from_category"], m["to_category"], m["amount"]) for m in listing["movements"]] == [
        ("Gym", None, "12.34"),
        (None, "Gym", "12.34"),
    ]


async def test_a_warm_call_costs_one_request_and_reads_the_plan_again_only_when_it_changed(own_demo_plan):
    plan_id = own_demo_plan.id
    await call("list_money_movements", plan_id=plan_id)
    mark = await request_mark()

    ok(await call("list_money_movements", plan_id=plan_id))
    unchanged = await requests_after(mark)
    created = await sandbox_call(
        "POST",
        f"/plans/{plan_id}/categories",
        {"category": {"name": "Piano lessons", "category_group_id": await _group_of(plan_id, "Gym")}},
    )
    piano = created["category"]["id"]
    await sandbox_call(
        "PATCH", f"/plans/{plan_id}/months/current/categories/{piano}", {"category": {"budgeted": 45_000}}
    )
    mark = await request_mark()
    listing = ok(await call("list_money_movements", plan_id=plan_id, limit=1))
    changed = await requests_after(mark)

    assert [entry.path for entry in unchanged] == [f"/sandbox/v1/plans/{plan_id}/money_movements"]
    assert sorted(entry.path for entry in changed) == [
        f"/sandbox/v1/plans/{plan_id}",
        f"/sandbox/v1/plans/{plan_id}/money_movements",
    ]
    assert [(m["from_category"], m["to_category"], m["amount"]) for m in listing["movements"]] == [
        (None, "Piano lessons", "45.00")
    ]


async def _group_of(plan_id: str, category: str) -> str:
    groups = (await sandbox_get(f"/plans/{plan_id}/categories"))["category_groups"]
    return next(group["id"] for group in groups for c in group["categories"] if c["name"] == category)


async def test_a_deleted_category_is_named_so(own_demo_plan):
    plan_id = own_demo_plan.id
    gym = await sync_to_async(lambda: Category.objects.get(plan_id=plan_id, name="Gym"))()

    def delete_gym() -> None:
        Category.objects.filter(pk=gym.pk).update(deleted=True)
        ledger.rebuild_derived(own_demo_plan)

    await sync_to_async(delete_gym)()

    listing = ok(await call("list_money_movements", plan_id=plan_id, limit=200))

    assert listing["plan_id"] == plan_id
    gym_rows = await sync_to_async(lambda: MoneyMovement.objects.filter(to_category=gym).count())()
    assert gym_rows > 0
    assert [m for m in listing["movements"] if m["to_category"] == "(deleted category)"]


async def test_a_month_outside_the_plan_or_badly_written_is_refused_before_the_movements_are_asked(demo_plan):
    await call("list_money_movements", plan_id=demo_plan.id)
    mark = await request_mark()

    before = refusal(await call("list_money_movements", plan_id=demo_plan.id, month="1999-01"))
    garbled = refusal(await call("list_money_movements", plan_id=demo_plan.id, month="Sept"))

    assert before.startswith("Month 1999-01-01 is outside this plan: give a month from ")
    assert "month" in garbled.lower()
    assert [entry.path for entry in await requests_after(mark)] == [f"/sandbox/v1/plans/{demo_plan.id}"]
