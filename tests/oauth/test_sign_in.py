"""The MCP SDK's OAuth client signs in to the running service and uses /mcp, at both eras:
registration, the owner's consent, code exchange, tools/list, refresh, revocation."""

from __future__ import annotations

import time
import uuid

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE, OAuthClient, OAuthGrant, OAuthToken
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tokens.models import hash_token
from avenir_mcp.ynab_client.client import tls_context
from tests.helpers.oauth import MemoryStorage, mcp_with_oauth, oauth_client, owner_browser
from tests.helpers.raw_mcp import post_initialize
from tests.writes.assigned_plans import DINING_ASSIGNED, assigned, budget_home

pytestmark = pytest.mark.anyio

MODES = ("2026-07-28", "legacy")


async def tool_names(client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_client_registers_gets_the_owners_consent_and_lists_the_tools(
    live_service, owner, settings, mode
):
    settings.AVENIR_MCP_WRITE = True
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with owner_browser(live_service.url, owner) as browser:
            auth = oauth_client(live_service.url, browser, storage, name=f"Connector {mode}")
            async with mcp_with_oauth(live_service.url, auth, mode) as client:
                names = await tool_names(client)

    grant = await OAuthGrant.objects.select_related("client").aget(
        client__client_id=storage.client_info.client_id
    )
    assert "list_plans" in names
    assert "set_category_budget" in names
    assert f"Allow Connector {mode} to read your plans and propose changes?" in browser.pages[0]
    assert "127.0.0.1:8765" in browser.pages[0]
    assert storage.tokens.access_token.startswith("avo_")
    assert storage.tokens.scope == f"{SCOPE_READ} {SCOPE_WRITE}"
    assert grant.owner_id == owner.pk
    assert grant.resource == f"{live_service.url}/mcp"
    assert grant.last_used_at is not None
    assert await OAuthToken.objects.filter(token_hash=hash_token(storage.tokens.access_token)).aexists()


@pytest.mark.parametrize("mode", MODES)
async def test_a_read_only_grant_neither_sees_nor_calls_a_write_tool(live_service, owner, settings, mode):
    settings.AVENIR_MCP_WRITE = True
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with (
            owner_browser(live_service.url, owner, access="read") as browser,
            mcp_with_oauth(
                live_service.url, oauth_client(live_service.url, browser, storage), mode
            ) as client,
        ):
            names = await tool_names(client)
            called = await client.call_tool("set_category_budget", {"category_id": "x", "month": "current"})

    assert storage.tokens.scope == SCOPE_READ
    assert "list_plans" in names
    assert "set_category_budget" not in names
    assert called.is_error
    assert called.content[0].text == "Unknown tool: set_category_budget"


@pytest.mark.parametrize("mode", MODES)
async def test_an_expired_access_token_is_refreshed_and_the_refresh_token_rotates(live_service, owner, mode):
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with owner_browser(live_service.url, owner) as browser:
            auth = oauth_client(live_service.url, browser, storage)
            async with mcp_with_oauth(live_service.url, auth, mode) as client:
                await tool_names(client)
                first = storage.tokens
                # An hour later: the service no longer takes the access token, and the client knows it.
                await (
                    OAuthToken.objects.filter(kind=OAuthToken.Kind.ACCESS)
                    .filter(grant__client__client_id=storage.client_info.client_id)
                    .aupdate(expires_at=timezone.now())
                )
                auth.context.token_expiry_time = time.time() - 1
                names = await tool_names(client)

    second = storage.tokens
    assert "list_plans" in names
    assert len(browser.pages) == 1  # no second consent: the refresh token did it
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token
    assert second.refresh_token.startswith("avr_")


async def test_a_revoked_grant_is_refused_at_once_and_the_client_must_ask_again(live_service, owner):
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with owner_browser(live_service.url, owner) as browser:
            auth = oauth_client(live_service.url, browser, storage)
            async with mcp_with_oauth(live_service.url, auth, "2026-07-28") as client:
                await tool_names(client)
            tokens, registered = storage.tokens, storage.client_info
            credentials = {"client_id": registered.client_id, "client_secret": registered.client_secret}
            async with httpx2.AsyncClient(timeout=30, verify=tls_context()) as http:
                revoked = await http.post(
                    f"{live_service.url}/revoke", data={"token": tokens.access_token, **credentials}
                )
                raw = await post_initialize(http, live_service.url, tokens.access_token)
                refreshed = await http.post(
                    f"{live_service.url}/token",
                    data={
                        "grant_type": "refresh_token",
                        "refresh_token": tokens.refresh_token,
                        **credentials,
                    },
                )
            browser.decision = "deny"
            with pytest.raises(BaseExceptionGroup) as refused_again:
                async with mcp_with_oauth(live_service.url, auth, "legacy") as client:
                    await tool_names(client)

    assert revoked.status_code == 200
    assert raw.status_code == 401
    challenge = raw.headers["WWW-Authenticate"]
    assert 'error="invalid_token"' in challenge
    assert f'resource_metadata="{live_service.url}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert 'scope="plans:read plans:write"' in challenge
    assert refreshed.status_code == 400
    assert refreshed.json()["error"] == "invalid_grant"
    assert len(browser.pages) == 2
    assert "error=access_denied" in browser.sent_back_to[-1]
    assert refused_again.group_contains(PermissionError, match="access_denied")


async def test_the_client_is_recorded_with_only_the_hash_of_its_secret(live_service, owner):
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with (
            owner_browser(live_service.url, owner) as browser,
            mcp_with_oauth(
                live_service.url, oauth_client(live_service.url, browser, storage), "legacy"
            ) as client,
        ):
            await tool_names(client)

    row = await OAuthClient.objects.aget(client_id=storage.client_info.client_id)
    assert storage.client_info.client_secret not in str(row.registration)
    assert row.secret_matches(storage.client_info.client_secret)
    assert row.last_used_at is not None


async def test_a_read_write_grants_change_waits_for_the_owner_and_is_logged_as_the_client(
    live_service, owner, settings
):
    settings.AVENIR_MCP_WRITE = True
    budget = await sync_to_async(budget_home)(f"OAuth household {uuid.uuid4().hex[:8]}")
    arguments = {
        "plan_id": budget.id,
        "month": budget.month[:7],
        "category_id": budget.home.dining,
        "amount": "150.00",
    }
    storage = MemoryStorage()
    with anyio.fail_after(60):
        async with owner_browser(live_service.url, owner) as browser:
            auth = oauth_client(live_service.url, browser, storage, name="Writer")
            async with mcp_with_oauth(live_service.url, auth, "2026-07-28") as client:
                proposed = await client.call_tool("set_category_budget", arguments)
                untouched = await assigned(budget, budget.home.dining)
                code = proposed.structured_content["confirmation"]
                applied = await client.call_tool("set_category_budget", {**arguments, "confirmation": code})

    operation = await Operation.objects.aget(pk=applied.structured_content["operation_id"])
    assert proposed.structured_content["status"] == "confirmation_required"
    assert untouched == DINING_ASSIGNED
    assert applied.structured_content["status"] == "applied"
    assert await assigned(budget, budget.home.dining) == 150_000
    assert operation.client == "OAuth: Writer"
    assert operation.token_id is None


def test_a_local_principal_cannot_pass_for_an_oauth_grant():
    with pytest.raises(ValueError, match="pass for a token"):
        Principal.local("oauth:1")
    assert Principal(token_id=None, name="OAuth: Claude", read_only=True, grant_id=7).key == "oauth:7"
