"""The OAuth endpoints, answered by the MCP SDK's handlers (`mcp.server.auth`) over
`oauth.provider.DjangoOAuthProvider`:

| path | what |
|---|---|
| `/.well-known/oauth-protected-resource/mcp` | Protected Resource Metadata of /mcp (RFC 9728) |
| `/.well-known/oauth-authorization-server` | Authorization Server Metadata (RFC 8414) |
| `/register` | Dynamic Client Registration (RFC 7591), limited per address (`oauth.registration`) |
| `/authorize` | the authorization request (code + PKCE S256), then the consent page |
| `/token` | code exchange and refresh (rotating) |
| `/revoke` | revocation (RFC 7009): the token's whole grant (`oauth.revocation`) |

The routes are the SDK's, with changes for things it leaves to the server: client secrets are
checked against their stored hash (`HashedSecretAuthenticator`; the SDK's compares a stored
plaintext), a token request naming another resource is refused with `invalid_target`
(`ResourceBoundTokenHandler`, RFC 8707 §2; the SDK's handler does not look at it), the
metadata lists `none` among the client authentication methods (public clients, PKCE alone),
registration is rate-limited and bounded (`oauth.registration`), revocation accepts public
clients (`oauth.revocation`), and every authorization response back to the client names the
issuer (`iss`, RFC 9207; `IssuerAuthorizationHandler` and the consent page), as the metadata
says (`authorization_response_iss_parameter_supported`).
Every request passes the same Host check as /mcp (421 outside `ALLOWED_HOSTS`).

Client ID Metadata Documents (a client identified by a URL, MCP 2025-11-25) are not offered:
the SDK's server side has no support for them (only its client does), so the metadata does not
advertise `client_id_metadata_document_supported` and clients, the SDK's included, register
dynamically instead.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from urllib.parse import unquote

from django.urls import reverse
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.handlers.token import TokenErrorResponse, TokenHandler
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.routes import (
    AUTHORIZATION_PATH,
    REGISTRATION_PATH,
    REVOCATION_PATH,
    TOKEN_PATH,
    build_metadata,
    cors_middleware,
    create_protected_resource_routes,
    validate_issuer_url,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp.shared.auth import OAuthClientInformationFull
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, Router, request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from avenir_mcp.oauth.addresses import (
    AUTHORIZATION_SERVER_METADATA_PATH,
    PROTECTED_RESOURCE_METADATA_PATH,
    is_this_resource,
    public_url,
    resource_url,
)
from avenir_mcp.oauth.consent import authorization_response
from avenir_mcp.oauth.front_door import host_allowed, refused_host_answer
from avenir_mcp.oauth.models import SCOPES
from avenir_mcp.oauth.provider import DjangoOAuthProvider
from avenir_mcp.oauth.registration import BoundedRegistrationHandler, RegistrationLimit
from avenir_mcp.oauth.revocation import TokenRevocationHandler

OAUTH_PATHS = frozenset(
    {
        AUTHORIZATION_SERVER_METADATA_PATH,
        PROTECTED_RESOURCE_METADATA_PATH,
        AUTHORIZATION_PATH,
        TOKEN_PATH,
        REGISTRATION_PATH,
        REVOCATION_PATH,
    }
)

CLIENT_AUTH_METHODS = ["client_secret_post", "client_secret_basic", "none"]

# Issuer and resource exactly as written (no trailing slash added): clients compare them as strings.
_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))


def is_oauth_request(scope: Scope) -> bool:
    return scope["type"] == "http" and scope.get("path", "") in OAUTH_PATHS


class OAuthApp:
    """The ASGI application answering `OAUTH_PATHS`, for the public URL of the moment."""

    def __init__(self) -> None:
        self.provider = DjangoOAuthProvider()
        self.registration_limit = RegistrationLimit()  # shared by every issuer's routes
        self._routers: dict[str, Router] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = Headers(scope=scope).get("host", "")
        if not host_allowed(host):
            await refused_host_answer(host)(scope, receive, send)
            return
        issuer = public_url()
        router = self._routers.get(issuer)
        if router is None:
            router = self._routers[issuer] = Router(routes=self.routes(issuer))
        await router(scope, receive, send)

    def routes(self, issuer: str) -> list[Route]:
        provider = self.provider
        issuer_url = _URL.validate_python(issuer)
        validate_issuer_url(issuer_url)
        authenticator = HashedSecretAuthenticator(provider)
        registration = ClientRegistrationOptions(
            enabled=True, valid_scopes=list(SCOPES), default_scopes=list(SCOPES)
        )
        revocation = RevocationOptions(enabled=True)
        metadata = build_metadata(issuer_url, None, registration, revocation)
        # Public clients (PKCE alone, no secret) are accepted too: say so (RFC 8414 §2).
        metadata.token_endpoint_auth_methods_supported = CLIENT_AUTH_METHODS
        metadata.revocation_endpoint_auth_methods_supported = CLIENT_AUTH_METHODS
        metadata.authorization_response_iss_parameter_supported = True  # RFC 9207 §3
        registration_handler = BoundedRegistrationHandler(provider, registration, self.registration_limit)
        return [
            Route(
                AUTHORIZATION_SERVER_METADATA_PATH,
                cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
                methods=["GET", "OPTIONS"],
            ),
            # No CORS: clients send the browser here.
            Route(
                AUTHORIZATION_PATH,
                RequestBodyLimitMiddleware(
                    request_response(IssuerAuthorizationHandler(provider).handle),
                    DEFAULT_MAX_REQUEST_BODY_SIZE,
                ),
                methods=["GET", "POST"],
            ),
            Route(
                TOKEN_PATH,
                _client_endpoint(ResourceBoundTokenHandler(provider, authenticator).handle),
                methods=["POST", "OPTIONS"],
            ),
            # Its own body limit, far smaller (`oauth.registration`).
            Route(
                REGISTRATION_PATH,
                cors_middleware(registration_handler.handle, ["POST", "OPTIONS"]),
                methods=["POST", "OPTIONS"],
            ),
            Route(
                REVOCATION_PATH,
                _client_endpoint(TokenRevocationHandler(provider, authenticator).handle),
                methods=["POST", "OPTIONS"],
            ),
            *create_protected_resource_routes(
                resource_url=_URL.validate_python(resource_url()),
                authorization_servers=[issuer_url],
                scopes_supported=list(SCOPES),
                resource_name="avenir-mcp",
            ),
        ]


class IssuerAuthorizationHandler(AuthorizationHandler):
    """The SDK's authorization endpoint; its error redirects back to the client name the
    issuer (`iss`, RFC 9207), as the consent page's answers do."""

    async def handle(self, request: Request) -> Response:
        response = await super().handle(request)
        location = response.headers.get("location")
        consent_page = f"{public_url()}{reverse('oauth:consent')}?"
        if location is not None and not location.startswith(consent_page):
            response.headers["location"] = authorization_response(location)
        return response


