"""The sandbox's side of a test (the stand-in for YNAB): its own API, its request log, its faults."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx2
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import RequestLogEntry
from avenir_mcp.ynab_client.client import tls_context


async def sandbox_call(method: str, path: str, body: dict | None = None) -> dict:
    """The sandbox's own API, as YNAB's app would change the plan (`data` of the answer)."""
    async with httpx2.AsyncClient(timeout=30, verify=tls_context()) as http:
        response = await http.request(
            method,
            f"{settings.AVENIR_MCP_YNAB_URL}{path}",
            json=body,
            headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"},
        )
    response.raise_for_status()
    return response.json()["data"]


async def sandbox_get(path: str, **params: Any) -> dict:
    """The sandbox's own answer (`data`) for `GET /sandbox/v1<path>`: what YNAB would hold."""
    async with httpx2.AsyncClient(timeout=30, verify=tls_context()) as http:
        response = await http.get(
            f"{settings.AVENIR_MCP_YNAB_URL}{path}",
            params=params,
            headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"},
        )
    response.raise_for_status()
    return response.json()["data"]


async def request_mark() -> int:
    """The sandbox's request log position now: count what reaches it after with `requests_after`."""
    return await sync_to_async(faults.last_request_id)()


async def requests_after(mark: int) -> list:
    return await sync_to_async(faults.requests_since)(mark)


async def writes_after(mark: int) -> list:
    """The write requests (anything but GET) the sandbox served after `mark`."""
    served = await sync_to_async(faults.requests_since)(mark)
    return [entry for entry in served if entry.method != "GET"]


inject = sync_to_async(faults.inject)


class SandboxLog:
    """What reached the sandbox after a mark: `log.mark()`, act, `await log.requests()`."""

    def __init__(self) -> None:
        self._mark = 0

    async def mark(self) -> None:
        self._mark = await sync_to_async(faults.last_request_id)()

    async def requests(self, containing: str = "") -> list[RequestLogEntry]:
        entries = await sync_to_async(faults.requests_since)(self._mark)
        return [entry for entry in entries if containing in entry.path]


def get(api: httpx2.Client, path: str, key: str, **params) -> list[dict] | dict:
    """`data[key]` of the sandbox's answer to `GET <path>`, through `api` (a client of its API)."""
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()["data"][key]


def transactions(api: httpx2.Client, plan_id: str, since: date) -> list[dict]:
    """Every (non-deleted) transaction of the plan dated `since` or later."""
    return get(api, f"/plans/{plan_id}/transactions", "transactions", since_date=since.isoformat())
