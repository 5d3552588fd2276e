"""Every page the owner reaches from the admin index, the home page and the API docs load without errors.

The `page` fixture fails the test on any page error, console error or broken static file.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.anyio


async def status_of(page: Page, path: str) -> int:
    response = await page.goto(path)
    assert response is not None, path
    return response.status


async def test_every_page_linked_from_the_admin_index_loads_clean(owner_page: Page):
    page = owner_page
    await page.goto("/admin/")
    links = page.locator("#content-main a")
    hrefs = sorted({href for href in await links.evaluate_all("links => links.map(a => a.pathname)")})

    assert "/admin/oplog/operation/" in hrefs
    assert "/admin/confirmations/pending/" in hrefs
    for href in hrefs:
        assert await status_of(page, href) == 200, href
        await expect(page.locator("#content")).to_be_visible()


async def test_the_home_page_loads_clean(page: Page):
    assert await status_of(page, "/") == 200
    await expect(page.get_by_role("link", name="/admin/", exact=False).first).to_be_visible()


async def test_the_api_docs_load_clean(owner_page: Page):
    page = owner_page
    assert await status_of(page, "/api/docs") == 200
    await expect(page.locator(".swagger-ui .info .title")).to_be_visible()
