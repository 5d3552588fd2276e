"""Token revocation (RFC 7009) for confidential and public clients alike.

The SDK's revocation handler requires `client_secret` in the form even from a client
registered with `token_endpoint_auth_method` `none`, which has none: this handler leaves the
secret to the client authenticator (`oauth.endpoints.HashedSecretAuthenticator`), which asks
it of confidential clients only. A public client proves nothing but holding the token, as
RFC 7009 §2.1 allows.

A token is revoked only when it was issued to the client asking (§2.1: "the authorization
server ... verifies whether the token was issued to the client making the revocation
request"); any other token, unknown, expired or someone else's, gets the same 200 with
nothing revoked (§2.2), so the answer tells nothing about other clients' tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from avenir_mcp.oauth.provider import DjangoOAuthProvider, StoredAccessToken, StoredRefreshToken

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class RevocationRequest(BaseModel):
    """The form of a revocation request (RFC 7009 §2.1) past the client's credentials;
    `token_type_hint` is not needed: both kinds are looked up."""

    token: str


@dataclass
class TokenRevocationHandler:
    """The /revoke endpoint over the provider: the whole grant of a token this client holds."""

    provider: DjangoOAuthProvider
    client_authenticator: ClientAuthenticator

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.client_authenticator.authenticate_request(request)
        except AuthenticationError as refused:
            return _error(401, "invalid_client", refused.message)
        try:
            asked = RevocationRequest.model_validate(dict(await request.form()))
        except ValidationError:
            return _error(400, "invalid_request", "Give the token to revoke in the form field token.")
        token: StoredAccessToken | StoredRefreshToken | None = await self.provider.load_access_token(
            asked.token
        )
        if token is None:
            token = await self.provider.load_refresh_token(client, asked.token)
        if token is not None and token.client_id == client.client_id:
            await self.provider.revoke_token(token)
        return Response(status_code=200, headers=_NO_STORE)


def _error(status: int, error: str, description: str) -> JSONResponse:
    """An error answer as RFC 6749 §5.2 writes them (RFC 7009 §2.2.1)."""
    return JSONResponse(
        {"error": error, "error_description": description}, status_code=status, headers=_NO_STORE
    )
