"""The OAuth consent page in Chromium: Allow and Deny (by mouse and by keyboard), the login on
the way that names the client, the pages' fit at 1366×768 and at a phone's width, and the
whole sign-in of the MCP SDK's client with the owner logging in and answering in the browser.

The client's redirect URI is a real listener on 127.0.0.1 (`LoopbackCallback`), as for a
native client: the browser is sent there with the code, and the SDK reads it from there.
"""

from __future__ import annotations

from urllib.parse import urlencode

import httpx2
import pytest
from mcp.shared.auth import AuthorizationCodeResult
from playwright.async_api import Browser, Page, expect

from avenir_mcp.oauth.models import OAuthGrant
from tests.browser.chromium import (
    LAPTOP,
    PHONE,
    OwnerLogin,
    fits_the_width,
    on_its_own_page,
    submit_login_form,
)
from tests.helpers.oauth import (
    MemoryStorage,
    Pkce,
    authorization_url,
    mcp_with_oauth,
    oauth_client,
    register,
)
from tests.oauth.callback import LoopbackCallback

pytestmark = pytest.mark.anyio


async def test_allow_sends_a_code_the_client_exchanges(owner_page: Page, live_service):
    page = owner_page
    async with LoopbackCallback() as callback, httpx2.AsyncClient(timeout=30) as http:
        client = await register(
            http, live_service.url, redirect_uris=[callback.redirect_uri], client_name="Claude"
        )
        pkce = Pkce.new()

        await page.set_viewport_size(LAPTOP)
        await page.goto(authorization_url(live_service.url, client, pkce, redirect_uri=callback.redirect_uri))
        await expect(page.get_by_role("heading", level=1)).to_have_text("Allow Claude to read your plans?")
        await expect(page.locator("#redirect-host")).to_have_text(callback.redirect_uri.split("/")[2])
        await on_its_own_page(page)
        assert await fits_the_width(page)
        await page.get_by_role("button", name="Allow").click()
        sent_back = await callback.received()
        token = await http.post(
            f"{live_service.url}/token",
            data={
                "grant_type": "authorization_code",
                "code": sent_back["code"],
                "redirect_uri": callback.redirect_uri,
                "code_verifier": pkce.verifier,
                **client.credentials,
            },
        )
        await expect(page).to_have_title("Signed in")

    assert sent_back["state"] == "state-42"
    assert token.status_code == 200
    assert token.json()["scope"] == "plans:read"


async def test_deny_sends_access_denied_and_no_code(owner_page: Page, live_service):
    page = owner_page
    async with LoopbackCallback() as callback, httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, live_service.url, redirect_uris=[callback.redirect_uri])
        url = authorization_url(
            live_service.url,
            client,
            Pkce.new(),
            redirect_uri=callback.redirect_uri,
            scope="plans:read plans:write",
        )

        await page.set_viewport_size(PHONE)
        await page.goto(url)
        await expect(page.get_by_role("heading", level=1)).to_have_text(
            "Allow Raw client to read your plans and propose changes?"
        )
        assert await fits_the_width(page)
        await expect(page.get_by_label("Read only")).not_to_be_checked()
        await page.get_by_role("button", name="Deny").click()
        sent_back = await callback.received()
        await expect(page).to_have_title("Signed in")

    assert sent_back["error"] == "access_denied"
    assert sent_back["state"] == "state-42"
    assert "code" not in sent_back
    assert not await OAuthGrant.objects.filter(client__client_id=client.client_id).aexists()


async def test_allow_is_the_first_answer_the_keyboard_reaches_and_both_fit_a_laptop_screen(
    owner_page: Page, live_service
):
    page = owner_page
    async with LoopbackCallback() as callback, httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, live_service.url, redirect_uris=[callback.redirect_uri])
        url = authorization_url(
            live_service.url,
            client,
            Pkce.new(),
            redirect_uri=callback.redirect_uri,
            scope="plans:read plans:write",
        )
        await page.set_viewport_size(LAPTOP)
        await page.goto(url)
        allow, deny = page.get_by_role("button", name="Allow"), page.get_by_role("button", name="Deny")
        await expect(allow).to_be_in_viewport(ratio=1)
        await expect(deny).to_be_in_viewport(ratio=1)
        allow_box, deny_box = await allow.bounding_box(), await deny.bounding_box()

        focused = [await page.evaluate("document.activeElement.id")]
        while focused[-1] != "consent-allow" and len(focused) < 10:
            await page.keyboard.press("Tab")
            focused.append(await page.evaluate("document.activeElement.id"))
        await page.keyboard.press("Enter")
        sent_back = await callback.received()

    assert focused[-1] == "consent-allow", focused
    assert "consent-deny" not in focused  # Allow comes first
    assert allow_box is not None
    assert deny_box is not None
    assert allow_box["height"] >= 44  # a large target, not a bare button
    assert allow_box["width"] >= 100
    assert deny_box["height"] == allow_box["height"]
    assert "code" in sent_back


