"""An agent on the live service's /mcp (the SDK's client over HTTP), and a plan for it to budget in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult

from tests.helpers.mcp_http import mcp_over_http
from tests.writes.assigned_plans import BudgetHome, budget_arguments

NEW_AMOUNT = "150.00"  # Dining Out has 120.00 assigned (tests.writes.assigned_plans)
NEW_MILLIUNITS = 150_000


@dataclass(frozen=True)
class Agent:
    """A client without elicitation, holding a read-write token: it gets confirmation codes."""

    base_url: str
    token: str

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        async with mcp_over_http(self.base_url, self.token) as client:
            return await client.call_tool(tool, arguments)

    async def propose_budget(self, budget: BudgetHome) -> str:
        """Ask to set Dining Out to `NEW_AMOUNT`: nothing changes, a code waits for the person."""
        first = await self.call("set_category_budget", budget_arguments(budget))
        assert not first.is_error, first.content[0].text
        assert first.structured_content["status"] == "confirmation_required", first.structured_content
        return first.structured_content["confirmation"]

    async def budget_with_code(self, budget: BudgetHome) -> str:
        """Set Dining Out to `NEW_AMOUNT` the way the person agrees by code; the operation's id."""
        code = await self.propose_budget(budget)
        applied = await self.call("set_category_budget", {**budget_arguments(budget), "confirmation": code})
        assert not applied.is_error, applied.content[0].text
        assert applied.structured_content["status"] == "applied", applied.structured_content
        return applied.structured_content["operation_id"]

    async def undo_with_code(self, budget: BudgetHome, operation_id: str) -> str:
        """Undo `operation_id` (of `budget`'s plan) the way the person agrees by code; the undo's own id."""
        arguments: dict[str, Any] = {"operation_id": operation_id, "plan_id": budget.id}
        first = await self.call("undo_operation", arguments)
        assert not first.is_error, first.content[0].text
        assert first.structured_content["status"] == "confirmation_required", first.structured_content
        code = first.structured_content["confirmation"]
        applied = await self.call("undo_operation", {**arguments, "confirmation": code})
        assert applied.structured_content["status"] == "applied", applied.structured_content
        return applied.structured_content["operation_id"]
