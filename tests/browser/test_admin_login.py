"""The owner logs in to the admin with the login form, in Chromium."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.chromium import LAPTOP, OwnerLogin, fits_the_width, on_its_own_page, submit_login_form

pytestmark = pytest.mark.anyio


async def test_the_owner_logs_in_and_reaches_the_admin_index(page: Page, owner_login: OwnerLogin):
    await page.goto("/admin/")
    await expect(page).to_have_url("/admin/login/?next=/admin/")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to avenir-mcp")
    await expect(page).to_have_title("Sign in · avenir-mcp")
    await on_its_own_page(page)

    await submit_login_form(page, owner_login)

    await expect(page).to_have_url("/admin/")
    await expect(page.locator("#user-tools")).to_contain_text(owner_login.username)
    await expect(page.get_by_role("link", name="Operations")).to_be_visible()
    await expect(page.get_by_role("link", name="Pending confirmations")).to_be_visible()


async def test_a_wrong_password_is_refused_on_the_login_page(page: Page, owner_login: OwnerLogin):
    await page.set_viewport_size(LAPTOP)
    await page.goto("/admin/login/")

    await submit_login_form(page, owner_login, password="not the password")

    await expect(page.locator(".errornote")).to_contain_text("Please enter the correct username and password")
    await expect(page).to_have_url("/admin/login/")
    await expect(page).to_have_title("Error: Sign in · avenir-mcp")
    assert await fits_the_width(page)
