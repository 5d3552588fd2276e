"""The OAuth tests' harness: the owner's browser session over real HTTP, and the SDK's OAuth client.

`OwnerAtConsent` plays the owner's browser without a browser: with a Django session logged
in through the admin's login form, it follows the client's authorization URL to the consent
page, answers it (Allow or Deny, the CSRF token from the form), and keeps where the browser
was sent back, which is what the SDK's `callback_handler` returns.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from avenir_mcp.oauth.models import OAuthClient, OAuthCode, OAuthGrant
from avenir_mcp.tokens.models import hash_token
from avenir_mcp.ynab_client.client import tls_context
from tests.helpers.mcp_http import Mode

REDIRECT_URI = "http://127.0.0.1:8765/callback"
OWNER_PASSWORD = "a long password nobody guesses"


def form_field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found is not None, f"no {name} field in the page"
    return html.unescape(found[1])


async def log_in(http: httpx2.AsyncClient, base_url: str, username: str) -> None:
    """Log in through the admin's own login form, as the owner does."""
    login_url = f"{base_url}/admin/login/"
    page = (await http.get(login_url)).text
    answer = await http.post(
        login_url,
        data={
            "csrfmiddlewaretoken": form_field(page, "csrfmiddlewaretoken"),
            "username": username,
            "password": OWNER_PASSWORD,
            "next": "/admin/",
        },
    )
    assert answer.status_code == 302, "the owner could not log in"


@dataclass
class OwnerAtConsent:
    """The owner's browser answering the consent page (see the module docstring)."""

    http: httpx2.AsyncClient
    decision: Literal["allow", "deny"] = "allow"
    access: Literal["read", "read_write"] | None = None
    pages: list[str] = field(default_factory=list)
    sent_back_to: list[str] = field(default_factory=list)

    async def open(self, authorization_url: str) -> httpx2.Response:
        """GET the authorization URL; the answer is the SDK handler's redirect (or refusal)."""
        return await self.http.get(authorization_url)

    async def redirect_handler(self, authorization_url: str) -> None:
        to_consent = await self.open(authorization_url)
        assert to_consent.status_code == 302, to_consent.text
        consent_url = urljoin(authorization_url, to_consent.headers["location"])
        page = await self.http.get(consent_url)
        assert page.status_code == 200, page.text
        self.pages.append(html.unescape(page.text))
        self.sent_back_to.append(await self.answer(consent_url, page.text))

    async def answer(self, consent_url: str, page: str) -> str:
        data = {
            "csrfmiddlewaretoken": form_field(page, "csrfmiddlewaretoken"),
            "request": form_field(page, "request"),
            "decision": self.decision,
        }
        if self.access is not None:
            data["access"] = self.access
        answered = await self.http.post(consent_url.split("?")[0], data=data)
        assert answered.status_code == 302, answered.text
        return answered.headers["location"]

    async def callback_handler(self) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(self.sent_back_to[-1]).query)
        if "error" in query:
            raise PermissionError(query["error"][0])
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query["iss"][0])


@asynccontextmanager
async def owner_browser(base_url: str, owner, **answers) -> AsyncIterator[OwnerAtConsent]:
    async with httpx2.AsyncClient(timeout=30, verify=tls_context()) as http:
        await log_in(http, base_url, owner.username)
        yield OwnerAtConsent(http, **answers)


class MemoryStorage:
    """The SDK client's `TokenStorage`, in memory; keeps every token set it was given."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.every_token_set: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.every_token_set.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def oauth_client(
    base_url: str,
    browser: OwnerAtConsent | Any,
    storage: MemoryStorage,
    *,
    name: str = "Test connector",
    auth_method: str = "client_secret_post",
    redirect_uri: str = REDIRECT_URI,
) -> OAuthClientProvider:
    """The SDK's OAuth client for `<base_url>/mcp`, the owner answering in `browser` (anything
    with the SDK's `redirect_handler` and `callback_handler`)."""
    return OAuthClientProvider(
        server_url=f"{base_url}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name=name,
            redirect_uris=[redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method=auth_method,
        ),
        storage=storage,
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
    )


@asynccontextmanager
async def mcp_with_oauth(base_url: str, auth: OAuthClientProvider, mode: Mode) -> AsyncIterator[Client]:
    """The SDK's MCP client on `<base_url>/mcp`, signing in with `auth` when told to (401)."""
    http = httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30, read=60), verify=tls_context())
    async with http, Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode=mode) as client:
        yield client


@dataclass(frozen=True)
class Registered:
    """A client registered over /register (RFC 7591), as the service answered."""

    client_id: str
    client_secret: str | None

    @property
    def credentials(self) -> dict[str, str]:
        secret = {"client_secret": self.client_secret} if self.client_secret else {}
        return {"client_id": self.client_id, **secret}


async def register(
    http: httpx2.AsyncClient, base_url: str, *, redirect_uris: list[str] | None = None, **metadata
) -> Registered:
    answer = await http.post(
        f"{base_url}/register",
        json={"client_name": "Raw client", "redirect_uris": redirect_uris or [REDIRECT_URI], **metadata},
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return Registered(body["client_id"], body.get("client_secret"))


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str

    @classmethod
    def new(cls) -> Pkce:
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode()).digest()
        return cls(verifier, base64.urlsafe_b64encode(digest).decode().rstrip("="))


def authorization_url(base_url: str, client: Registered, pkce: Pkce, **overrides: str | None) -> str:
    """An authorization request; an override of None leaves that parameter out."""
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": REDIRECT_URI,
        "state": "state-42",
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
        "scope": "plans:read",
        "resource": f"{base_url}/mcp",
        **overrides,
    }
    given = {name: value for name, value in params.items() if value is not None}
    return f"{base_url}/authorize?{urlencode(given)}"


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


async def code_from_owner(browser: OwnerAtConsent, url: str) -> str:
    """The code the owner's Allow sends back to the client."""
    await browser.redirect_handler(url)
    return query_of(browser.sent_back_to[-1])["code"]


async def exchange(
    http: httpx2.AsyncClient, base_url: str, client: Registered, code: str, verifier: str, **extra: str
) -> httpx2.Response:
    return await http.post(
        f"{base_url}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
            **client.credentials,
            **extra,
        },
    )


def signed_in_client(live_service, owner_user, *, scope: str) -> tuple[OAuthClient, OAuthGrant, str, str]:
    """A registered client the owner allowed, as the consent page and /token leave it."""
    client = OAuthClient.objects.create(
        client_id=str(uuid.uuid4()),
        name=f"Connector {uuid.uuid4().hex[:6]}",
        redirect_uris=[REDIRECT_URI],
        registration={"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    code = OAuthCode.issue(
        client=client,
        owner=owner_user,
        scope=scope,
        resource=f"{live_service.url}/mcp",
        code_challenge="unused-here",
        redirect_uri=REDIRECT_URI,
    )
    grant, access, refresh = OAuthCode.objects.get(code_hash=hash_token(code)).exchange()
    return client, grant, access, refresh
