"""Builds the MCP servers: tools from the registry, the guide, request-state keys, principal.

Every server comes from the same registry and the same code, for one caller's view: with or
without the write tools, and with the tools of some toolsets (docs/conventions.md#toolsets).
A caller for whom `writes_allowed(principal)` is false is served by a server where write
tools do not exist: they are neither listed nor callable ("Unknown tool"), and its
instructions, guide and prompts are the read-only rendering; likewise a tool outside the
caller's `toolsets_offered(principal)`. Choosing a server per caller, rather than filtering
inside one, leaves no path (tools/list, tools/call, the header validation that looks tools
up before middleware, cached listings, instructions) where a hidden tool could show through.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field

from django.conf import settings
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.server.mcpserver.tools import Tool
from mcp.types import Icon

from avenir_mcp.mcp_surface.answers import AvenirServer
from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.prompts import register_prompts
from avenir_mcp.mcp_surface.registry import ToolSpec, toolsets_offered, visible_tools, writes_allowed
from avenir_mcp.mcp_surface.resources import guide_text, register_resources, render_guide
from avenir_mcp.mcp_surface.version import SERVER_VERSION
from avenir_mcp.tokens.auth import Principal, ServerState, principal_key_of_request
from avenir_mcp.values.toolsets import ALL_TOOLSETS

SERVER_NAME = "avenir-mcp"
SERVER_TITLE = "avenir-mcp for YNAB"
ICON_DIR = settings.BASE_DIR / "avenir_mcp" / "avenir_site" / "static" / "avenir_site"
"""The service's icon, one drawing: `favicon.svg`, and rendered from it `favicon-512.png` (the
.mcpb bundle's) and `favicon-64.png` (serverInfo's); the browser's tab and the admin show the SVG."""


@functools.cache
def server_icons() -> tuple[Icon, ...]:
    """The icon in `serverInfo.icons`, as `data:` URIs: every client gets it with the handshake,
    over stdio too, with no address to fetch. A PNG, the format every client that shows icons
    must render (the MCP spec requires PNG and JPEG, SVG only "should"), and the SVG for any size.
    Small on purpose: at 2026-07-28 the SDK stamps serverInfo on every result's `_meta` (64 px:
    1.4 kB; 512 px would be 13 kB on each answer)."""
    return _icon("favicon-64.png", "image/png", "64x64"), _icon("favicon.svg", "image/svg+xml", "any")


def _icon(file_name: str, mime_type: str, size: str) -> Icon:
    encoded = base64.b64encode((ICON_DIR / file_name).read_bytes()).decode("ascii")
    return Icon(src=f"data:{mime_type};base64,{encoded}", mime_type=mime_type, sizes=[size])


def build_server(
    *,
    writes: bool,
    local_principal: Principal | None,
    toolsets: frozenset[str] = ALL_TOOLSETS,
    specs: Sequence[ToolSpec] | None = None,
    guide_markdown: str | None = None,
    made: dict[str, Tool] | None = None,
) -> MCPServer:
    """One MCP server: the tools of `toolsets` a caller with (or without) writes may see, and
    its guide.

    `local_principal` answers for requests without HTTP (stdio, in-memory clients); None
    for the servers behind /mcp. `specs` and `guide_markdown` default to the catalog and
    `avenir_mcp/mcp_surface/guide.md`; tests pass their own to exercise the same code path. `made`: the
    tools another server of the same specs made already, by name (`_tools`), added to.
    """
    specs = catalog_specs() if specs is None else specs
    visible = visible_tools(specs, writes=writes, toolsets=toolsets)
    tool_names = frozenset(spec.name for spec in visible)
    if guide_markdown is None:
        guide = guide_text(writes=writes, toolsets=toolsets, tools=tool_names)
    else:
        guide = render_guide(guide_markdown, writes=writes, tools=tool_names, toolsets=toolsets)
    server = AvenirServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        version=SERVER_VERSION,
        icons=list(server_icons()),
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
    return build_server(
        writes=writes_allowed(principal),
        toolsets=toolsets_offered(principal),
        local_principal=principal,
        specs=specs,
    )


View = tuple[bool, frozenset[str]]
"""What a caller sees: (writes allowed, the toolsets offered)."""


@dataclass(frozen=True)
class HttpServers:
    """The servers behind /mcp, one per view a caller was given, each built when first asked
    for and kept; which one answers is decided per request (`for_principal`)."""

    specs: Sequence[ToolSpec]
    built: dict[View, MCPServer] = field(default_factory=dict)
    made: dict[str, Tool] = field(default_factory=dict)  # a tool in several servers is made once

    @classmethod
    def build(cls, *, specs: Sequence[ToolSpec] | None = None) -> HttpServers:
        """The servers of `specs` (default: the catalog), with those the setting offers built
        now, with and without writes: most callers see one of them."""
        servers = cls(catalog_specs() if specs is None else specs)
        for writes in (False, True):
            servers.server(writes=writes, toolsets=frozenset(settings.AVENIR_MCP_TOOLSETS))
        return servers

    def server(self, *, writes: bool, toolsets: frozenset[str]) -> MCPServer:
        """The server of this view, built on first use."""
        view = (writes, toolsets)
        if view not in self.built:
            self.built[view] = build_server(
                writes=writes, toolsets=toolsets, local_principal=None, specs=self.specs, made=self.made
            )
        return self.built[view]

    def for_principal(self, principal: Principal) -> MCPServer:
        """The gate at the door: decided on every request, from the settings and the token."""
        return self.server(writes=writes_allowed(principal), toolsets=toolsets_offered(principal))
