"""The login an owner meets on the way to the consent page names the client and what it asks;
with no consent page (or a forged one) to go to, it is the console's plain login."""

from __future__ import annotations

import html
import uuid
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client as BrowserClient
from django.utils import timezone

from avenir_mcp.oauth.consent import ConsentRequest
from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE, OAuthClient
from tests.helpers.oauth import REDIRECT_URI

PLAIN = "Sign in to avenir-mcp"


@pytest.fixture
def client() -> OAuthClient:
    return OAuthClient.objects.create(
        client_id=str(uuid.uuid4()),
        name=f"Connector {uuid.uuid4().hex[:6]}",
        redirect_uris=[REDIRECT_URI],
        registration={"redirect_uris": [REDIRECT_URI]},
    )


def consent_path(client: OAuthClient, *scopes: str) -> str:
    """The consent page's path and signed request, as /authorize sends the browser there."""
    pending = ConsentRequest(
        client_id=client.client_id,
        scopes=scopes,
        code_challenge="challenge",
        redirect_uri=REDIRECT_URI,
        redirect_uri_provided_explicitly=True,
        state="state-42",
        resource="http://testserver/mcp",
    )
    page = urlsplit(pending.page_url())
    return f"{page.path}?{page.query}"


def login_page(next_path: str) -> str:
    answer = BrowserClient().get(f"/admin/login/?{urlencode({'next': next_path})}")
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scopes", "asks"),
    [((SCOPE_READ,), "read your plans"), ((SCOPE_READ, SCOPE_WRITE), "read your plans and propose changes")],
)
def test_the_login_on_the_way_to_consent_names_the_client_and_what_it_asks(client, scopes, asks):
    anonymous = BrowserClient().get(consent_path(client, *scopes))
    assert anonymous.status_code == 302

    page = html.unescape(BrowserClient().get(anonymous["Location"]).content.decode())

    assert f"{client.name} asks to {asks}; sign in to answer." in page
    assert PLAIN not in page
    assert "Django administration" not in page
    assert '<link rel="stylesheet" href="/static/oauth/page.css">' in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "next_of",
    [
        pytest.param(lambda path: path[:-4] + "AAAA", id="tampered"),
        pytest.param(lambda path: path.split("?")[0], id="no-request"),
        pytest.param(lambda path: "/admin/", id="another-page"),
    ],
)
def test_a_next_that_is_not_a_signed_consent_request_shows_the_plain_login(client, next_of):
    page = login_page(next_of(consent_path(client, SCOPE_READ)))

    assert PLAIN in page
    assert client.name not in page
    assert "Django administration" not in page


@pytest.mark.django_db
def test_an_expired_consent_request_shows_the_plain_login(client, monkeypatch):
    path = consent_path(client, SCOPE_READ)
    monkeypatch.setattr("avenir_mcp.oauth.consent.CONSENT_LIFETIME", timedelta(seconds=-1))

    page = login_page(path)

    assert PLAIN in page
    assert client.name not in page


@pytest.mark.django_db
def test_a_client_revoked_meanwhile_is_not_named(client):
    path = consent_path(client, SCOPE_READ)
    OAuthClient.objects.filter(pk=client.pk).update(revoked_at=timezone.now())

    page = login_page(path)

    assert PLAIN in page
    assert client.name not in page


@pytest.mark.django_db
def test_a_wrong_password_keeps_the_question_and_says_why(client):
    get_user_model().objects.create_superuser(username="owner-w", password="the password")
    path = consent_path(client, SCOPE_READ)
    browser = BrowserClient()
    login_url = f"/admin/login/?{urlencode({'next': path})}"

    refused = browser.post(login_url, {"username": "owner-w", "password": "wrong", "next": path})
    signed_in = browser.post(login_url, {"username": "owner-w", "password": "the password", "next": path})

    page = html.unescape(refused.content.decode())
    assert refused.status_code == 200
    assert "Please enter the correct username and password for a staff account." in page
    assert f"{client.name} asks to read your plans; sign in to answer." in page
    assert "<title>Error: Sign in · avenir-mcp</title>" in page
    assert signed_in.status_code == 302
    assert signed_in["Location"] == path
