"""MCP tokens in Chromium: the owner creates one (shown once), an agent uses it, the owner revokes it.

The token is used with the SDK's client on the live service's /mcp; once revoked, /mcp answers
it 401.
"""

from __future__ import annotations

import re
import uuid

import httpx2
import pytest
from playwright.async_api import Page, expect

from avenir_mcp.tokens.models import McpToken
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.raw_mcp import INITIALIZE, MCP_HEADERS
from tests.served import ServedApp

pytestmark = pytest.mark.anyio

TOKENS = "/admin/tokens/mcptoken/"


async def initialize_status(base_url: str, token: str) -> int:
    """The status /mcp answers an initialize request sent with `token`."""
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(f"{base_url}/mcp", json=INITIALIZE, headers=headers)
    return response.status_code


async def test_the_owner_creates_a_token_the_agent_uses_then_revokes_it(
    owner_page: Page, live_service: ServedApp
):
    name = f"Browser laptop {uuid.uuid4().hex[:8]}"
    page = owner_page

    await page.goto("/admin/")
    await page.get_by_role("link", name="MCP tokens").click()
    await page.get_by_role("link", name="Add MCP token").click()
    await page.get_by_label("Name").fill(name)
    await expect(page.get_by_label("Scope")).to_have_value(McpToken.SCOPE_READ)  # read-only unless chosen
    await page.get_by_role("button", name="Save", exact=True).click()

    shown = page.locator(".messagelist .warning code")
    await expect(shown).to_have_text(re.compile(r"^avm_[\w-]+$"))
    token = await shown.text_content()
    await expect(page.locator(".messagelist .warning")).to_contain_text("it will not be shown again")
    async with mcp_over_http(live_service.url, token) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
    assert "list_plans" in tools
    assert "set_category_budget" not in tools  # read-only

    await page.goto(TOKENS)
    await page.locator("#searchbar").fill(name)
    await page.locator("#changelist-search").get_by_role("button", name="Search").click()
    row = page.locator("#result_list tbody tr", has_text=name)
    await expect(row).to_have_count(1)
    await expect(row).to_contain_text("read-only")
    await expect(row.locator(".field-last_used_at")).not_to_have_text("-")  # the agent's use shows
    await expect(row.locator(".field-revoked_at")).to_have_text("-")
    await row.get_by_role("checkbox").check()
    await page.locator("select[name=action]").select_option(label="Revoke the selected tokens")
    await page.get_by_role("button", name="Go").click()

    await expect(page.locator(".messagelist .info")).to_have_text(
        "1 token(s) revoked; they are refused from now on."
    )
    await expect(row.locator(".field-revoked_at")).not_to_have_text("-")
    assert await initialize_status(live_service.url, token) == 401
