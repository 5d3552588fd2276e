"""Revocation (RFC 7009) at /revoke for public and confidential clients, over real HTTP."""

from __future__ import annotations

import httpx2
import pytest

from tests.helpers.oauth import (
    OwnerAtConsent,
    Pkce,
    Registered,
    authorization_url,
    code_from_owner,
    exchange,
    register,
)
from tests.helpers.raw_mcp import post_initialize

pytestmark = pytest.mark.anyio


async def signed_in(
    http: httpx2.AsyncClient, base_url: str, browser: OwnerAtConsent, **metadata: str
) -> tuple[Registered, dict[str, str]]:
    """A client registered with `metadata`, and the tokens the owner's Allow gave it."""
    client, pkce = await register(http, base_url, **metadata), Pkce.new()
    code = await code_from_owner(browser, authorization_url(base_url, client, pkce))
    tokens = await exchange(http, base_url, client, code, pkce.verifier)
    assert tokens.status_code == 200, tokens.text
    return client, tokens.json()


@pytest.mark.parametrize("kind", ["access_token", "refresh_token"])
async def test_a_public_client_revokes_its_token_with_its_client_id_alone(live_service, http, browser, kind):
    client, tokens = await signed_in(http, live_service.url, browser, token_endpoint_auth_method="none")

    answer = await http.post(
        f"{live_service.url}/revoke", data={"token": tokens[kind], "client_id": client.client_id}
    )
    refreshed = await http.post(
        f"{live_service.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **client.credentials},
    )

    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "no-store"
    assert (await post_initialize(http, live_service.url, tokens["access_token"])).status_code == 401
    assert refreshed.json()["error"] == "invalid_grant"


async def test_a_client_cannot_revoke_another_clients_token(live_service, http, browser):
    _, theirs = await signed_in(http, live_service.url, browser)
    intruder = await register(http, live_service.url, token_endpoint_auth_method="none")

    answer = await http.post(
        f"{live_service.url}/revoke", data={"token": theirs["access_token"], "client_id": intruder.client_id}
    )

    assert answer.status_code == 200  # RFC 7009 §2.2: the same answer as for a token it does not know
    assert (await post_initialize(http, live_service.url, theirs["access_token"])).status_code == 200


async def test_a_confidential_client_still_needs_its_secret(live_service, http, browser):
    client, tokens = await signed_in(http, live_service.url, browser)

    without = await http.post(
        f"{live_service.url}/revoke", data={"token": tokens["access_token"], "client_id": client.client_id}
    )
    still_valid = await post_initialize(http, live_service.url, tokens["access_token"])
    with_secret = await http.post(
        f"{live_service.url}/revoke", data={"token": tokens["access_token"], **client.credentials}
    )

    assert without.status_code == 401
    assert without.json() == {"error": "invalid_client", "error_description": "Invalid client_secret"}
    assert still_valid.status_code == 200
    assert with_secret.status_code == 200
    assert (await post_initialize(http, live_service.url, tokens["access_token"])).status_code == 401


async def test_a_public_client_revoking_a_token_nobody_issued_gets_200(live_service, http):
    client = await register(http, live_service.url, token_endpoint_auth_method="none")

    answer = await http.post(
        f"{live_service.url}/revoke", data={"token": "avo_unknown", "client_id": client.client_id}
    )

    assert answer.status_code == 200


async def test_a_revocation_without_a_token_is_an_invalid_request(live_service, http):
    client = await register(http, live_service.url, token_endpoint_auth_method="none")

    answer = await http.post(f"{live_service.url}/revoke", data={"client_id": client.client_id})

    assert answer.status_code == 400
    assert answer.json() == {
        "error": "invalid_request",
        "error_description": "Give the token to revoke in the form field token.",
    }
