"""The owner sees OAuth clients and grants in the admin, with last use, and revokes them."""

from __future__ import annotations

import re
import uuid

import httpx2
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client as BrowserClient

from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE, OAuthClient, OAuthGrant
from tests.helpers.oauth import signed_in_client
from tests.helpers.raw_mcp import INITIALIZE, post_mcp

CLIENTS_URL = "/admin/oauth/oauthclient/"
GRANTS_URL = "/admin/oauth/oauthgrant/"


@pytest.fixture
def owner_user():
    return get_user_model().objects.create_superuser(username=f"owner-{uuid.uuid4().hex[:8]}", password="x")


@pytest.fixture
def owner(owner_user) -> BrowserClient:
    browser = BrowserClient()
    browser.force_login(owner_user)
    return browser


def mcp_status(live_service, token: str) -> int:
    return post_mcp(live_service.url, INITIALIZE, token=token).status_code


def refresh_status(live_service, client: OAuthClient, refresh: str) -> str:
    answer = httpx2.post(
        f"{live_service.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client.client_id},
        timeout=30,
    )
    return answer.json().get("error", "ok")


def test_the_grants_list_shows_client_access_owner_and_last_use(live_service, owner, owner_user):
    client, _grant, access, _refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)
    assert mcp_status(live_service, access) == 200

    listing = owner.get(GRANTS_URL, {"q": client.name}).content.decode()

    assert client.name in listing
    assert "read-only" in listing
    assert owner_user.username in listing
    assert "Last used at" in listing
    assert OAuthGrant.objects.get(client=client).last_used_at is not None


def test_the_clients_list_shows_where_codes_go(live_service, owner, owner_user):
    client, *_ = signed_in_client(live_service, owner_user, scope=f"{SCOPE_READ} {SCOPE_WRITE}")

    listing = owner.get(CLIENTS_URL, {"q": client.name}).content.decode()
    grants = owner.get(GRANTS_URL, {"q": client.name}).content.decode()

    assert client.name in listing
    assert "127.0.0.1:8765" in listing
    assert "read and propose changes" in grants


def test_revoking_a_grant_refuses_its_access_and_refresh_tokens(live_service, owner, owner_user):
    client, grant, access, refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)
    assert mcp_status(live_service, access) == 200

    owner.post(GRANTS_URL, {"action": "revoke_grants", "_selected_action": [grant.pk]}, follow=True)

    assert mcp_status(live_service, access) == 401
    assert refresh_status(live_service, client, refresh) == "invalid_grant"


def test_revoking_a_client_refuses_it_and_every_grant(live_service, owner, owner_user):
    client, grant, access, refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)

    owner.post(CLIENTS_URL, {"action": "revoke_clients", "_selected_action": [client.pk]}, follow=True)

    assert mcp_status(live_service, access) == 401
    assert refresh_status(live_service, client, refresh) == "invalid_client"
    assert OAuthGrant.objects.get(pk=grant.pk).revoked


def test_nothing_but_a_grants_toolsets_is_added_or_edited_in_the_admin(live_service, owner, owner_user):
    client, grant, _access, _refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)

    pages = [owner.get(f"{url}{row.pk}/change/") for url, row in ((CLIENTS_URL, client), (GRANTS_URL, grant))]

    assert owner.get(f"{CLIENTS_URL}add/").status_code == 403
    assert owner.get(f"{GRANTS_URL}add/").status_code == 403
    assert [page.status_code for page in pages] == [200, 200]
    assert client.name in pages[0].content.decode()
    assert [
        sorted(
            set(re.findall(r"<(?:input|select|textarea)[^>]+name=\"((?!csrf|_)\w+)", page.content.decode()))
        )
        for page in pages
    ] == [[], ["toolsets"]]


def test_oauth_sits_next_to_mcp_tokens_on_the_admin_index(owner):
    index = owner.get("/admin/").content.decode()

    tokens, sign_in, log = (
        index.index("MCP access tokens"),
        index.index("MCP sign-in (OAuth clients and grants)"),
        index.index("Operation log"),
    )
    assert 0 < tokens < sign_in < log  # the two ways in, side by side, then the log
    assert "OAuth grants" in index[sign_in:log]


def test_a_records_page_reads_as_the_record_with_revoke_and_no_delete(live_service, owner, owner_user):
    client, grant, _access, _refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)

    client_page = owner.get(f"{CLIENTS_URL}{client.pk}/change/").content.decode()
    grant_page = owner.get(f"{GRANTS_URL}{grant.pk}/change/").content.decode()

    assert "<h1>OAuth client</h1>" in client_page
    assert "<h1>OAuth grant</h1>" in grant_page
    for page in (client_page, grant_page):
        assert "Change OAuth" not in page
        assert "/delete/" not in page
        assert 'id="revoke-form"' in page
        assert "It cannot be undone" in page
    assert 'name="_save"' not in client_page  # nothing of a client is edited
    assert 'name="_save"' in grant_page  # an active grant's toolsets are


def test_the_revoke_button_refuses_the_grants_tokens_and_says_so(live_service, owner, owner_user):
    client, grant, access, refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)

    after = owner.post(f"{GRANTS_URL}{grant.pk}/revoke/", follow=True)

    page = after.content.decode()
    assert after.redirect_chain == [(f"{GRANTS_URL}{grant.pk}/change/", 302)]
    assert f"Grant {grant} revoked" in page
    assert mcp_status(live_service, access) == 401
    assert refresh_status(live_service, client, refresh) == "invalid_grant"
    assert 'id="revoke-form"' not in page  # revoked: nothing left to revoke, or to save
    assert 'name="_save"' not in page
    again = owner.post(f"{GRANTS_URL}{grant.pk}/revoke/", follow=True).content.decode()
    assert "was already revoked" in again


def test_the_revoke_button_refuses_a_client_and_its_grants(live_service, owner, owner_user):
    client, grant, access, _refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)

    page = owner.post(f"{CLIENTS_URL}{client.pk}/revoke/", follow=True).content.decode()

    assert f"Client {client.name} revoked with its grants" in page
    assert mcp_status(live_service, access) == 401
    assert OAuthGrant.objects.get(pk=grant.pk).revoked


def test_revoke_is_a_post_by_staff_who_may_change_grants(live_service, owner, owner_user):
    _client, grant, access, _refresh = signed_in_client(live_service, owner_user, scope=SCOPE_READ)
    viewer = get_user_model().objects.create_user(username=f"viewer-{uuid.uuid4().hex[:8]}", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_oauthgrant"))
    viewer_browser = BrowserClient()
    viewer_browser.force_login(viewer)

    assert owner.get(f"{GRANTS_URL}{grant.pk}/revoke/").status_code == 405
    assert owner.post(f"{GRANTS_URL}0/revoke/").status_code == 404
    assert 'id="revoke-form"' not in viewer_browser.get(f"{GRANTS_URL}{grant.pk}/change/").content.decode()
    assert viewer_browser.post(f"{GRANTS_URL}{grant.pk}/revoke/").status_code == 403
    assert mcp_status(live_service, access) == 200
