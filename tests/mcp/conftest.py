"""Fixtures for the MCP tests: tokens, MCP clients over real HTTP, a service of sample tools."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Literal

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.types import Receive, Scope, Send

from avenir_site.mcp_http import McpHttpApp
from avenir_site.mcp_server import HttpServers
from tests.mcp.sample_tools import SAMPLE_SPECS
from tests.served import ServedApp
from tools.models import McpToken

Mode = Literal["2026-07-28", "legacy"]
MODES: tuple[Mode, ...] = ("2026-07-28", "legacy")


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


@asynccontextmanager
async def mcp_over_http(
    base_url: str, token: str | None, *, mode: Mode = "2026-07-28", **client_options
) -> AsyncIterator[Client]:
    """The SDK's client on `<base_url>/mcp`, sending the bearer token (when given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60))
    async with (
        http,
        Client(
            streamable_http_client(f"{base_url}/mcp", http_client=http), mode=mode, **client_options
        ) as client,
    ):
        yield client


async def instructions_of(client: Client) -> str:
    """The server's instructions, also at 2026-07-28 (where a pinned client skips discovery)."""
    if client.instructions is not None:
        return client.instructions
    discovered = await client.session.send_discover(client.session.protocol_version)
    return discovered["instructions"]


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
