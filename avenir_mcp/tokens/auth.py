"""Who is calling: bearer tokens turned into a `Principal`, and `principal_of(ctx)` for tools.

Every MCP request has exactly one principal. Over HTTP it is the `McpToken` the request
presented, or the OAuth grant behind an access token (`oauth.provider`), checked by
`mcp_surface.http` before the MCP app sees the request and put in the ASGI scope under
`PRINCIPAL_SCOPE_KEY`. Over stdio, and for the SDK's in-memory
`Client(server)`, there is no credential: the server was built for one local principal,
which its lifespan state carries (`ServerState`).

Confirmation codes, input-required answers and request state are bound to `principal.key`,
so what one token was asked cannot be answered by another.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import DatabaseError
from django.db.models import QuerySet
from django.utils import timezone
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context

from avenir_mcp.tokens.models import McpToken, hash_token

logger = logging.getLogger(__name__)

PRINCIPAL_SCOPE_KEY = "avenir_mcp.principal"
"""Where the HTTP layer leaves the authenticated `Principal` in the ASGI scope."""

# last_used_at is for the owner's eyes ("is this token still in use?"): a minute is
# precise enough, and it spares a database write on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)

# Issued tokens are 47 characters; anything far longer is not one of ours.
_MAX_TOKEN_LENGTH = 200
_TOKEN_KEY_PREFIX = "token:"
_GRANT_KEY_PREFIX = "oauth:"


@dataclass(frozen=True)
class Principal:
    """The caller of an MCP request.

    `token_id` is the `McpToken` row of a static token, `grant_id` the `oauth.OAuthGrant` of
    an OAuth access token; both None for the local person (stdio, in-memory tests).
    `read_only` principals never see or call write tools. `toolsets`: the toolsets its token
    or grant is limited to (docs/conventions.md#toolsets); None, not limited.
    """

    token_id: int | None
    name: str
    read_only: bool
    grant_id: int | None = None
    toolsets: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.token_id is None and self.name.startswith((_TOKEN_KEY_PREFIX, _GRANT_KEY_PREFIX)):
            raise ValueError(f"A local principal cannot be named {self.name!r}: it would pass for a token.")

    @classmethod
    def local(
        cls, name: str = "local", *, read_only: bool = False, toolsets: frozenset[str] | None = None
    ) -> Principal:
        """The person at this machine (stdio, tests): no token."""
        return cls(token_id=None, name=name, read_only=read_only, toolsets=toolsets)

    @classmethod
    def of_token(cls, token: McpToken) -> Principal:
        return cls(
            token_id=token.pk, name=token.name, read_only=token.read_only, toolsets=token.chosen_toolsets
        )

    @property
    def key(self) -> str:
        """A stable string naming this principal: `token:<id>` for a token, `oauth:<id>` for an
        OAuth grant (the same across its refreshed tokens), else its name."""
        if self.token_id is not None:
            return f"{_TOKEN_KEY_PREFIX}{self.token_id}"
        if self.grant_id is not None:
            return f"{_GRANT_KEY_PREFIX}{self.grant_id}"
        return self.name


@dataclass(frozen=True)
class ServerState:
    """The lifespan state of one MCP server: the principal of requests that come without HTTP.

    None for the servers behind /mcp, whose every request must bring a bearer token.
    """

    local_principal: Principal | None


class NoPrincipalError(RuntimeError):
    """A request reached a tool without anyone identified: a wiring bug, never a caller's fault."""


def principal_of(ctx: Context[Any, Any]) -> Principal:
    """The principal of the request a tool (or resource, or prompt) is serving."""
    return principal_of_request(ctx.request_context)


def principal_of_request(request_context: ServerRequestContext[Any, Any]) -> Principal:
    """The principal of a low-level request context (what middleware and the SDK see).

    Fails closed: an HTTP request without an authenticated principal, or a server built
    without `ServerState`, raises instead of falling back to anyone.
    """
    request = request_context.request
    if request is not None:
        principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
        if not isinstance(principal, Principal):
            raise NoPrincipalError("An HTTP request reached the MCP server without bearer authentication.")
        return principal
    state = request_context.lifespan_context
    if not isinstance(state, ServerState) or state.local_principal is None:
        raise NoPrincipalError("A request without HTTP reached an MCP server built for HTTP only.")
    return state.local_principal


def principal_key_of_request(request_context: ServerRequestContext[Any, Any]) -> str:
    """`principal.key` of a request: what sealed request state is bound to."""
    return principal_of_request(request_context).key


async def authenticate(presented: str) -> Principal | None:
    """The principal of a bearer token, or None if it is unknown or revoked.

    Only the token's SHA-256 is looked up; the plaintext is never stored or logged.
    Records the token's last use, at most once per `LAST_USED_RESOLUTION`.
    """
    if not presented or len(presented) > _MAX_TOKEN_LENGTH:
        return None
    token = await McpToken.objects.active().filter(token_hash=hash_token(presented)).afirst()
    if token is None:
        return None
    await record_last_use(McpToken.objects.filter(pk=token.pk), token.last_used_at, f"MCP token {token.pk}")
    return Principal.of_token(token)


async def record_last_use(rows: QuerySet[Any], last_used_at: datetime | None, what: str) -> None:
    """Set `last_used_at` of `rows` to now, unless `last_used_at` (what the caller read) is
    within `LAST_USED_RESOLUTION`; None means always. `what` names the rows in the log.

    A busy database must not turn away a valid credential: a failed write is logged, and the
    next request retries. The async ORM runs the write in Django's worker thread."""
    now = timezone.now()
    if last_used_at is not None and now - last_used_at < LAST_USED_RESOLUTION:
        return
    try:
        await rows.aupdate(last_used_at=now)
    except DatabaseError:
        logger.warning("Could not record the last use of %s", what, exc_info=True)
