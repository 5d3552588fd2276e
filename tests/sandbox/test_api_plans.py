"""The user, the plans list, settings, auth, unknown routes and the old /budgets names."""

from __future__ import annotations

import httpx

from tests.sandbox.contract import check


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
        response = httpx.get(f"{sandbox_url}/plans", headers=headers)

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
