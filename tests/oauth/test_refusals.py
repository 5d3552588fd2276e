"""Every refusal of the OAuth endpoints over real HTTP, answered as the RFCs say."""

from __future__ import annotations

import base64
import html
from datetime import timedelta

import pytest
from django.utils import timezone
from mcp.server.auth.provider import TokenError

from avenir_mcp.oauth.models import OAuthClient, OAuthCode, OAuthGrant, OAuthToken
from avenir_mcp.oauth.provider import DjangoOAuthProvider
from avenir_mcp.tokens.models import hash_token
from tests.helpers.oauth import (
    REDIRECT_URI,
    Pkce,
    authorization_url,
    code_from_owner,
    exchange,
    form_field,
    query_of,
    register,
)
from tests.helpers.raw_mcp import post_initialize

pytestmark = pytest.mark.anyio


async def test_the_metadata_describes_this_server_and_its_resource(live_service, http):
    server = (await http.get(f"{live_service.url}/.well-known/oauth-authorization-server")).json()
    resource = (await http.get(f"{live_service.url}/.well-known/oauth-protected-resource/mcp")).json()

    assert server["issuer"] == live_service.url
    assert server["authorization_endpoint"] == f"{live_service.url}/authorize"
    assert server["registration_endpoint"] == f"{live_service.url}/register"
    assert server["revocation_endpoint"] == f"{live_service.url}/revoke"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert server["token_endpoint_auth_methods_supported"] == [
        "client_secret_post",
        "client_secret_basic",
        "none",
    ]
    assert resource["resource"] == f"{live_service.url}/mcp"
    assert resource["authorization_servers"] == [live_service.url]
    assert resource["scopes_supported"] == ["plans:read", "plans:write"]


async def test_the_public_url_setting_names_the_issuer_and_the_resource(live_service, http, settings):
    settings.AVENIR_MCP_PUBLIC_URL = "https://mcp.example.com"

    server = (await http.get(f"{live_service.url}/.well-known/oauth-authorization-server")).json()
    resource = (await http.get(f"{live_service.url}/.well-known/oauth-protected-resource/mcp")).json()
    unauthorized = await post_initialize(http, live_service.url, "avo_unknown")

    assert server["issuer"] == "https://mcp.example.com"
    assert server["token_endpoint"] == "https://mcp.example.com/token"
    assert resource["resource"] == "https://mcp.example.com/mcp"
    assert (
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'
        in unauthorized.headers["WWW-Authenticate"]
    )


