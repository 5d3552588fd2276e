"""Every authorization response names the issuer (`iss`, RFC 9207), as the metadata says."""

from __future__ import annotations

import httpx2
import pytest

from tests.helpers.oauth import (
    REDIRECT_URI,
    Pkce,
    authorization_url,
    query_of,
    register,
)

pytestmark = pytest.mark.anyio


async def issuer(http: httpx2.AsyncClient, base_url: str) -> str:
    metadata = (await http.get(f"{base_url}/.well-known/oauth-authorization-server")).json()
    assert metadata["authorization_response_iss_parameter_supported"] is True
    return metadata["issuer"]


@pytest.mark.parametrize("decision", ["allow", "deny"])
async def test_the_owners_answer_sent_back_names_the_issuer(live_service, http, browser, decision):
    client, pkce = await register(http, live_service.url), Pkce.new()
    browser.decision = decision

    await browser.redirect_handler(authorization_url(live_service.url, client, pkce))

    sent_back = query_of(browser.sent_back_to[-1])
    assert browser.sent_back_to[-1].startswith(REDIRECT_URI)
    assert sent_back["iss"] == await issuer(http, live_service.url)
    assert sent_back["state"] == "state-42"
    assert ("code" in sent_back) == (decision == "allow")


async def test_an_error_sent_back_by_the_authorization_endpoint_names_the_issuer(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(authorization_url(live_service.url, client, pkce, scope="plans:everything"))

    sent_back = query_of(answer.headers["location"])
    assert answer.headers["location"].startswith(REDIRECT_URI)
    assert sent_back["error"] == "invalid_scope"
    assert sent_back["iss"] == await issuer(http, live_service.url)


async def test_the_issuer_follows_the_public_url(live_service, http, browser, settings):
    settings.AVENIR_MCP_PUBLIC_URL = "https://mcp.example.com"
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(
        authorization_url(live_service.url, client, pkce, code_challenge_method="plain")
    )

    assert query_of(answer.headers["location"])["iss"] == "https://mcp.example.com"
    assert await issuer(http, live_service.url) == "https://mcp.example.com"


async def test_the_way_to_the_consent_page_carries_no_issuer(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(authorization_url(live_service.url, client, pkce))

    assert answer.headers["location"].startswith(f"{live_service.url}/oauth/consent?")
    assert "iss" not in query_of(answer.headers["location"])
