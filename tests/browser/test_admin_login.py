"""The owner logs in to the admin with the login form, in Chromium."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Owner

pytestmark = pytest.mark.anyio


async def test_the_owner_logs_in_and_reaches_the_admin_index(page: Page, owner: Owner):
    await page.goto("/admin/")
    await expect(page).to_have_url("/admin/login/?next=/admin/")

    await page.get_by_label("Username").fill(owner.username)
    await page.get_by_label("Password").fill(owner.password)
    await page.get_by_role("button", name="Log in").click()

    await expect(page).to_have_url("/admin/")
    await expect(page.locator("#user-tools")).to_contain_text(owner.username)
    await expect(page.get_by_role("link", name="Operations")).to_be_visible()
    await expect(page.get_by_role("link", name="Pending confirmations")).to_be_visible()


async def test_a_wrong_password_is_refused_on_the_login_page(page: Page, owner: Owner):
    await page.goto("/admin/login/")

    await page.get_by_label("Username").fill(owner.username)
    await page.get_by_label("Password").fill("not the password")
    await page.get_by_role("button", name="Log in").click()

    await expect(page.locator(".errornote")).to_contain_text("Please enter the correct username and password")
    await expect(page).to_have_url("/admin/login/")
