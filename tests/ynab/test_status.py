"""The YNAB side of /api/health and of the admin: the hourly budget and the cached plans."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from django.contrib.auth.models import User
from django.test import Client

from avenir_mcp.sandbox.seeding import DEMO_PLAN_NAME
from avenir_mcp.ynab_client import plan_snapshot

pytestmark = pytest.mark.usefixtures("no_faults")


@pytest.fixture
def warm_plan(demo_plan_id) -> str:
    """The demo plan, loaded into the process's cache through the public entry point."""
    asyncio.run(plan_snapshot(demo_plan_id))
    return demo_plan_id


def _ynab_health(live_service) -> dict:
    return httpx2.get(f"{live_service.url}/api/health", timeout=10).json()["ynab"]


def test_health_counts_the_last_hour_and_lists_cached_plans_by_id_only(live_service, warm_plan):
    before = _ynab_health(live_service)
    asyncio.run(plan_snapshot(warm_plan))  # warm: exactly one delta request

    after = _ynab_health(live_service)

    assert after["requests_last_hour"] == before["requests_last_hour"] + 1
    # a sandbox is not paced: no limit
    assert (after["token"], after["limit"], after["paused_until"]) == ("sandbox", None, None)
    assert after["base_url"].endswith("/sandbox/v1")
    [plan] = [plan for plan in after["cached_plans"] if plan["plan_id"] == warm_plan]
    assert plan["counts"]["transactions"] > 0
    assert plan["server_knowledge"] > 0
    assert "name" not in plan  # health needs no login: plan names stay in the admin


def test_the_admin_lists_ynab_requests_read_only_with_the_budget_and_the_cache(warm_plan):
    owner = User.objects.create_superuser(f"owner-{warm_plan[:8]}", password="x")
    browser = Client()
    browser.force_login(owner)

    page = browser.get("/admin/ynab_requests/ynabrequest/")
    add = browser.get("/admin/ynab_requests/ynabrequest/add/")

    text = page.content.decode()
    assert page.status_code == 200
    assert "requests in the last hour" in text
    assert f"<code>{warm_plan}</code>" in text  # the plan cache table
    assert DEMO_PLAN_NAME in text
    assert f"/plans/{warm_plan}" in text  # the request log below it
    assert add.status_code == 403
