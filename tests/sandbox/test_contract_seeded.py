"""Seeded plans (the demo household, a generated plan) answer in YNAB's documented shapes:
every kind of data seeding makes (targets of each type, schedules, splits, transfers,
a closed account, a loan) goes through the same serializers as API-made data."""

from __future__ import annotations

import uuid

import pytest

from avenir_mcp.sandbox.seeding import seed_demo_plan, seed_heavy_plan
from tests.sandbox.contract import check, spec_or_skip

LISTS = {
    "getAccounts": "/accounts",
    "getCategories": "/categories",
    "getPayees": "/payees",
    "getPlanMonths": "/months",
    "getPlanMonth": "/months/current",
    "getTransactions": "/transactions",
    "getScheduledTransactions": "/scheduled_transactions",
    "getMoneyMovements": "/money_movements",
    "getMoneyMovementsByMonth": "/months/current/money_movements",
    "getMoneyMovementGroups": "/money_movement_groups",
}


@pytest.fixture(scope="module")
def seeded_ids() -> list[str]:
    spec_or_skip()
    demo = seed_demo_plan(plan_id=str(uuid.uuid4()))
    heavy = seed_heavy_plan(400, plan_id=str(uuid.uuid4()), seed=7)
    return [demo.id, heavy.id]


def test_seeded_plans_export_in_the_documented_shape(api, seeded_ids):
    for plan_id in seeded_ids:
        body = check("getPlanById", api.get(f"/plans/{plan_id}"))

        assert body["data"]["plan"]["transactions"]


@pytest.mark.parametrize(("operation_id", "path"), LISTS.items())
def test_seeded_plans_list_in_the_documented_shape(api, seeded_ids, operation_id, path):
    for plan_id in seeded_ids:
        check(operation_id, api.get(f"/plans/{plan_id}{path}", params={"since_date": "2000-01-01"}))