async def test_a_wrong_pkce_verifier_is_an_invalid_grant(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    answer = await exchange(http, live_service.url, client, code, Pkce.new().verifier)

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"


async def test_the_plain_pkce_method_is_refused_back_at_the_client(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(
        authorization_url(
            live_service.url, client, pkce, code_challenge=pkce.verifier, code_challenge_method="plain"
        )
    )

    assert answer.status_code == 302
    assert answer.headers["location"].startswith(REDIRECT_URI)
    assert query_of(answer.headers["location"])["error"] == "invalid_request"
    assert query_of(answer.headers["location"])["state"] == "state-42"


async def test_a_request_without_a_code_challenge_is_refused(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    url = authorization_url(live_service.url, client, pkce).replace(f"code_challenge={pkce.challenge}&", "")

    answer = await browser.open(url)

    assert query_of(answer.headers["location"])["error"] == "invalid_request"


async def test_an_unregistered_redirect_uri_gets_an_error_page_and_no_redirect(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(
        authorization_url(live_service.url, client, pkce, redirect_uri="https://attacker.example/callback")
    )

    assert answer.status_code == 400
    assert "location" not in answer.headers
    assert answer.json()["error"] == "invalid_request"
    assert "not registered" in answer.json()["error_description"]


async def test_a_redirect_uri_is_matched_exactly(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(
        authorization_url(live_service.url, client, pkce, redirect_uri=f"{REDIRECT_URI}/more")
    )

    assert answer.status_code == 400
    assert "location" not in answer.headers


@pytest.mark.parametrize(
    "redirect_uri",
    ["http://client.example/callback", "http://192.168.1.10/callback", "https://client.example/cb#fragment"],
)
async def test_registration_refuses_a_redirect_uri_neither_https_nor_loopback(
    live_service, http, redirect_uri
):
    answer = await http.post(
        f"{live_service.url}/register", json={"client_name": "Bad", "redirect_uris": [redirect_uri]}
    )

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_redirect_uri"


async def test_registration_accepts_https_and_loopback_redirect_uris(live_service, http):
    uris = ["https://claude.ai/api/mcp/auth_callback", "http://localhost:33418/", "http://[::1]:9/cb"]

    client = await register(http, live_service.url, redirect_uris=uris)

    assert client.client_secret is not None


async def test_a_code_used_twice_is_refused_and_revokes_what_it_gave(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    first = await exchange(http, live_service.url, client, code, pkce.verifier)
    second = await exchange(http, live_service.url, client, code, pkce.verifier)
    with_first_token = await post_initialize(http, live_service.url, first.json()["access_token"])

    assert first.status_code == 200
    assert second.status_code == 400
    assert second.json()["error"] == "invalid_grant"
    assert with_first_token.status_code == 401


async def test_an_expired_code_is_an_invalid_grant(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    # Five minutes later.
    await OAuthCode.objects.filter(code_hash=hash_token(code)).aupdate(expires_at=timezone.now())

    answer = await exchange(http, live_service.url, client, code, pkce.verifier)

    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid_grant", "error_description": "authorization code has expired"}


async def test_authorization_for_another_resource_is_an_invalid_target(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()

    answer = await browser.open(
        authorization_url(live_service.url, client, pkce, resource="https://other.example/mcp")
    )

    assert query_of(answer.headers["location"])["error"] == "invalid_target"


async def test_a_token_request_for_another_resource_is_an_invalid_target(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    answer = await exchange(
        http, live_service.url, client, code, pkce.verifier, resource="https://other.example/mcp"
    )

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_target"


async def test_a_token_issued_for_another_resource_is_refused_at_mcp(live_service, http, browser, settings):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    token = (await exchange(http, live_service.url, client, code, pkce.verifier)).json()["access_token"]
    accepted = await post_initialize(http, live_service.url, token)

    # The service now answers at another address: tokens issued for the old one are not for it.
    settings.AVENIR_MCP_PUBLIC_URL = f"http://localhost:{live_service.port}"
    refused = await post_initialize(http, f"http://localhost:{live_service.port}", token)

    assert accepted.status_code == 200
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


async def test_deny_sends_access_denied_back_with_the_state(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    browser.decision = "deny"

    await browser.redirect_handler(authorization_url(live_service.url, client, pkce))

    sent_back = query_of(browser.sent_back_to[-1])
    assert browser.sent_back_to[-1].startswith(REDIRECT_URI)
    assert sent_back["error"] == "access_denied"
    assert sent_back["state"] == "state-42"
    assert "code" not in sent_back
    assert not await OAuthCode.objects.filter(client__client_id=client.client_id).aexists()


async def test_the_consent_page_needs_the_owners_login_and_comes_back_after_it(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    consent = (await browser.open(authorization_url(live_service.url, client, pkce))).headers["location"]

    anonymous = await http.get(consent)

    assert anonymous.status_code == 302
    login = anonymous.headers["location"]
    assert login.startswith("/admin/login/?next=/oauth/consent")


async def test_an_answer_without_the_csrf_token_is_refused(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    consent = (await browser.open(authorization_url(live_service.url, client, pkce))).headers["location"]
    page = (await browser.http.get(consent)).text
    signed = query_of(consent)["request"]
    assert "csrfmiddlewaretoken" in page

    forged = await browser.http.post(consent.split("?")[0], data={"request": signed, "decision": "allow"})

    assert forged.status_code == 403
    assert not await OAuthCode.objects.filter(client__client_id=client.client_id).aexists()


async def test_a_tampered_consent_request_is_refused(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    consent = (await browser.open(authorization_url(live_service.url, client, pkce))).headers["location"]

    tampered = await browser.http.get(consent[:-4] + "AAAA")

    assert tampered.status_code == 400
    assert "invalid or expired" in tampered.text


async def test_a_wrong_client_secret_is_an_invalid_client(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    answer = await exchange(
        http, live_service.url, client, code, pkce.verifier, client_secret="not-the-secret"
    )

    assert answer.status_code == 401
    assert answer.json()["error"] == "invalid_client"


async def test_a_public_client_signs_in_with_pkce_alone(live_service, http, browser):
    client, pkce = await register(http, live_service.url, token_endpoint_auth_method="none"), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    answer = await exchange(http, live_service.url, client, code, pkce.verifier)

    assert client.client_secret is None
    assert answer.status_code == 200
    assert answer.json()["scope"] == "plans:read"


async def test_client_secret_basic_authentication_is_accepted(live_service, http, browser):
    client = await register(http, live_service.url, token_endpoint_auth_method="client_secret_basic")
    pkce = Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))

    answer = await http.post(
        f"{live_service.url}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "code_verifier": pkce.verifier,
            "client_id": client.client_id,
        },
        auth=(client.client_id, client.client_secret),
    )

    assert answer.status_code == 200


async def test_a_rotated_refresh_token_used_again_revokes_the_grant(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    first = (await exchange(http, live_service.url, client, code, pkce.verifier)).json()

    def refresh(token: str) -> dict[str, str]:
        return {"grant_type": "refresh_token", "refresh_token": token, **client.credentials}

    rotated = await http.post(f"{live_service.url}/token", data=refresh(first["refresh_token"]))
    replayed = await http.post(f"{live_service.url}/token", data=refresh(first["refresh_token"]))
    newest = await post_initialize(http, live_service.url, rotated.json()["access_token"])

    assert rotated.status_code == 200
    assert replayed.status_code == 400
    assert replayed.json()["error"] == "invalid_grant"
    assert newest.status_code == 401
    assert await OAuthGrant.objects.filter(
        client__client_id=client.client_id, revoked_at__isnull=False
    ).aexists()


async def test_a_refresh_keeps_the_old_access_token_no_longer(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    first = (await exchange(http, live_service.url, client, code, pkce.verifier)).json()

    refreshed = await http.post(
        f"{live_service.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"], **client.credentials},
    )
    with_old = await post_initialize(http, live_service.url, first["access_token"])
    with_new = await post_initialize(http, live_service.url, refreshed.json()["access_token"])

    assert with_old.status_code == 401
    assert with_new.status_code == 200
    assert await OAuthToken.objects.filter(grant__client__client_id=client.client_id).acount() == 4


@pytest.mark.parametrize(
    ("access", "granted"), [(None, "plans:read"), ("read_write", "plans:read plans:write")]
)
async def test_without_a_scope_asked_the_owner_chooses_read_only_first(
    live_service, http, browser, access, granted
):
    client, pkce = await register(http, live_service.url), Pkce.new()
    browser.access = access

    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce, scope=None))
    answer = await exchange(http, live_service.url, client, code, pkce.verifier)

    assert "Allow Raw client to read your plans?" in browser.pages[-1]
    assert 'value="read" checked' in browser.pages[-1]
    assert answer.json()["scope"] == granted


async def test_tokens_expired_for_a_day_are_forgotten_and_rotated_ones_kept(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    first = (await exchange(http, live_service.url, client, code, pkce.verifier)).json()
    long_ago = timezone.now() - timedelta(days=2)
    await OAuthToken.objects.filter(token_hash=hash_token(first["access_token"])).aupdate(expires_at=long_ago)

    refreshed = await http.post(
        f"{live_service.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"], **client.credentials},
    )

    assert refreshed.status_code == 200
    assert not await OAuthToken.objects.filter(token_hash=hash_token(first["access_token"])).aexists()
    # The rotated refresh token stays until it expires: presented again, it revokes the grant.
    assert await OAuthToken.objects.filter(token_hash=hash_token(first["refresh_token"])).aexists()


async def test_the_oauth_endpoints_refuse_a_host_outside_allowed_hosts(live_service, http):
    answer = await http.get(
        f"{live_service.url}/.well-known/oauth-authorization-server", headers={"Host": "evil.example"}
    )

    assert answer.status_code == 421


async def test_revoking_a_token_it_does_not_know_answers_200_as_rfc_7009_says(live_service, http):
    client = await register(http, live_service.url)

    unknown = {"token": "avo_unknown", **client.credentials}
    answer = await http.post(f"{live_service.url}/revoke", data=unknown)

    assert answer.status_code == 200


async def test_a_browser_client_may_call_the_token_endpoint_across_origins(live_service, http):
    preflight = await http.options(
        f"{live_service.url}/token",
        headers={"Origin": "https://inspector.example", "Access-Control-Request-Method": "POST"},
    )

    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] in {"*", "https://inspector.example"}


async def test_a_client_revoked_while_the_owner_reads_the_consent_page_cannot_be_allowed(
    live_service, http, browser
):
    client, pkce = await register(http, live_service.url), Pkce.new()
    consent = (await browser.open(authorization_url(live_service.url, client, pkce))).headers["location"]
    page = (await browser.http.get(consent)).text
    await OAuthClient.objects.filter(client_id=client.client_id).aupdate(revoked_at=timezone.now())

    reopened = await browser.http.get(consent)
    allowed = await browser.http.post(
        consent.split("?")[0],
        data={
            "csrfmiddlewaretoken": form_field(page, "csrfmiddlewaretoken"),
            "request": form_field(page, "request"),
            "decision": "allow",
        },
    )

    assert (reopened.status_code, allowed.status_code) == (400, 400)
    assert "This client is no longer registered: add the connector again." in html.unescape(allowed.text)
    assert not await OAuthCode.objects.filter(client__client_id=client.client_id).aexists()


async def test_an_answer_neither_allow_nor_deny_is_asked_again(live_service, http, browser):
    client, pkce = await register(http, live_service.url), Pkce.new()
    consent = (await browser.open(authorization_url(live_service.url, client, pkce))).headers["location"]
    page = (await browser.http.get(consent)).text

    answered = await browser.http.post(
        consent.split("?")[0],
        data={
            "csrfmiddlewaretoken": form_field(page, "csrfmiddlewaretoken"),
            "request": form_field(page, "request"),
            "decision": "later",
        },
    )

    assert answered.status_code == 400
    assert "Choose Allow or Deny." in answered.text
    assert not await OAuthCode.objects.filter(client__client_id=client.client_id).aexists()


async def test_registration_without_a_redirect_uri_is_refused(live_service, http):
    answer = await http.post(
        f"{live_service.url}/register", json={"client_name": "No way back", "redirect_uris": None}
    )

    assert answer.status_code == 400
    assert answer.json() == {
        "error": "invalid_redirect_uri",
        "error_description": "Give at least one redirect URI.",
    }


@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param(lambda client: f"Bearer {client.client_secret}", id="not Basic"),
        pytest.param(lambda client: "Basic not*base64", id="not base64"),
        pytest.param(lambda client: f"Basic {b64(client.client_secret)}", id="no client id"),
        pytest.param(
            lambda client: f"Basic {b64('another-client:' + client.client_secret)}", id="another client"
        ),
    ],
)
async def test_a_basic_authorization_that_does_not_name_the_client_is_an_invalid_client(
    live_service, http, browser, authorization
):
    client = await register(http, live_service.url, token_endpoint_auth_method="client_secret_basic")
    pkce = Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "code_verifier": pkce.verifier,
        "client_id": client.client_id,
    }

    refused = await http.post(
        f"{live_service.url}/token", data=form, headers={"Authorization": authorization(client)}
    )
    accepted = await http.post(
        f"{live_service.url}/token", data=form, auth=(client.client_id, client.client_secret)
    )

    assert refused.status_code == 401
    assert refused.json() == {"error": "invalid_client", "error_description": "Invalid client_secret"}
    assert accepted.status_code == 200  # the refusal did not spend the code


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


async def test_a_token_request_without_client_id_is_an_invalid_client(live_service, http):
    answer = await http.post(
        f"{live_service.url}/token", data={"grant_type": "authorization_code", "code": "x"}
    )

    assert answer.status_code == 401
    assert answer.json() == {"error": "invalid_client", "error_description": "Missing client_id"}


async def test_a_code_or_refresh_token_the_service_never_issued_is_an_invalid_grant(live_service, http):
    client = await register(http, live_service.url)
    unknown_code = await exchange(http, live_service.url, client, "never-issued", Pkce.new().verifier)
    too_long = await http.post(
        f"{live_service.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": "r" * 201, **client.credentials},
    )

    assert (unknown_code.status_code, unknown_code.json()["error"]) == (400, "invalid_grant")
    assert (too_long.status_code, too_long.json()["error"]) == (400, "invalid_grant")


async def test_two_token_requests_at_once_with_one_code_or_refresh_token_get_one_answer(
    live_service, http, browser
):
    """As the SDK's token endpoint runs two requests that arrive together: both load the code
    (or refresh token) before either exchanges it. Only the first exchange gives tokens."""
    client, pkce = await register(http, live_service.url), Pkce.new()
    code = await code_from_owner(browser, authorization_url(live_service.url, client, pkce))
    provider = DjangoOAuthProvider()
    registered = await provider.get_client(client.client_id)

    loaded = [await provider.load_authorization_code(registered, code) for _ in range(2)]
    tokens = await provider.exchange_authorization_code(registered, loaded[0])
    with pytest.raises(TokenError) as late_code:
        await provider.exchange_authorization_code(registered, loaded[1])
    refreshes = [await provider.load_refresh_token(registered, tokens.refresh_token) for _ in range(2)]
    rotated = await provider.exchange_refresh_token(registered, refreshes[0], ["plans:read"])
    with pytest.raises(TokenError) as late_refresh:
        await provider.exchange_refresh_token(registered, refreshes[1], ["plans:read"])

    assert (late_code.value.error, late_code.value.error_description) == (
        "invalid_grant",
        "The authorization code was used already.",
    )
    assert (late_refresh.value.error, late_refresh.value.error_description) == (
        "invalid_grant",
        "The refresh token was used already.",
    )
    assert await OAuthGrant.objects.filter(client__client_id=client.client_id).acount() == 1
    assert (await post_initialize(http, live_service.url, rotated.access_token)).status_code == 200
