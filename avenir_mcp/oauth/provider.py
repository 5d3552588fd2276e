"""The MCP SDK's `OAuthAuthorizationServerProvider`, backed by the rows of `oauth.models`, and
an OAuth access token turned into the same `Principal` a static MCP token gives.

The SDK's handlers (`oauth.endpoints`) check the protocol: request shapes, PKCE S256, the
redirect URI against the registered ones, code expiry, scopes. This provider decides what
only this service can: which redirect URIs a client may register, that every token is for
this service's /mcp (RFC 8707), single use of codes and refresh tokens, and revocation.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.utils import timezone
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull
from mcp.shared.auth import OAuthToken as TokenResponse
from pydantic import AnyUrl

from avenir_mcp.oauth.addresses import is_this_resource, resource_url
from avenir_mcp.oauth.consent import ConsentRequest
from avenir_mcp.oauth.models import (
    ACCESS_TOKEN_LIFETIME,
    ACCESS_TOKEN_PREFIX,
    SCOPE_WRITE,
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    OAuthToken,
)
from avenir_mcp.tokens.auth import Principal, record_last_use
from avenir_mcp.tokens.models import hash_token

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_MAX_TOKEN_LENGTH = 200


class StoredCode(AuthorizationCode):
    row_id: int


class StoredRefreshToken(RefreshToken):
    row_id: int
    grant_id: int


class StoredAccessToken(AccessToken):
    grant_id: int


def redirect_uri_problem(uris: list[AnyUrl] | None) -> str | None:
    """Why these redirect URIs cannot be registered, or None: each must be https, or http on a
    loopback address for a native client (RFC 8252 §7.3), without a fragment (RFC 6749 §3.1.2)."""
    if not uris:
        return "Give at least one redirect URI."
    for uri in uris:
        parts = urlsplit(str(uri))
        if parts.fragment:
            return f"Redirect URI {uri} has a fragment; remove it."
        if parts.scheme == "https" and parts.hostname:
            continue
        if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
            continue
        return (
            f"Redirect URI {uri} is refused: use https, or http on 127.0.0.1, [::1] or localhost "
            "for a native client."
        )
    return None


class DjangoOAuthProvider(
    OAuthAuthorizationServerProvider[StoredCode, StoredRefreshToken, StoredAccessToken]
):
    """`mcp.server.auth.provider.OAuthAuthorizationServerProvider` over the database.

    Subclassed, not matched structurally: mypy checks each method against the SDK's protocol,
    and the SDK's default stands for what this service does not offer: the SEP-990 grant
    (`exchange_identity_assertion`), which its token endpoint does not enable anyway.
    """

    # --- clients (RFC 7591) -------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        row = await OAuthClient.objects.active().filter(client_id=client_id).afirst()
        if row is None:
            return None
        return OAuthClientInformationFull.model_validate({**row.registration, "client_id": row.client_id})

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        problem = redirect_uri_problem(client_info.redirect_uris)
        if problem is not None:
            raise RegistrationError("invalid_redirect_uri", problem)
        secret = client_info.client_secret
        await OAuthClient.objects.acreate(
            client_id=client_info.client_id,
            name=(client_info.client_name or "An unnamed client")[:200],
            secret_hash=hash_token(secret) if secret else "",
            redirect_uris=[str(uri) for uri in client_info.redirect_uris or []],
            registration=client_info.model_dump(mode="json", exclude={"client_secret"}, exclude_none=True),
        )

    async def client_secret_matches(self, client_id: str, presented: str) -> bool:
        row = await OAuthClient.objects.active().filter(client_id=client_id).afirst()
        return row is not None and row.secret_matches(presented)

    # --- the authorization request ------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """The consent page, where the owner (logged in) allows or denies the client."""
        if params.resource is not None and not is_this_resource(params.resource):
            raise AuthorizeError("invalid_target", f"This server only issues tokens for {resource_url()}.")
        return ConsentRequest(
            client_id=client.client_id,
            scopes=tuple(params.scopes or ()),
            code_challenge=params.code_challenge,
            redirect_uri=str(params.redirect_uri),
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            state=params.state,
            resource=resource_url(),
        ).page_url()

    # --- codes --------------------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> StoredCode | None:
        row = await OAuthCode.objects.filter(
            code_hash=hash_token(authorization_code), client__client_id=client.client_id
        ).afirst()
        if row is None:
            return None
        if row.used_at is not None:
            # RFC 6749 §4.1.2: a code used twice is refused, and what it gave is revoked.
            logger.warning("OAuth code of client %s used twice: its grant is revoked", client.client_id)
            assert row.grant_id is not None  # set with used_at, in one transaction (`OAuthCode.exchange`)
            await OAuthGrant.objects.filter(pk=row.grant_id).aupdate(revoked_at=timezone.now())
            return None
        return StoredCode(
            code=authorization_code,
            scopes=row.scope.split(),
            expires_at=row.expires_at.timestamp(),
            client_id=client.client_id,
            code_challenge=row.code_challenge,
            redirect_uri=AnyUrl(row.redirect_uri),
            redirect_uri_provided_explicitly=row.redirect_uri_provided_explicitly,
            resource=row.resource,
            subject=str(row.owner_id),
            row_id=row.pk,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: StoredCode
    ) -> TokenResponse:
        row = await OAuthCode.objects.aget(pk=authorization_code.row_id)
        exchanged = await sync_to_async(row.exchange)()
        if exchanged is None:
            raise TokenError("invalid_grant", "The authorization code was used already.")
        grant, access, refresh = exchanged
        await _record_client_use(grant.client_id)
        return _token_response(access, refresh, grant.scope)

    # --- refresh tokens -----------------------------------------------------------------------

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> StoredRefreshToken | None:
        if len(refresh_token) > _MAX_TOKEN_LENGTH:
            return None
        row = (
            await OAuthToken.objects.select_related("grant")
            .filter(
                token_hash=hash_token(refresh_token),
                kind=OAuthToken.Kind.REFRESH,
                grant__client__client_id=client.client_id,
            )
            .afirst()
        )
        if row is None or row.grant.revoked:
            return None
        if row.retired_at is not None:
            # A rotated refresh token presented again was copied: the grant goes (RFC 9700 §4.14.2).
            logger.warning("Rotated OAuth refresh token of grant %s used again: grant revoked", row.grant_id)
            await sync_to_async(row.grant.revoke)()
            return None
        return StoredRefreshToken(
            token=refresh_token,
            client_id=client.client_id,
            scopes=row.scopes,
            expires_at=int(row.expires_at.timestamp()),
            resource=row.grant.resource,
            subject=str(row.grant.owner_id),
            row_id=row.pk,
            grant_id=row.grant_id,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: StoredRefreshToken, scopes: list[str]
    ) -> TokenResponse:
        row = await OAuthToken.objects.select_related("grant").aget(pk=refresh_token.row_id)
        rotated = await sync_to_async(row.rotate)(scopes)
        if rotated is None:
            raise TokenError("invalid_grant", "The refresh token was used already.")
        access, refresh = rotated
        await _record_client_use(row.grant.client_id)
        return _token_response(access, refresh, " ".join(scopes))

    # --- access tokens and revocation (RFC 7009) ------------------------------------------------

    async def load_access_token(self, token: str) -> StoredAccessToken | None:
        row = await active_access_token(token)
        if row is None:
            return None
        return StoredAccessToken(
            token=token,
            client_id=row.grant.client.client_id,
            scopes=row.scopes,
            expires_at=int(row.expires_at.timestamp()),
            resource=row.grant.resource,
            subject=str(row.grant.owner_id),
            grant_id=row.grant_id,
        )

    async def revoke_token(self, token: StoredAccessToken | StoredRefreshToken) -> None:
        """Revoke the whole grant: its access and refresh tokens together."""
        await OAuthGrant.objects.filter(pk=token.grant_id).aupdate(revoked_at=timezone.now())


def _token_response(access: str, refresh: str, scope: str) -> TokenResponse:
    return TokenResponse(
        access_token=access,
        expires_in=int(ACCESS_TOKEN_LIFETIME.total_seconds()),
        scope=scope,
        refresh_token=refresh,
    )


async def active_access_token(presented: str) -> OAuthToken | None:
    """The access token row, when it is current: not expired, not retired, its grant and
    client not revoked."""
    if not presented.startswith(ACCESS_TOKEN_PREFIX) or len(presented) > _MAX_TOKEN_LENGTH:
        return None
    return (
        await OAuthToken.objects.select_related("grant__client")
        .filter(
            token_hash=hash_token(presented),
            kind=OAuthToken.Kind.ACCESS,
            retired_at__isnull=True,
            expires_at__gt=timezone.now(),
            grant__revoked_at__isnull=True,
            grant__client__revoked_at__isnull=True,
        )
        .afirst()
    )


async def principal_of_access_token(presented: str) -> Principal | None:
    """The principal of an OAuth access token presented at /mcp, or None (then 401).

    A token issued for another resource is refused (RFC 8707; MCP authorization §"Token
    audience binding"), also one issued while the service had another public URL. Records
    the grant's last use, at most once per `LAST_USED_RESOLUTION`.
    """
    row = await active_access_token(presented)
    if row is None:
        return None
    grant = row.grant
    if not is_this_resource(grant.resource):
        logger.info("OAuth grant %s is for %s, not %s: refused", grant.pk, grant.resource, resource_url())
        return None
    await _record_grant_use(grant)
    return Principal(
        token_id=None,
        name=f"OAuth: {grant.client.name}"[:100],
        read_only=SCOPE_WRITE not in row.scopes,
        grant_id=grant.pk,
        toolsets=grant.chosen_toolsets,
    )


async def _record_grant_use(grant: OAuthGrant) -> None:
    """The grant's and its client's last use, at most once per `LAST_USED_RESOLUTION`."""
    await record_last_use(
        OAuthGrant.objects.filter(pk=grant.pk), grant.last_used_at, f"OAuth grant {grant.pk}"
    )
    await record_last_use(
        OAuthClient.objects.filter(pk=grant.client_id), grant.last_used_at, f"OAuth client {grant.client_id}"
    )


async def _record_client_use(client_pk: int) -> None:
    await record_last_use(OAuthClient.objects.filter(pk=client_pk), None, f"OAuth client {client_pk}")
