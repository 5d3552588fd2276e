"""Fixtures for the read tools' tests: a fresh demo plan, an agent connected in memory, and
what reached the sandbox (the stand-in for YNAB) while a test ran.

The tools use the process's YNAB client, pointed at the live sandbox by `live_service`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from mcp import Client
from mcp.types import CallToolResult

from avenir_site.mcp_server import build_server
from sandbox import faults
from sandbox.models import Plan
from sandbox.seeding import seed_demo_plan
from tests.reads.month_truth import SandboxPlan
from tools.auth import Principal
from tools.logic.money import parse_amount

READER = Principal.local("reads test", read_only=True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def demo_plan(live_service) -> Plan:
    """A fresh copy of the demo household under an id no other test uses."""
    return seed_demo_plan(plan_id=str(uuid.uuid4()))


@pytest.fixture
def sandbox(demo_plan: Plan, sandbox_url: str) -> SandboxPlan:
    """The demo plan as the sandbox's own API serves it: the truth a month tool is checked against."""
    return SandboxPlan(sandbox_url, demo_plan.id)


@asynccontextmanager
async def agent(mode: str = "2026-07-28") -> AsyncIterator[Client]:
    """An agent connected in memory to the catalog's server, as a read-only local caller."""
    server = build_server(writes=False, local_principal=READER)
    with anyio.fail_after(30):
        async with Client(server, mode=mode) as client:
            yield client


async def call(tool: str, **arguments: Any) -> CallToolResult:
    """One call of `tool` by a fresh agent."""
    async with agent() as client:
        return await client.call_tool(tool, arguments)


def ok(result: CallToolResult) -> dict:
    """The structured content of a successful call (fails the test with the error text)."""
    assert not result.is_error, result.content[0].text
    return result.structured_content


def refusal(result: CallToolResult) -> str:
    """The one-line message of a refused call."""
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "\n" not in text, text
    return text


@pytest.fixture
async def ynab_requests(live_service) -> Callable[[], Awaitable[list]]:
    """`await ynab_requests()`: what reached the sandbox since the test began, oldest first."""
    mark = await sync_to_async(faults.last_request_id)()

    async def served() -> list:
        return await sync_to_async(faults.requests_since)(mark)

    return served


async def request_mark() -> int:
    """The sandbox's request log position now: count what reaches it after with `requests_after`."""
    return await sync_to_async(faults.last_request_id)()


async def requests_after(mark: int) -> list:
    return await sync_to_async(faults.requests_since)(mark)


async def sandbox_get(path: str, **params: Any) -> dict:
    """The sandbox's own answer (`data`) for `GET /sandbox/v1<path>`: what YNAB would hold."""
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.get(
            f"{settings.AVENIR_MCP_YNAB_URL}{path}",
            params=params,
            headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"},
        )
    response.raise_for_status()
    return response.json()["data"]


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
