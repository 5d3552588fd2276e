"""An agent of the read tools: the catalog's server in memory, as a read-only local caller."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import Client
from mcp.types import CallToolResult

from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.money import parse_amount
from tests.helpers.results import ok
from tests.helpers.servers import catalog_server

READER = Principal.local("reads test", read_only=True)


@asynccontextmanager
async def agent(mode: str = "2026-07-28") -> AsyncIterator[Client]:
    """An agent connected in memory to the catalog's server, as a read-only local caller."""
    server = catalog_server(writes=False, principal=READER)
    with anyio.fail_after(30):
        async with Client(server, mode=mode) as client:
            yield client


async def call(tool: str, **arguments: Any) -> CallToolResult:
    """One call of `tool` by a fresh agent."""
    async with agent() as client:
        return await client.call_tool(tool, arguments)


def milliunits(amount_text: str) -> int:
    """A result's decimal amount read back as milliunits (exactly)."""
    return parse_amount(amount_text)


async def every_page(tool: str, items: str, **arguments: Any) -> tuple[list[dict], list[dict]]:
    """Every item of a paged tool (following next_cursor), and each page's structured content."""
    found, pages, cursor = [], [], None
    async with agent() as client:
        while True:
            page = ok(await client.call_tool(tool, {**arguments, **({"cursor": cursor} if cursor else {})}))
            pages.append(page)
            found.extend(page[items])
            cursor = page["next_cursor"]
            if cursor is None:
                return found, pages