def _client_endpoint(handler: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """As the SDK wraps its token and revocation endpoints: a body limit, CORS for browser clients."""
    limited = RequestBodyLimitMiddleware(request_response(handler), DEFAULT_MAX_REQUEST_BODY_SIZE)
    methods = ["POST", "OPTIONS"]
    return CORSMiddleware(
        limited, allow_origins="*", allow_methods=methods, allow_headers=[MCP_PROTOCOL_VERSION_HEADER]
    )


class ResourceBoundTokenHandler(TokenHandler):
    """The SDK's token endpoint, refusing a `resource` other than this service's /mcp."""

    async def handle(self, request: Request) -> Response:
        resource = (await request.form()).get("resource")  # the form is cached for the SDK's handler
        if isinstance(resource, str) and not is_this_resource(resource):
            return self.response(
                TokenErrorResponse(
                    error="invalid_target", error_description=f"Tokens are only issued for {resource_url()}."
                )
            )
        return await super().handle(request)


class HashedSecretAuthenticator(ClientAuthenticator):
    """Client authentication at /token and /revoke (RFC 6749 §2.3.1), the secret checked against
    its SHA-256: the service keeps no client secret in plaintext."""

    provider: DjangoOAuthProvider

    async def authenticate_request(self, request: Request) -> OAuthClientInformationFull:
        form = await request.form()
        client_id = form.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            raise AuthenticationError("Missing client_id")
        client = await self.provider.get_client(client_id)
        if client is None:
            raise AuthenticationError("Invalid client_id")
        # Registration leaves three methods (the SDK's handler refuses private_key_jwt).
        method = client.token_endpoint_auth_method
        if method == "none":
            return client
        if method == "client_secret_basic":
            presented = _basic_secret(request.headers.get("authorization", ""), client_id)
        else:  # client_secret_post
            posted = form.get("client_secret")
            presented = posted if isinstance(posted, str) else None
        if not presented or not await self.provider.client_secret_matches(client_id, presented):
            raise AuthenticationError("Invalid client_secret")
        return client


def _basic_secret(header: str, client_id: str) -> str | None:
    """The secret of an `Authorization: Basic` header for `client_id`, or None."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    basic_id, colon, secret = decoded.partition(":")
    if not colon or unquote(basic_id) != client_id:
        return None
    return unquote(secret)
