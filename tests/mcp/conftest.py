"""Fixtures for the MCP tests: tokens and a service of sample tools.

The MCP client over real HTTP is `tests.helpers.mcp_http`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from starlette.types import Receive, Scope, Send

from avenir_mcp.mcp_surface.http import McpHttpApp
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.tokens.models import McpToken
from tests.mcp.sample_tools import SAMPLE_SPECS
from tests.served import ServedApp


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def issue_token() -> Callable[..., tuple[McpToken, str]]:
    """Issue a token with a unique name: `issue_token(read_only=False)` -> (row, plaintext)."""

    def issue(*, read_only: bool = False) -> tuple[McpToken, str]:
        return McpToken.issue(f"test {uuid.uuid4().hex[:12]}", read_only=read_only)

    return issue


@pytest.fixture
def read_only_token(issue_token) -> tuple[McpToken, str]:
    return issue_token(read_only=True)


@pytest.fixture
def read_write_token(issue_token) -> tuple[McpToken, str]:
    return issue_token(read_only=False)


@pytest.fixture
def another_read_write_token(issue_token) -> tuple[McpToken, str]:
    return issue_token(read_only=False)


@pytest.fixture(scope="session")
def sample_service(_database) -> Iterator[ServedApp]:
    """/mcp exactly as asgi.py serves it, but built from the sample tools (one is a write tool)."""
    mcp_app = McpHttpApp(HttpServers.build(specs=SAMPLE_SPECS))

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await mcp_app.serve_lifespan(receive, send)
        else:
            await mcp_app(scope, receive, send)

    with ServedApp(app) as served:
        yield served
