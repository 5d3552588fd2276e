"""The service's foundation: it serves, over a real socket, what make run serves."""

from __future__ import annotations

import httpx


def test_it_answers_health_over_http(live_service):
    response = httpx.get(f"{live_service.url}/api/health")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_it_serves_the_api_docs(live_service):
    response = httpx.get(f"{live_service.url}/api/openapi.json")

    assert response.status_code == 200
    assert "/api/health" in response.json()["paths"]


def test_it_serves_the_admin_login_with_its_styles(live_service):
    login = httpx.get(f"{live_service.url}/admin/login/")
    css = httpx.get(f"{live_service.url}/static/admin/css/base.css")

    assert login.status_code == 200
    assert "Log in" in login.text
    assert css.status_code == 200
