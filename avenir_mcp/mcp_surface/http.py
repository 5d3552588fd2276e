"""/mcp over HTTP: Host and Origin checks, the bearer token, then the caller's MCP server.

Each request to /mcp passes, in order:
1. Host and Origin, checked against `ALLOWED_HOSTS` with Django's own matcher (exact names,
   `.example.com` for a domain and its subdomains, `*`; any port), so /mcp accepts exactly
   the hosts the rest of the site does: 421 for a bad Host (logged as one WARNING line, as
   Django's own refusals are: `avenir_mcp/oauth/front_door.py`), 403 for a bad Origin. The
   SDK's own check is off: it matches exact strings and cannot express Django's patterns.
2. `Authorization: Bearer <token>`: a static MCP token (`tokens.auth`) or an OAuth access
   token issued for this /mcp (`oauth.provider`); 401 with `WWW-Authenticate: Bearer ...`
   naming the Protected Resource Metadata (RFC 9728 §5.1) when it is missing, unknown,
   expired or revoked, so an OAuth client can start signing in from there.
3. The MCP server for this principal (`HttpServers.for_principal`: with or without the
   write tools, with the tools of its toolsets), streamable HTTP with SSE responses. A
   server first asked for while running is built and started then (`McpHttpApp.started`).

One process (`REDIS_URL` unset) serves stateful sessions, the SDK's defaults, which
handshake-era clients need for in-call elicitation, and keeps their recent events
(`recent_events`), so that a client whose stream a proxy cut resumes it with `Last-Event-ID`
and still gets the tool's answer. Several workers (`REDIS_URL` set) serve
stateless (`stateless_http`), so any worker answers any request: no request needs the worker
that saw `initialize`. What that costs (docs/architecture.md#several-workers): a handshake-era
client is never asked in the call (the server keeps no session to send it a request on, nor
the capabilities it declared), so it confirms a change by its code; at 2026-07-28 nothing
changes (input-required carries its sealed state to whichever worker answers).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.abc import TaskGroup, TaskStatus
from django.conf import settings
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import Message, Receive, Scope, Send

from avenir_mcp import ynab_client
from avenir_mcp.mcp_surface.recent_events import RecentEvents, ResumableSessions
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.oauth.addresses import resource_metadata_url
from avenir_mcp.oauth.front_door import host_allowed, origin_allowed, refused_host_answer
from avenir_mcp.oauth.models import SCOPES
from avenir_mcp.oauth.provider import principal_of_access_token
from avenir_mcp.oplog import settling
from avenir_mcp.tokens.auth import PRINCIPAL_SCOPE_KEY, Principal, authenticate

logger = logging.getLogger(__name__)

MCP_PATHS = frozenset({"/mcp", "/mcp/"})
# How long a client whose stream dropped waits before resuming it (the SSE `retry` field).
RETRY_MILLISECONDS = 1000
_REALM = "avenir-mcp"


def is_mcp_request(scope: Scope) -> bool:
    return scope["type"] == "http" and scope.get("path", "") in MCP_PATHS


class McpHttpApp:
    """The ASGI application answering /mcp. `running()` must wrap its lifetime (lifespan)."""

    def __init__(self, servers: HttpServers) -> None:
        self.servers = servers
        self._group: TaskGroup | None = None
        self._running: set[int] = set()  # id() of the servers whose session manager runs
        self._prepared: set[int] = set()  # id() of those whose session manager exists
        self._starting = anyio.Lock()
        # One store for the whole process, shared by its servers: its bound is the process's.
        self.recent_events = RecentEvents()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the session manager of every server built so far, and of each one built later
        from its first request on (without it, /mcp answers 500)."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                for server in list(self.servers.built.values()):
                    await self.started(server)
                yield
            finally:
                self._group = None
                self._running.clear()
                group.cancel_scope.cancel()

    async def started(self, server: MCPServer) -> MCPServer:
        """`server`, its session manager running (started now if it was not)."""
        if id(server) in self._running:
            return server
        async with self._starting:
            if id(server) not in self._running:
                if self._group is None:
                    raise RuntimeError("/mcp answers only inside McpHttpApp.running().")
                if id(server) not in self._prepared:
                    self._prepare(server)
                    self._prepared.add(id(server))
                await self._group.start(_serve, server)
                self._running.add(id(server))
        return server

    def _prepare(self, server: MCPServer) -> None:
        """Create `server`'s session manager (it runs once per instance); our own checks replace
        the SDK's Host check."""
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        if serves_stateless():
            # No event store: a stateless /mcp keeps no session, so there is no stream to resume.
            server.streamable_http_app(stateless_http=True, transport_security=security)
            return
        # mcp 2.3.0's MCPServer builds only the SDK's own manager (one event store shared by every
        # session): the manager `session_manager` returns is its low-level server's.
        lowlevel = server._lowlevel_server
        lowlevel._session_manager = ResumableSessions(
            lowlevel, self.recent_events, security_settings=security, retry_interval=RETRY_MILLISECONDS
        )

    async def serve_lifespan(
        self, receive: Receive, send: Send, started: Callable[[], None] | None = None
    ) -> None:
        """Answer the ASGI lifespan protocol, running the session managers in between;
        `started` is called once the service is ready.

        At start-up the most recently used stored plan starts loading in the background (the
        others load when first used: `ynab_client.cache`) and settling starts
        (`oplog.settling.keep_settling`: at once, then while operations are left unsettled); at
        shutdown the plans changed since their last save are stored (`ynab_client.store`).
        """
        await receive()  # lifespan.startup
        phase = "startup"
        try:
            async with self.running(), anyio.create_task_group() as background:
                ynab_client.warm_up()  # the most recently used stored plan loads in the background
                background.start_soon(settling.keep_settling)
                await send({"type": "lifespan.startup.complete"})
                if started is not None:
                    started()
                phase = "shutdown"
                await receive()  # lifespan.shutdown
                # Stored first: inside the cancelled task group the store's thread would be
                # cancelled before it ran.
                await anyio.to_thread.run_sync(ynab_client.store_changed_plans)
                background.cancel_scope.cancel()
        except Exception as error:
            logger.exception("MCP session managers failed at %s", phase)
            await send({"type": f"lifespan.{phase}.failed", "message": repr(error)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        turned_away = front_door_answer(headers)
        if turned_away is not None:
            await turned_away(scope, receive, send)
            return
        token = bearer_token(headers)
        principal = await principal_of_bearer(token) if token is not None else None
        if principal is None:
            await unauthorized(has_credentials=token is not None)(scope, receive, send)
            return
        server = await self.started(self.servers.for_principal(principal))
        answer = AnswerEnd(send)
        await server.session_manager.handle_request(with_principal(scope, principal), receive, answer.send)
        await answer.finish()


def serves_stateless() -> bool:
    """Whether /mcp keeps no session: with several workers (`REDIS_URL` set), any one of them
    may receive a session's next request."""
    return bool(settings.REDIS_URL)


async def _serve(server: MCPServer, *, task_status: TaskStatus[None]) -> None:
    """Run `server`'s session manager until cancelled; started once it accepts requests."""
    async with server.session_manager.run():
        task_status.started()
        await anyio.sleep_forever()


class AnswerEnd:
    """Ends an answer the MCP application left open.

    When the server shuts down (Ctrl+C), the SDK's SSE streams (sse-starlette) stop and return
    without the last, empty body message; uvicorn then logs "ASGI callable returned without
    completing response" once per open stream. Sending that message ends the stream as
    HTTP says (the client sees its end) and the shutdown stays quiet.
    """

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = self.complete = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.complete = True
        await self._send(message)

    async def finish(self) -> None:
        if self.started and not self.complete:
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})


