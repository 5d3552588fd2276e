"""What the sandbox itself says about a plan's months, read over HTTP, to check the tools against.

The month tools read YNAB's month figures through the plan cache; these helpers ask the
sandbox's own endpoints (`GET /plans/{id}/months/{month}`, `GET /plans/{id}/categories`)
for the same plan, so a test compares the tool's answer with an independent read.
Each call here is a request the sandbox logs: read the truth before marking the request log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

import httpx2
from django.conf import settings

from avenir_mcp.values.money import parse_amount
from avenir_mcp.ynab_client.client import tls_context

Json = dict[str, Any]
# The plan's 2 decimal digits, a third only when a milliunit needs it (amount_text never drops one).
PLAN_DIGITS = re.compile(r"-?[0-9]+\.[0-9]{2}(?:[0-9](?<!0))?")


@dataclass(frozen=True)
class SandboxPlan:
    """The sandbox's plan as its own API serves it."""

    base_url: str
    plan_id: str

    async def get(self, path: str) -> Json:
        return await self._send("GET", path)

    async def _send(self, method: str, path: str, body: Json | None = None) -> Json:
        headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
        async with httpx2.AsyncClient(
            base_url=self.base_url, headers=headers, timeout=30, verify=tls_context()
        ) as http:
            response = await http.request(method, f"/plans/{self.plan_id}{path}", json=body)
        response.raise_for_status()
        return response.json()["data"]

    async def rename_category(self, category_id: str, name: str) -> None:
        """Rename a category through the sandbox's API, as the person could in YNAB."""
        await self._send("PATCH", f"/categories/{category_id}", {"category": {"name": name}})

    async def rename_group(self, group_id: str, name: str) -> None:
        await self._send("PATCH", f"/category_groups/{group_id}", {"category_group": {"name": name}})

    async def assign(self, month: str, category_id: str, budgeted: int) -> None:
        """Set a category's assigned amount (milliunits) in a month, as the person could in YNAB."""
        body = {"category": {"budgeted": budgeted}}
        await self._send("PATCH", f"/months/{month}/categories/{category_id}", body)

    async def spend(self, category_id: str, amount: int, day: date) -> None:
        """An outflow of `amount` milliunits (> 0) from the first open budget account, on `day`."""
        accounts = (await self.get("/accounts"))["accounts"]
        account = next(a for a in accounts if a["on_budget"] and not (a["closed"] or a["deleted"]))
        transaction = {
            "account_id": account["id"],
            "date": day.isoformat(),
            "amount": -amount,
            "category_id": category_id,
            "payee_name": "Test spending",
        }
        await self._send("POST", "/transactions", {"transaction": transaction})

    async def months_held(self) -> tuple[str, str]:
        """The plan's first and last month, as `GET /plans/{id}/months` lists them."""
        months = [row["month"] for row in (await self.get("/months"))["months"]]
        return min(months), max(months)

    async def month(self, month: date | str) -> Json:
        """`GET /plans/{id}/months/{month}`: totals and every category's figures (milliunits)."""
        shown = month.isoformat() if isinstance(month, date) else month
        return (await self.get(f"/months/{shown}"))["month"]

    async def groups(self) -> dict[str, Json]:
        """Category groups by id (with `hidden` and `internal`), from `GET /plans/{id}/categories`."""
        data = await self.get("/categories")
        return {group["id"]: group for group in data["category_groups"]}


def in_budget_view(category: Json, groups: dict[str, Json]) -> bool:
    """The rule of docs/tools.md restated on the sandbox's data: neither hidden nor internal, nor its
    group."""
    group = groups[category["category_group_id"]]
    return not (
        category["deleted"]
        or category["hidden"]
        or category["internal"]
        or group["hidden"]
        or group["internal"]
    )


def is_internal(category: Json, groups: dict[str, Json]) -> bool:
    return category["internal"] or groups[category["category_group_id"]]["internal"]


def milliunits(text: str) -> int:
    """A tool's amount text back to milliunits; it must show the demo's 2 decimal digits."""
    assert PLAN_DIGITS.fullmatch(text), f"{text!r} does not show the plan's 2 decimal digits"
    return parse_amount(text)
