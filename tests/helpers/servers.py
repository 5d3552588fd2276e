"""The catalog's MCP server for in-memory clients, built once per process for each caller.

Building one makes a JSON schema per tool (~60 ms); a write test connects several times.
Production builds its /mcp servers once too (`HttpServers.build`) and serves every session
with them: a server keeps nothing of a session. Tests that change a server (add a tool or a
prompt) build their own with `build_server`.
"""

from __future__ import annotations

import functools

from django.conf import settings
from mcp.server.mcpserver import MCPServer

from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.tokens.auth import Principal


def catalog_server(*, writes: bool, principal: Principal | None) -> MCPServer:
    """The catalog's server with (or without) the write tools; `principal` answers for its
    requests (None: nobody, as behind /mcp). `writes=writes_allowed(principal)` is
    `local_server(principal)`, gated as of now.

    Keyed by the request-state keys too: the server seals with the keys of its build time.
    """
    return _built(writes, principal, tuple(settings.AVENIR_MCP_REQUEST_STATE_KEYS))


@functools.cache
def _built(writes: bool, principal: Principal | None, _keys: tuple[str, ...]) -> MCPServer:
    return build_server(writes=writes, local_principal=principal)
