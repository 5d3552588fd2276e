"""What one registration may store is bounded (`oauth.registration`), over real HTTP."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from avenir_mcp.oauth.models import OAuthClient
from tests.helpers.oauth import REDIRECT_URI, register

pytestmark = pytest.mark.anyio

LONG_URI = "https://client.example/" + "a" * 1980  # 2,003 characters


def unique_name() -> str:
    return f"Bounded {uuid.uuid4().hex[:8]}"


async def test_a_body_over_16_kb_is_refused_before_it_is_stored(live_service, http):
    name = unique_name()
    body = {"client_name": name, "redirect_uris": [REDIRECT_URI], "software_id": "x" * 17_000}

    answer = await http.post(f"{live_service.url}/register", json=body)

    assert answer.status_code == 413
    assert answer.json() == {
        "error": "invalid_client_metadata",
        "error_description": "The registration is larger than 16384 bytes; send only its metadata.",
    }
    assert not await OAuthClient.objects.filter(name=name).aexists()


async def test_a_body_sent_in_chunks_without_a_length_is_refused_past_the_limit_too(live_service, http):
    async def chunked_metadata() -> AsyncIterator[bytes]:
        yield b'{"client_name": "'
        for _ in range(64):
            yield b"n" * 1024

    answer = await http.post(
        f"{live_service.url}/register",
        content=chunked_metadata(),
        headers={"Content-Type": "application/json"},
    )

    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413
    assert answer.json()["error"] == "invalid_client_metadata"


@pytest.mark.parametrize(
    ("metadata", "description"),
    [
        ({"client_name": "n" * 201}, "client_name is longer than 200 characters; shorten it."),
        (
            {"redirect_uris": [f"{REDIRECT_URI}/{n}" for n in range(11)]},
            "redirect_uris has 11 entries; give at most 10.",
        ),
        ({"redirect_uris": [LONG_URI]}, "A redirect URI is longer than 2000 characters; shorten it."),
        ({"client_uri": LONG_URI}, "client_uri is longer than 2000 characters; shorten it."),
        ({"logo_uri": LONG_URI}, "logo_uri is longer than 2000 characters; shorten it."),
        ({"scope": "plans:read " * 20}, "scope is longer than 200 characters; shorten it."),
        ({"software_version": "1" * 201}, "software_version is longer than 200 characters; shorten it."),
        ({"contacts": ["a@example.com"] * 11}, "contacts has 11 entries; give at most 10."),
        ({"contacts": ["a" * 201]}, "An entry of contacts is longer than 200 characters; shorten it."),
        ({"jwks": {"keys": [{"n": "k" * 4000}]}}, "jwks is longer than 4000 characters; shorten it."),
    ],
)
async def test_metadata_past_its_bounds_is_refused_with_the_limit_and_nothing_stored(
    live_service, http, metadata, description
):
    name = unique_name()
    body = {"client_name": name, "redirect_uris": [REDIRECT_URI], **metadata}

    answer = await http.post(f"{live_service.url}/register", json=body)

    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid_client_metadata", "error_description": description}
    assert not await OAuthClient.objects.filter(name=name).aexists()


async def test_metadata_at_its_bounds_is_registered_in_full(live_service, http):
    name = unique_name().ljust(200, "n")
    uris = [f"{REDIRECT_URI}/{n}" for n in range(10)]

    client = await register(
        http,
        live_service.url,
        redirect_uris=uris,
        client_name=name,
        client_uri="https://c.example/" + "u" * 1982,
    )

    row = await OAuthClient.objects.aget(client_id=client.client_id)
    assert row.name == name
    assert row.redirect_uris == uris
    assert len(row.registration["client_uri"]) == 2000


async def test_malformed_metadata_is_still_answered_by_the_sdk(live_service, http):
    answer = await http.post(
        f"{live_service.url}/register", content=b"{not json", headers={"Content-Type": "application/json"}
    )

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_client_metadata"
