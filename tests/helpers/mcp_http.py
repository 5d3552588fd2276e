"""The SDK's MCP client over real HTTP, in each protocol mode the service speaks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from avenir_mcp.ynab_client.client import tls_context

Mode = Literal["2026-07-28", "legacy"]
MODES: tuple[Mode, ...] = ("2026-07-28", "legacy")


@asynccontextmanager
async def mcp_over_http(
    base_url: str,
    token: str | None,
    *,
    mode: Mode = "2026-07-28",
    transport: httpx2.AsyncBaseTransport | None = None,
    **client_options,
) -> AsyncIterator[Client]:
    """The SDK's client on `<base_url>/mcp`, sending the bearer token (when given); its HTTP
    goes through `transport` when given (e.g. `WithoutStandaloneStream`)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(30, read=60), verify=tls_context(), transport=transport
    )
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


class WithoutStandaloneStream(httpx2.AsyncBaseTransport):
    """HTTP for a client that never opens the standalone GET stream (the protocol leaves it
    optional, and many clients do without): its GET is answered 405 here and never reaches the
    server, so the server can reach this client only on the streams of its own POSTs."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport(verify=tls_context())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return httpx2.Response(405, request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
