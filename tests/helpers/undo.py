"""The undo tests' agents, the operations they undo (logged, or made by a tool) and the categories
they moved.

Tools run in memory (the catalog's server as `local_server` gates it, built once per process:
`tests.helpers.servers`) and reach the live sandbox over HTTP, as in production; changes "made
in YNAB since" go through the sandbox's own API (`tests.helpers.sandbox_side`), so they show in
the next delta read like a change made in YNAB's app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from typing import Any

import anyio
from mcp import Client
from mcp.types import CallToolResult

from avenir_mcp.mcp_surface.registry import writes_allowed
from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.models import Category, MonthCategory, Payee, Plan
from avenir_mcp.tokens.auth import Principal
from tests.helpers.confirmations import answering
from tests.helpers.results import ok
from tests.helpers.sandbox_side import request_mark, sandbox_call, writes_after
from tests.helpers.servers import catalog_server
from tests.sandbox.plans import SmallPlan
from tests.undo import budget_undo  # registers the framework tests' handler
from tests.writes.category_plans import group_of
from tests.writes.households import Household

PERSON = Principal.local("undo test")
LEGACY = "legacy"
MODERN = "2026-07-28"
BUDGETS_TOOL = budget_undo.TOOL


# --- agents ------------------------------------------------------------------------------------


@asynccontextmanager
async def agent(
    mode: str = LEGACY, *, answer: str | None = None, principal: Principal = PERSON
) -> AsyncIterator[Client]:
    """An agent in memory on the catalog's server; `answer` None = a client that cannot ask."""
    options: dict[str, Any] = {"mode": mode}
    if answer is not None:
        options["elicitation_callback"] = answering(answer, True)
    with anyio.fail_after(60):
        server = catalog_server(writes=writes_allowed(principal), principal=principal)
        async with Client(server, **options) as client:
            yield client


async def undo(client: Client, **arguments: Any) -> CallToolResult:
    return await client.call_tool("undo_operation", arguments)


async def undo_with_code(plan_id: str, **arguments: Any) -> tuple[dict, dict]:
    """The code path: preview and code, then the call with the code. (first, second) content."""
    async with agent() as client:
        first = ok(await undo(client, plan_id=plan_id, **arguments))
        assert first["status"] == "confirmation_required", first
        second = ok(await undo(client, plan_id=plan_id, confirmation=first["confirmation"], **arguments))
    return first, second


async def write_with_code(tool: str, arguments: dict[str, Any]) -> dict:
    """A confirmed write made the way a client without elicitation makes it; its applied result."""
    async with agent() as client:
        first = ok(await client.call_tool(tool, arguments))
        if first["status"] != "confirmation_required":
            return first
        return ok(await client.call_tool(tool, {**arguments, "confirmation": first["confirmation"]}))


# --- the sandbox's rows ------------------------------------------------------------------------


async def set_assigned(plan_id: str, month: str, category_id: str, milliunits: int) -> None:
    path = f"/plans/{plan_id}/months/{month}/categories/{category_id}"
    await sandbox_call("PATCH", path, {"category": {"budgeted": milliunits}})


async def assigned(plan_id: str, month: str, category_id: str) -> int:
    row = await MonthCategory.objects.filter(
        plan_id=plan_id, month=date.fromisoformat(month), category_id=category_id
    ).afirst()
    return row.budgeted if row is not None else 0


async def category_id(plan: Plan, name: str) -> str:
    return (await Category.objects.aget(plan=plan, name=name)).id


# --- the log -------------------------------------------------------------------------------------


async def logged(
    plan_id: str,
    *,
    tool: str = BUDGETS_TOOL,
    status: str = "applied",
    undo_data: Any = None,
    undoable: bool = True,
    undo_of: Operation | None = None,
    preview: str = "Budget 2 category(ies)?",
) -> Operation:
    """An operation as a write tool leaves it in the log: begun, then completed with `status`."""
    op = await log.begin(
        plan_id=plan_id,
        tool=tool,
        subject={"test": True},
        fingerprint="0" * 64,
        preview=preview,
        confirmed_by="code",
        principal=PERSON,
        undoable=undoable,
        undo_of=undo_of,
    )
    if status != "pending":
        await log.complete(op, status=status, undo_data=undo_data)
    return op


async def nothing_undone(home: Household | SmallPlan, op_id: str) -> dict:
    """undo_operation, which must write nothing and leave the operation applied; its answer."""
    mark = await request_mark()
    async with agent() as client:
        answer = ok(await undo(client, plan_id=home.id, operation_id=op_id))
    assert answer["status"] == "nothing_to_do"
    assert await writes_after(mark) == []
    assert (await Operation.objects.aget(pk=op_id)).status == "applied"
    return answer


async def renamed(home: Household, name: str = "Corner Cafe") -> tuple[str, str]:
    """CORNER CAFE renamed `name`, agreed to: (operation id, the payee's id)."""
    cafe = (await Payee.objects.aget(plan_id=home.id, name="CORNER CAFE")).id
    applied = await write_with_code("rename_payee", {"plan_id": home.id, "payee_id": cafe, "name": name})
    assert applied["status"] == "applied", applied
    return applied["operation_id"], cafe


async def moved(home: SmallPlan) -> tuple[str, str]:
    """Dining Out renamed Restaurants and moved to Bills, agreed to: (operation id, Bills' id)."""
    bills = await group_of(home.rent)
    arguments = {
        "plan_id": home.id,
        "category_id": home.dining,
        "name": "Restaurants",
        "category_group_id": bills,
    }
    applied = await write_with_code("update_category", arguments)
    assert applied["status"] == "applied", applied
    return applied["operation_id"], bills


async def fresh(op: Operation) -> Operation:
    return await Operation.objects.aget(pk=op.pk)


class Budgets:
    """The operation of the `budgets` fixture and the categories it moved."""

    def __init__(self, plan_id: str, month: str, items: list[dict], op: Operation) -> None:
        self.plan_id, self.month, self.items, self.op = plan_id, month, items, op

    async def current(self) -> list[int]:
        return [await assigned(self.plan_id, self.month, item["category_id"]) for item in self.items]

    @property
    def before(self) -> list[int]:
        return [item["before"] for item in self.items]

    @property
    def after(self) -> list[int]:
        return [item["after"] for item in self.items]


async def make_budgets(plan: Plan) -> Budgets:
    """Two categories of the demo plan moved by a logged operation, as the tool would leave them."""
    month = plan.last_month.isoformat()
    ids = [await category_id(plan, "Groceries"), await category_id(plan, "Dining Out")]
    items = []
    for index, category in enumerate(ids):
        before = await assigned(plan.id, month, category)
        after = before + 10_000 * (index + 1)
        await set_assigned(plan.id, month, category, after)
        items.append({"category_id": category, "before": before, "after": after})
    op = await logged(plan.id, undo_data={"month": month, "categories": items})
    return Budgets(plan.id, month, items, op)
