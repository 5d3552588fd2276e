"""The service's foundation: it serves, over a real socket, what make run serves."""

from __future__ import annotations

import html
import re
import sys
import uuid

import httpx2
import pytest
from django.test import Client

from avenir_mcp.values.toolsets import toolsets_named


def test_it_answers_health_over_http(live_service):
    response = httpx2.get(f"{live_service.url}/api/health")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_it_serves_the_api_docs(live_service):
    response = httpx2.get(f"{live_service.url}/api/openapi.json")

    assert response.status_code == 200
    assert "/api/health" in response.json()["paths"]


def test_it_serves_the_admin_login_with_its_styles(live_service):
    login = httpx2.get(f"{live_service.url}/admin/login/")
    css = httpx2.get(f"{live_service.url}/static/oauth/page.css")

    assert login.status_code == 200
    assert "Sign in to avenir-mcp" in login.text
    assert 'href="/static/oauth/page.css"' in login.text
    assert css.status_code == 200


def test_the_sign_in_and_the_admin_pages_show_the_service_icon(live_service, django_user_model):
    owner = django_user_model.objects.create_superuser(f"owner-{uuid.uuid4().hex[:8]}", password="x")
    browser = Client()
    browser.force_login(owner)
    pages = [httpx2.get(f"{live_service.url}/admin/login/").text, browser.get("/admin/").content.decode()]

    icons = [re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page) for page in pages]
    assert icons == [["/static/avenir_site/favicon.svg"]] * 2  # oauth/page.html, admin/base_site.html
    served = httpx2.get(f"{live_service.url}/static/avenir_site/favicon.svg")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("image/svg+xml")


def test_the_api_docs_page_needs_no_internet(live_service):
    page = httpx2.get(f"{live_service.url}/api/docs")
    scripts = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', page.text)
    assets = {url: httpx2.get(f"{live_service.url}{url}") for url in scripts}

    assert page.status_code == 200
    assert "/static/ninja/swagger-ui-bundle.js" in scripts
    assert all(url.startswith("/static/") for url in scripts), scripts  # nothing from a CDN
    assert {url: answer.status_code for url, answer in assets.items()} == dict.fromkeys(scripts, 200)
    assert "SwaggerUIBundle" in assets["/static/ninja/swagger-ui-bundle.js"].text


@pytest.mark.parametrize(
    ("writes", "toolsets", "shown"),
    [(False, "", "all"), (True, "insights,accounts", "plans, accounts, insights, operations")],
)
def test_the_home_page_says_what_runs_where(live_service, settings, writes, toolsets, shown):
    settings.AVENIR_MCP_WRITE = writes
    settings.AVENIR_MCP_TOOLSETS = toolsets_named(toolsets)

    page = httpx2.get(f"{live_service.url}/")

    assert page.status_code == 200
    text = html.unescape(re.sub(r"<[^>]+>", "", page.text))
    assert f"{live_service.url}/mcp" in text
    assert 'href="/admin/"' in page.text
    assert 'href="/api/docs"' in page.text
    assert "mcp_stdio" in text
    assert f"make stdio in {settings.BASE_DIR}; a client starts {sys.executable} " in " ".join(text.split())
    assert 'make token NAME="Claude Code"' in text
    assert ("Write tools on" if writes else "Write tools off") in " ".join(text.split())
    assert f"Toolsets {shown} (AVENIR_MCP_TOOLSETS;" in " ".join(text.split())


def test_the_admins_view_site_link_leads_to_the_home_page(live_service, django_user_model):
    user = django_user_model.objects.create_superuser(f"owner-{uuid.uuid4().hex[:8]}", password="x")
    browser = Client()
    browser.force_login(user)

    index = browser.get("/admin/").content.decode()
    view_site = re.search(r'<a href="([^"]*)">View site</a>', index)

    assert view_site is not None
    assert httpx2.get(f"{live_service.url}{view_site[1]}").status_code == 200


@pytest.mark.parametrize(
    ("api_key", "ynab_url", "said"),
    [
        ("", "", "the built-in sandbox (invented demo data; set YNAB_API_KEY for your real plan)"),
        (
            "a-personal-token",
            "https://api.ynab.com/v1",
            "YNAB at https://api.ynab.com/v1, with your personal access token",
        ),
        ("", "http://127.0.0.1:9/sandbox/v1", "http://127.0.0.1:9/sandbox/v1 (a sandbox)"),
    ],
)
def test_the_home_page_says_which_ynab_it_talks_to_and_never_the_token(
    live_service, settings, api_key, ynab_url, said
):
    settings.YNAB_API_KEY = api_key
    settings.AVENIR_MCP_YNAB_URL = ynab_url or settings.AVENIR_MCP_YNAB_URL
    settings.YNAB_IS_EMBEDDED_SANDBOX = not api_key and not ynab_url

    page = httpx2.get(f"{live_service.url}/")

    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.text)).split())
    assert said in text
    assert "a-personal-token" not in page.text
