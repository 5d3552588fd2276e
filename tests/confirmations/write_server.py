"""A small MCP server whose one write tool goes through `confirm.ask`, as real tools will.

`add_to_assigned` adds an amount to what a sandbox category has assigned in a month. The
write is deliberately NOT idempotent (`budgeted = budgeted + amount`), so a change applied
twice shows in the row; and the subject carries the assigned amount the preview was built
from, so a change made between the preview and the answer changes the fingerprint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Literal

from django.conf import settings
from django.db.models import F
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.types import InputRequiredResult
from pydantic import BaseModel

from avenir_mcp.confirmations.codes import ConfirmationStore
from avenir_mcp.confirmations.confirm import ask
from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.answers import AvenirServer
from avenir_mcp.sandbox.models import MonthCategory
from avenir_mcp.tokens.auth import Principal, ServerState

TOOL = "add_to_assigned"


class WriteResult(BaseModel):
    status: Literal["applied", "declined", "confirmation_required"]
    message: str
    preview: str
    confirmation: str | None = None
    confirmed_by: str | None = None


def local_lifespan(principal: Principal) -> Callable[[MCPServer], AbstractAsyncContextManager[ServerState]]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[ServerState]:
        yield ServerState(local_principal=principal)

    return lifespan


def build_server(principal: Principal, store: ConfirmationStore, *, name: str = "avenir-test") -> MCPServer:
    """A server for `principal` whose confirmations wait in `store`."""
    server = AvenirServer(
        name,
        lifespan=local_lifespan(principal),
        request_state_security=RequestStateSecurity(keys=settings.AVENIR_MCP_REQUEST_STATE_KEYS),
    )

    @server.tool()
    async def add_to_assigned(
        plan_id: str,
        category_id: str,
        month: str,
        amount: int,
        ctx: Context,
        labels: list[str] | None = None,
        confirmation: str | None = None,
    ) -> WriteResult | InputRequiredResult:
        """Add `amount` milliunits to a category's assigned amount (asks the person first)."""
        row = await MonthCategory.objects.select_related("category").aget(
            plan_id=plan_id, category_id=category_id, month=month
        )
        subject = {"category_id": category_id, "month": month, "assigned_before": row.budgeted, "add": amount}
        if labels:
            subject["labels"] = labels
        before, after = _money(row.budgeted), _money(row.budgeted + amount)
        preview = Preview(
            question=f"Budget {row.category.name} for {month}: {before} → {after}?",
            lines=list(labels or []),
        )
        decision = await ask(
            ctx,
            tool=TOOL,
            plan_id=plan_id,
            subject=subject,
            preview=preview,
            confirmation=confirmation,
            store=store,
        )
        if decision.input_required is not None:
            return decision.input_required
        if decision.applied:
            await MonthCategory.objects.filter(pk=row.pk).aupdate(budgeted=F("budgeted") + amount)
            return WriteResult(
                status="applied",
                message="Done.",
                preview=decision.preview,
                confirmed_by=decision.confirmed_by,
            )
        return _not_applied(decision.outcome, decision.message, decision.preview, decision.code)

    return server


def _not_applied(outcome: str, message: Any, preview: str, code: str | None) -> WriteResult:
    return WriteResult(status=outcome, message=message, preview=preview, confirmation=code)


def _money(milliunits: int) -> str:
    sign = "-" if milliunits < 0 else ""
    units, rest = divmod(abs(milliunits), 1000)
    return f"{sign}{units}.{rest // 10:02d}"
