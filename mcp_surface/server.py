"""Builds the MCP servers: tools from the registry, the guide, request-state keys, principal.

Two servers come from the same registry and the same code: one with the write tools, one
without. A caller for whom `writes_allowed(principal)` is false is served by the second,
where write tools do not exist: they are neither listed nor callable ("Unknown tool"), and
its instructions, guide and prompts are the read-only rendering. Choosing a server per
caller, rather than filtering inside one, leaves no path (tools/list, tools/call, the
header validation that looks tools up before middleware, cached listings, instructions)
where a hidden tool could show through.
"""

from __future__ import annotations

import tomllib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from django.conf import settings
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.server.mcpserver.tools import Tool

from mcp_surface.answers import AvenirServer
from mcp_surface.catalog import catalog_specs
from mcp_surface.prompts import register_prompts
from mcp_surface.registry import ToolSpec, visible_tools, writes_allowed
from mcp_surface.resources import guide_text, register_resources, render_guide
from tokens.auth import Principal, ServerState, principal_key_of_request

SERVER_NAME = "avenir-mcp"
SERVER_TITLE = "avenir-mcp for YNAB"
SERVER_VERSION = tomllib.loads((settings.BASE_DIR / "pyproject.toml").read_text())["project"]["version"]


def build_server(
    *,
    writes: bool,
    local_principal: Principal | None,
    specs: Sequence[ToolSpec] | None = None,
    guide_markdown: str | None = None,
    made: dict[str, Tool] | None = None,
) -> MCPServer:
    """One MCP server: the tools a caller with (or without) writes may see, and its guide.

    `local_principal` answers for requests without HTTP (stdio, in-memory clients); None
    for the servers behind /mcp. `specs` and `guide_markdown` default to the catalog and
    `mcp_surface/guide.md`; tests pass their own to exercise the same code path. `made`: the
    tools another server of the same specs made already, by name (`_tools`), added to.
    """
    specs = catalog_specs() if specs is None else specs
    visible = visible_tools(specs, writes=writes)
    tool_names = frozenset(spec.name for spec in visible)
    if guide_markdown is None:
        guide = guide_text(writes=writes, tools=tool_names)
    else:
        guide = render_guide(guide_markdown, writes=writes, tools=tool_names)
    server = AvenirServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        version=SERVER_VERSION,
        instructions=guide,
        lifespan=_lifespan_with(ServerState(local_principal=local_principal)),
        request_state_security=request_state_security(),
        tools=_tools(visible, {} if made is None else made),
    )
    register_resources(server, guide=guide)
    register_prompts(server, tools=tool_names)
    return server


def _tools(specs: Sequence[ToolSpec], made: dict[str, Tool]) -> list[Tool]:
    """The SDK's tool for each spec, made once for every server that shares `made`: making one
    builds the models of its arguments and result, most of the time a server takes to build."""
    for spec in specs:
        if spec.name not in made:
            made[spec.name] = Tool.from_function(
                spec.fn,
                name=spec.name,
                title=spec.title,
                description=spec.description,
                annotations=spec.annotations,
                meta=spec.meta,
                structured_output=True,
            )
    return [made[spec.name] for spec in specs]


def request_state_security() -> RequestStateSecurity:
    """Sealing of request_state with the configured keys, bound to the caller's principal.

    Keys from settings (not the SDK's per-process default) so an answer in flight survives
    a restart or lands on another worker; the principal binding means state minted for one
    token is refused when another presents it.
    """
    return RequestStateSecurity(
        keys=settings.AVENIR_MCP_REQUEST_STATE_KEYS, bind_principal=principal_key_of_request
    )


def _lifespan_with(state: ServerState) -> Callable[[MCPServer], AbstractAsyncContextManager[ServerState]]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[ServerState]:
        yield state

    return lifespan


def local_server(principal: Principal | None = None, *, specs: Sequence[ToolSpec] | None = None) -> MCPServer:
    """The server for one local person (stdio, in-memory `Client(server)`), gated as of now.

    Without `principal`, the caller is `Principal.local()` ("local", read-write).
    """
    principal = Principal.local() if principal is None else principal
    return build_server(writes=writes_allowed(principal), local_principal=principal, specs=specs)


@dataclass(frozen=True)
class HttpServers:
    """The two servers behind /mcp; which one answers is decided per request."""

    read_only: MCPServer
    read_write: MCPServer

    @classmethod
    def build(cls, *, specs: Sequence[ToolSpec] | None = None) -> HttpServers:
        specs = catalog_specs() if specs is None else specs
        made: dict[str, Tool] = {}  # the read tools are in both: made once
        return cls(
            read_only=build_server(writes=False, local_principal=None, specs=specs, made=made),
            read_write=build_server(writes=True, local_principal=None, specs=specs, made=made),
        )

    def for_principal(self, principal: Principal) -> MCPServer:
        """The write gate at the door: decided on every request, from the setting and the token."""
        return self.read_write if writes_allowed(principal) else self.read_only

    @property
    def all(self) -> tuple[MCPServer, MCPServer]:
        return (self.read_only, self.read_write)