async def test_the_refusal_is_on_its_own_page(browser: Browser, owner_page: Page, live_service):
    # In a context of its own, unwatched (Chromium logs the page's 400 status as a console
    # error), with the owner's session.
    context = await browser.new_context(base_url=live_service.url, viewport=PHONE)
    try:
        await context.add_cookies(await owner_page.context.cookies())
        page = await context.new_page()
        response = await page.goto("/oauth/consent?request=forged")

        await expect(page.locator("#oauth-refusal")).to_have_text(
            "This sign-in link is invalid or expired: start again from the client."
        )
        await on_its_own_page(page)
        fits = await fits_the_width(page)
    finally:
        await context.close()

    assert response is not None
    assert response.status == 400
    assert fits


async def test_an_owner_not_signed_in_is_told_who_asks_then_answers(
    page: Page, owner_login: OwnerLogin, live_service
):
    async with LoopbackCallback() as callback, httpx2.AsyncClient(timeout=30) as http:
        client = await register(
            http, live_service.url, redirect_uris=[callback.redirect_uri], client_name="Claude"
        )
        url = authorization_url(
            live_service.url,
            client,
            Pkce.new(),
            redirect_uri=callback.redirect_uri,
            scope="plans:read plans:write",
        )
        for viewport in (PHONE, LAPTOP):
            await page.set_viewport_size(viewport)
            await page.goto(url)
            await expect(page.get_by_role("heading", level=1)).to_have_text(
                "Claude asks to read your plans and propose changes; sign in to answer."
            )
            await on_its_own_page(page)
            assert await fits_the_width(page), viewport

        await submit_login_form(page, owner_login, password="not the password")
        await expect(page.locator(".errornote")).to_contain_text(
            "Please enter the correct username and password"
        )
        await expect(page.get_by_role("heading", level=1)).to_contain_text("Claude asks to read your plans")
        await submit_login_form(page, owner_login)
        await expect(page.get_by_role("heading", level=1)).to_have_text(
            "Allow Claude to read your plans and propose changes?"
        )
        await page.get_by_role("button", name="Deny").click()
        sent_back = await callback.received()

    assert sent_back["error"] == "access_denied"


async def test_a_tampered_consent_request_in_next_shows_the_plain_login(page: Page, live_service):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, live_service.url, client_name="Claude")
        to_consent = await http.get(authorization_url(live_service.url, client, Pkce.new()))
    consent = to_consent.headers["location"].removeprefix(live_service.url)

    await page.goto(f"/admin/login/?{urlencode({'next': consent[:-4] + 'AAAA'})}")

    await expect(page.get_by_role("heading", level=1)).to_have_text("Sign in to avenir-mcp")
    await expect(page.locator("body")).not_to_contain_text("Claude")
    await on_its_own_page(page)


class OwnerInChromium:
    """The SDK's redirect and callback handlers: the authorization URL opens in Chromium, the
    owner logs in with the admin's form and answers; the code comes back through the listener."""

    def __init__(self, page: Page, owner: OwnerLogin, callback: LoopbackCallback, *, read_only: bool) -> None:
        self.page, self.owner, self.callback, self.read_only = page, owner, callback, read_only

    async def redirect_handler(self, authorization_url: str) -> None:
        page = self.page
        await page.goto(authorization_url)
        await expect(page.get_by_role("heading", level=1)).to_contain_text(
            "Browser connector asks to read your plans"
        )
        await submit_login_form(page, self.owner)
        await expect(page.get_by_role("heading", level=1)).to_contain_text("Allow Browser connector to read")
        if self.read_only:
            await page.get_by_label("Read only").check()
        await page.get_by_role("button", name="Allow").click()

    async def callback_handler(self) -> AuthorizationCodeResult:
        sent_back = await self.callback.received()
        return AuthorizationCodeResult(code=sent_back["code"], state=sent_back["state"], iss=sent_back["iss"])


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_the_sdk_client_signs_in_with_the_owner_answering_in_chromium(
    page: Page, owner_login: OwnerLogin, live_service, settings, mode
):
    owner = owner_login
    settings.AVENIR_MCP_WRITE = True
    storage = MemoryStorage()
    async with LoopbackCallback() as callback:
        owner_in_chromium = OwnerInChromium(page, owner, callback, read_only=True)
        auth = oauth_client(
            live_service.url,
            owner_in_chromium,
            storage,
            name="Browser connector",
            redirect_uri=callback.redirect_uri,
        )
        async with mcp_with_oauth(live_service.url, auth, mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
        await expect(page).to_have_title("Signed in")

    assert "list_plans" in names
    assert "set_category_budget" not in names  # the owner chose read only
    assert storage.tokens.scope == "plans:read"
    grant = await OAuthGrant.objects.select_related("owner").aget(
        client__client_id=storage.client_info.client_id
    )
    assert grant.owner.username == owner.username
