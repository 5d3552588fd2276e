"""Every operation of YNAB's spec answers in its documented shape (validated against the
OpenAPI schema, strictly, and parsed by the official ynab package); so do the errors.

The test is parametrised over the spec's operationIds: an operation without a scenario
here fails, so a new operation in the spec cannot go uncovered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

import httpx2
import pytest
from django.conf import settings

from avenir_mcp.sandbox.ledger import utc_today
from tests.sandbox.contract import check, operation_ids, spec_or_skip
from tests.sandbox.scene import Scene, build_scene

Scenario = Callable[[httpx2.Client, Scene], httpx2.Response]
TOMORROW = utc_today() + timedelta(days=1)
CURRENT = "current"


@pytest.fixture(scope="module")
def scene_api(sandbox_url: str) -> Iterator[httpx2.Client]:
    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    with httpx2.Client(base_url=sandbox_url, headers=headers, timeout=15) as client:
        yield client


@pytest.fixture(scope="module")
def scene(scene_api: httpx2.Client) -> Scene:
    return build_scene(scene_api)


def _new_transaction(api: httpx2.Client, s: Scene) -> httpx2.Response:
    item = {
        "account_id": s.home.checking,
        "date": utc_today().isoformat(),
        "amount": -1_000,
        "payee_name": "Kiosk",
    }
    return api.post(f"{s.base}/transactions", json={"transaction": item})


def _new_transactions(api: httpx2.Client, s: Scene) -> httpx2.Response:
    items = [
        {
            "account_id": s.home.checking,
            "date": utc_today().isoformat(),
            "amount": -2_000,
            "import_id": "contract:1",
        },
        {
            "account_id": s.home.checking,
            "date": utc_today().isoformat(),
            "amount": -2_000,
            "import_id": "contract:1",
        },
    ]
    return api.post(f"{s.base}/transactions", json={"transactions": items})


def _throwaway(api: httpx2.Client, s: Scene) -> str:
    return _new_transaction(api, s).json()["data"]["transaction"]["id"]


def _scheduled(api: httpx2.Client, s: Scene) -> dict:
    return {
        "account_id": s.home.checking,
        "date": (TOMORROW + timedelta(days=3)).isoformat(),
        "amount": -9_990,
        "payee_name": "Streaming",
        "category_id": s.home.dining,
        "frequency": "monthly",
    }


SCENARIOS: dict[str, Scenario] = {
    "getUser": lambda api, s: api.get("/user"),
    "getPlans": lambda api, s: api.get("/plans", params={"include_accounts": "true"}),
    "getPlanById": lambda api, s: api.get(s.base),
    "getPlanSettingsById": lambda api, s: api.get(f"{s.base}/settings"),
    "getAccounts": lambda api, s: api.get(f"{s.base}/accounts"),
    "createAccount": lambda api, s: api.post(
        f"{s.base}/accounts", json={"account": {"name": "New card", "type": "creditCard", "balance": -5_000}}
    ),
    "getAccountById": lambda api, s: api.get(f"{s.base}/accounts/{s.home.checking}"),
    "getCategories": lambda api, s: api.get(f"{s.base}/categories"),
    "createCategory": lambda api, s: api.post(
        f"{s.base}/categories",
        json={
            "category": {"name": "Gifts", "category_group_id": s.home.everyday_group, "goal_target": 50_000}
        },
    ),
    "getCategoryById": lambda api, s: api.get(f"{s.base}/categories/{s.home.groceries}"),
    "updateCategory": lambda api, s: api.patch(
        f"{s.base}/categories/{s.home.dining}",
        json={"category": {"note": "eating out", "goal_target": 120_000}},
    ),
    "getMonthCategoryById": lambda api, s: api.get(
        f"{s.base}/months/{CURRENT}/categories/{s.home.groceries}"
    ),
    "updateMonthCategory": lambda api, s: api.patch(
        f"{s.base}/months/{CURRENT}/categories/{s.home.rent}", json={"category": {"budgeted": 1_200_000}}
    ),
    "createCategoryGroup": lambda api, s: api.post(
        f"{s.base}/category_groups", json={"category_group": {"name": "Fun"}}
    ),
    "updateCategoryGroup": lambda api, s: api.patch(
        f"{s.base}/category_groups/{s.home.everyday_group}", json={"category_group": {"name": "Day to day"}}
    ),
    "getPayees": lambda api, s: api.get(f"{s.base}/payees"),
    "createPayee": lambda api, s: api.post(f"{s.base}/payees", json={"payee": {"name": "Farmers Market"}}),
    "getPayeeById": lambda api, s: api.get(f"{s.base}/payees/{s.payee_id}"),
    "updatePayee": lambda api, s: api.patch(
        f"{s.base}/payees/{s.payee_id}", json={"payee": {"name": "Corner Shop"}}
    ),
    "getPayeeLocations": lambda api, s: api.get(f"{s.base}/payee_locations"),
    "getPayeeLocationById": lambda api, s: api.get(f"{s.base}/payee_locations/{s.payee_location_id}"),
    "getPayeeLocationsByPayee": lambda api, s: api.get(f"{s.base}/payees/{s.payee_id}/payee_locations"),
    "getPlanMonths": lambda api, s: api.get(f"{s.base}/months"),
    "getPlanMonth": lambda api, s: api.get(f"{s.base}/months/{CURRENT}"),
    "getMoneyMovements": lambda api, s: api.get(f"{s.base}/money_movements"),
    "getMoneyMovementsByMonth": lambda api, s: api.get(f"{s.base}/months/{CURRENT}/money_movements"),
    "getMoneyMovementGroups": lambda api, s: api.get(f"{s.base}/money_movement_groups"),
    "getMoneyMovementGroupsByMonth": lambda api, s: api.get(
        f"{s.base}/months/{CURRENT}/money_movement_groups"
    ),
    "getTransactions": lambda api, s: api.get(f"{s.base}/transactions"),
    "createTransaction": _new_transaction,
    "updateTransactions": lambda api, s: api.patch(
        f"{s.base}/transactions",
        json={
            "transactions": [{"id": s.transaction_id, "approved": True}, {"id": s.split_id, "memo": "split"}]
        },
    ),
    "importTransactions": lambda api, s: api.post(f"{s.base}/transactions/import"),
    "getTransactionById": lambda api, s: api.get(f"{s.base}/transactions/{s.split_id}"),
    "updateTransaction": lambda api, s: api.put(
        f"{s.base}/transactions/{s.transaction_id}",
        json={"transaction": {"memo": "updated", "flag_color": None}},
    ),
    "deleteTransaction": lambda api, s: api.delete(f"{s.base}/transactions/{_throwaway(api, s)}"),
    "getTransactionsByAccount": lambda api, s: api.get(f"{s.base}/accounts/{s.home.checking}/transactions"),
    "getTransactionsByCategory": lambda api, s: api.get(
        f"{s.base}/categories/{s.home.groceries}/transactions"
    ),
    "getTransactionsByPayee": lambda api, s: api.get(f"{s.base}/payees/{s.payee_id}/transactions"),
    "getTransactionsByMonth": lambda api, s: api.get(f"{s.base}/months/{CURRENT}/transactions"),
    "getScheduledTransactions": lambda api, s: api.get(f"{s.base}/scheduled_transactions"),
    "createScheduledTransaction": lambda api, s: api.post(
        f"{s.base}/scheduled_transactions", json={"scheduled_transaction": _scheduled(api, s)}
    ),
    "getScheduledTransactionById": lambda api, s: api.get(
        f"{s.base}/scheduled_transactions/{s.scheduled_id}"
    ),
    "updateScheduledTransaction": lambda api, s: api.put(
        f"{s.base}/scheduled_transactions/{s.scheduled_id}",
        json={"scheduled_transaction": {**_scheduled(api, s), "memo": "rent", "flag_color": "red"}},
    ),
    "deleteScheduledTransaction": lambda api, s: api.delete(
        f"{s.base}/scheduled_transactions/"
        + api.post(
            f"{s.base}/scheduled_transactions", json={"scheduled_transaction": _scheduled(api, s)}
        ).json()["data"]["scheduled_transaction"]["id"]
    ),
}


@pytest.mark.parametrize("operation_id", operation_ids() or ["(spec absent)"])
def test_every_operation_answers_in_its_documented_shape(operation_id, scene_api, scene):
    spec_or_skip()
    scenario = SCENARIOS.get(operation_id)
    assert scenario is not None, f"no contract test covers {operation_id}"

    body = check(operation_id, scenario(scene_api, scene))

    assert "data" in body


def test_the_contract_scenarios_name_only_operations_of_the_spec():
    spec_or_skip()

    assert set(SCENARIOS) <= set(operation_ids())


def test_the_delta_export_has_the_documented_shape(scene_api, scene):
    scene_api.put(
        f"{scene.base}/transactions/{scene.transaction_id}", json={"transaction": {"memo": "again"}}
    )
    knowledge = scene.plan.server_knowledge

    body = check("getPlanById", scene_api.get(scene.base, params={"last_knowledge_of_server": knowledge}))

    assert body["data"]["server_knowledge"] > knowledge


def test_the_errors_have_ynabs_envelope(sandbox_url, scene_api, scene):
    missing = "00000000-0000-4000-8000-000000000000"
    unauthorised = httpx2.get(f"{sandbox_url}{scene.base}/accounts", timeout=15)
    not_found = scene_api.get(f"{scene.base}/transactions/{missing}")
    invalid = scene_api.post(f"{scene.base}/transactions", json={"transaction": {"account_id": "nope"}})
    item = {
        "account_id": scene.home.checking,
        "date": utc_today().isoformat(),
        "amount": -1,
        "import_id": "dup:1",
    }
    scene_api.post(f"{scene.base}/transactions", json={"transaction": item})
    duplicate = scene_api.post(f"{scene.base}/transactions", json={"transaction": item})

    assert check("getAccounts", unauthorised, status=401)["error"]["id"] == "401"
    assert check("getTransactionById", not_found, status=404)["error"]["id"] == "404.2"
    assert check("createTransaction", invalid, status=400)["error"]["id"] == "400"
    assert check("createTransaction", duplicate, status=409)["error"]["id"] == "409"


def test_a_transfer_posted_by_its_payee_answers_in_shape_and_its_sides_are_deleted_together(scene_api, scene):
    """What transfer_money sends: one transaction on the source account whose payee is the
    destination's transfer payee (list form, cleared, approved). YNAB enters the other side, linked
    both ways, and deleting the source side deletes both."""
    spec_or_skip()
    card = check("getAccountById", scene_api.get(f"{scene.base}/accounts/{scene.home.card}"))["data"][
        "account"
    ]
    item = {
        "account_id": scene.home.checking,
        "date": utc_today().isoformat(),
        "amount": -150_000,
        "payee_id": card["transfer_payee_id"],
        "memo": "card bill",
        "cleared": "cleared",
        "approved": True,
    }

    created = check(
        "createTransaction", scene_api.post(f"{scene.base}/transactions", json={"transactions": [item]})
    )
    [sent] = created["data"]["transactions"]
    pair_path = f"{scene.base}/transactions/{sent['transfer_transaction_id']}"
    pair = check("getTransactionById", scene_api.get(pair_path))["data"]["transaction"]
    deleted = check("deleteTransaction", scene_api.delete(f"{scene.base}/transactions/{sent['id']}"))

    assert (sent["transfer_account_id"], sent["cleared"], sent["approved"]) == (
        scene.home.card,
        "cleared",
        True,
    )
    assert (pair["account_id"], pair["amount"], pair["memo"]) == (scene.home.card, 150_000, "card bill")
    assert (pair["transfer_account_id"], pair["transfer_transaction_id"]) == (scene.home.checking, sent["id"])
    assert deleted["data"]["transaction"]["deleted"] is True
    assert check("getTransactionById", scene_api.get(pair_path), status=404)["error"]["id"] == "404.2"
