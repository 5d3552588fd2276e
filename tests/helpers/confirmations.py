"""The confirmation tests' plan row, elicitation answers and pinned client sessions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client import ClientRequestContext
from mcp.client._memory import InMemoryTransport
from mcp.server.mcpserver import MCPServer
from mcp.types import ElicitRequestParams, ElicitResult

from avenir_mcp.sandbox.models import MonthCategory

MONTH = "2026-09-01"
START = 120_000  # 120.00 assigned before any test write
ADD = 30_000  # what the test tool adds when applied


@dataclass(frozen=True)
class BudgetRow:
    """A category-month of a fresh sandbox plan, and the arguments that change it."""

    plan_id: str
    category_id: str
    pk: int

    @property
    def args(self) -> dict[str, object]:
        return {"plan_id": self.plan_id, "category_id": self.category_id, "month": MONTH, "amount": ADD}

    async def assigned(self) -> int:
        return (await MonthCategory.objects.aget(pk=self.pk)).budgeted

    async def set_assigned(self, milliunits: int) -> None:
        await MonthCategory.objects.filter(pk=self.pk).aupdate(budgeted=milliunits)


ElicitationCallback = Callable[[ClientRequestContext, ElicitRequestParams], object]


def answering(action: str, value: object = None, *, seen: list[ElicitRequestParams] | None = None):
    """An elicitation callback giving one fixed answer (and recording what it was shown)."""

    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        if seen is not None:
            seen.append(params)
        if action == "accept":
            return ElicitResult(action="accept", content={"value": value})
        return ElicitResult(action=action)

    return callback


@asynccontextmanager
async def pinned_session(
    server: MCPServer, version: str, callback: ElicitationCallback | None
) -> AsyncIterator[ClientSession]:
    """A client session that negotiates exactly `version` (the SDK's Client cannot pin one)."""
    capabilities = mcp_types.ClientCapabilities(
        elicitation=mcp_types.ElicitationCapability() if callback is not None else None
    )
    async with (
        InMemoryTransport(server) as (read, write),
        ClientSession(read, write, elicitation_callback=callback) as session,
    ):
        init = await session.send_request(
            mcp_types.InitializeRequest(
                params=mcp_types.InitializeRequestParams(
                    protocol_version=version,
                    capabilities=capabilities,
                    client_info=mcp_types.Implementation(name="pinned-client", version="1"),
                )
            ),
            mcp_types.InitializeResult,
        )
        assert init.protocol_version == version
        session.adopt(init)
        await session.send_notification(mcp_types.InitializedNotification())
        yield session
