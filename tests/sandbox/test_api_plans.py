"""The user, the plans list, settings, auth, unknown routes and the old /budgets names."""

from __future__ import annotations

import httpx2

from avenir_mcp.sandbox.models import Account, Plan
from tests.sandbox.contract import check
from tests.sandbox.plans import small_plan


def test_it_answers_the_user(api):
    body = check("getUser", api.get("/user"))

    assert body["data"]["user"]["id"]


def test_it_lists_the_plans_with_their_accounts_when_asked(api, home):
    body = check("getPlans", api.get("/plans", params={"include_accounts": "true"}))

    mine = next(p for p in body["data"]["plans"] if p["id"] == home.id)
    assert mine["name"] == "Test household"
    assert mine["first_month"] == home.first_month.isoformat()
    names = {a["name"]: a for a in mine["accounts"]}
    assert names["Checking"]["balance"] == 1_000_000
    assert names["Checking"]["balance_formatted"] == "$1,000.00"
    assert "default_plan" in body["data"]


def test_it_answers_a_plans_settings(api, home):
    body = check("getPlanSettingsById", api.get(f"/plans/{home.id}/settings"))

    assert body["data"]["settings"]["currency_format"]["iso_code"] == "USD"
    assert body["data"]["settings"]["date_format"] == {"format": "MM/DD/YYYY"}


def test_it_refuses_a_request_without_the_token(sandbox_url):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic sandbox"}):
        response = httpx2.get(f"{sandbox_url}/plans", headers=headers)

        assert response.status_code == 401
        assert response.json() == {"error": {"id": "401", "name": "unauthorized", "detail": "Unauthorized"}}


def test_it_answers_404_1_for_a_route_that_does_not_exist(api):
    response = api.get("/plans/x/nothing-here")

    assert response.status_code == 404
    assert response.json()["error"]["id"] == "404.1"


def test_it_answers_404_2_for_a_plan_that_does_not_exist(api):
    response = api.get("/plans/3f1e0b1c-0000-4000-8000-000000000000/settings")

    body = check("getPlanSettingsById", response, status=404)
    assert body["error"] == {"id": "404.2", "name": "resource_not_found", "detail": "Resource not found"}


def test_the_old_budgets_paths_answer_with_the_old_member_names(api, home):
    listing = api.get("/budgets").json()["data"]
    settings = api.get(f"/budgets/{home.id}/settings").json()["data"]

    assert set(listing) == {"budgets", "default_budget"}
    assert any(b["id"] == home.id for b in listing["budgets"])
    assert settings["settings"]["currency_format"]["iso_code"] == "USD"


def test_last_used_names_the_plan_opened_most_recently(api, home):
    other = small_plan("Other household")

    api.get(f"/plans/{home.id}").raise_for_status()
    first = api.get("/plans/last-used/settings")
    api.get(f"/plans/{other.id}").raise_for_status()
    accounts = api.get("/plans/last-used/accounts").json()["data"]["accounts"]

    assert first.status_code == 200
    assert {a["id"] for a in accounts} == set(
        Account.objects.filter(plan=other.plan).values_list("id", flat=True)
    )


def test_default_names_the_plan_marked_default(api, home):
    Plan.objects.filter(is_default=True).update(is_default=False)
    Plan.objects.filter(pk=home.id).update(is_default=True)

    listing = api.get("/plans").json()["data"]
    export = api.get("/plans/default").json()["data"]

    assert listing["default_plan"]["id"] == home.id
    assert export["plan"]["id"] == home.id
    Plan.objects.filter(pk=home.id).update(is_default=False)


def test_the_old_plan_export_is_named_budget(api, home):
    data = api.get(f"/budgets/{home.id}").json()["data"]

    assert set(data) == {"budget", "server_knowledge"}
    assert data["budget"]["id"] == home.id
