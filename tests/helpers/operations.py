"""Operations made through the operation log, on plans of their own."""

from __future__ import annotations

import uuid
from typing import Any

from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.auth import Principal

LOCAL = Principal.local("stdio")


def fresh_plan_id() -> str:
    """A plan id no other test uses: tests share one database and never roll back."""
    return f"plan-{uuid.uuid4().hex[:16]}"


async def record(
    plan_id: str,
    *,
    tool: str = "set_category_budget",
    status: str = "applied",
    preview: str = "Budget Restaurants for 2026-09-01: 120.00 → 150.00?",
    principal: Principal = LOCAL,
    undoable: bool = True,
    undo_of: Operation | None = None,
    confirmed_by: str = "elicitation",
    undo_data: Any = None,
) -> Operation:
    """An operation as a write tool leaves it: begun, then completed with `status`."""
    op = await log.begin(
        plan_id=plan_id,
        tool=tool,
        subject={"category_id": "cat-1", "month": "2026-09-01", "budgeted": 150000},
        fingerprint="f" * 64,
        preview=preview,
        confirmed_by=confirmed_by,
        principal=principal,
        undoable=undoable,
        undo_of=undo_of,
    )
    if status != "pending":
        await log.complete(op, status=status, undo_data=undo_data)
    return op
