"""The owner logs in to the admin with the login form, in Chromium."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from playwright.async_api import Page, expect

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Owner:
    username: str
    password: str


@pytest.fixture
def owner() -> Owner:
    """The owner with a password, to type into the login form."""
    owner = Owner(f"owner-{uuid.uuid4().hex[:10]}", uuid.uuid4().hex)
    User.objects.create_superuser(username=owner.username, password=owner.password)
    return owner


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