def front_door_answer(headers: Headers) -> Response | None:
    """421 for a Host outside ALLOWED_HOSTS, 403 for such an Origin, None when both are fine."""
    host = headers.get("host", "")
    if not host_allowed(host):
        return refused_host_answer(host)
    origin = headers.get("origin")
    if origin is not None and not origin_allowed(origin):
        return PlainTextResponse("Invalid Origin header", status_code=403)
    return None


def bearer_token(headers: Headers) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, None without one."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def principal_of_bearer(token: str) -> Principal | None:
    """The principal of a static MCP token, else of an OAuth access token, else None."""
    return await authenticate(token) or await principal_of_access_token(token)


def unauthorized(*, has_credentials: bool) -> Response:
    """401 with the challenge RFC 6750 describes (an error code only when a token was sent),
    naming where OAuth clients find how to sign in (RFC 9728 §5.1)."""
    # The scopes to ask for (MCP authorization, scope selection): both, so that the owner
    # chooses on the consent page between reading and proposing changes.
    metadata = f'resource_metadata="{resource_metadata_url()}", scope="{" ".join(SCOPES)}"'
    if not has_credentials:
        challenge = f'Bearer realm="{_REALM}", {metadata}'
        body = {"error": "invalid_request", "error_description": "Authorization: Bearer <token> is required"}
    else:
        challenge = (
            f'Bearer realm="{_REALM}", {metadata}, error="invalid_token", '
            'error_description="The token is unknown, expired or revoked"'
        )
        body = {"error": "invalid_token", "error_description": "The token is unknown, expired or revoked"}
    return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": challenge})


def with_principal(scope: Scope, principal: Principal) -> Scope:
    """The request's scope, carrying its principal for tools and for the SDK.

    `user` is what the SDK's session manager compares to tie a stateful session to the
    credential that opened it: another token presenting the session id gets 404.
    """
    identity = AccessToken(token=principal.key, client_id=principal.key, scopes=[], subject=principal.key)
    return {**scope, PRINCIPAL_SCOPE_KEY: principal, "user": AuthenticatedUser(identity)}
