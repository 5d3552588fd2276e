"""move_money under faults: a fault on its source's or its destination's PATCH, the move confirmed
with a code, and which of its requests reached the sandbox."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from tests.helpers.write_cases.move_money import MOVED
from tests.writes.assigned_plans import DINING_ASSIGNED, GROCERIES_ASSIGNED, BudgetHome
from tests.writes.harness import MODERN, WriteCase, connected, content

AS_BEFORE = (GROCERIES_ASSIGNED, DINING_ASSIGNED)
HALF_DONE = (GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED)


async def inject(kind: str, budget: BudgetHome, category_id: str, method: str = "PATCH", **options) -> None:
    path = budget.category_path(category_id) + "$"
    await sync_to_async(faults.inject)(kind, method=method, path=path, **options)


async def source_fault(kind: str, budget: BudgetHome, **options) -> None:
    await inject(kind, budget, budget.home.groceries, **options)


async def destination_fault(kind: str, budget: BudgetHome, **options) -> None:
    await inject(kind, budget, budget.home.dining, **options)


async def spares_the_first_source_write(budget: BudgetHome) -> None:
    """Faults are used oldest first: this one lets the move's own source PATCH through untouched,
    so a fault injected after it reaches the next source PATCH (the set-back)."""
    await source_fault("delay", budget, delay_ms=1)


async def move_with_code(case: WriteCase, arm: Callable[[], Awaitable[None]] | None = None):
    """The move, confirmed with a code: (the call's result, the log row, requests after the code).

    `arm` injects faults right before the confirming call, after this test's own reads (a
    fault on a GET would otherwise be used by them).
    """
    async with connected(MODERN) as client:
        first = content(await client.call_tool(case.tool, case.arguments))
        if arm is not None:
            await arm()
        mark = await sync_to_async(faults.last_request_id)()
        result = await client.call_tool(case.tool, {**case.arguments, "confirmation": first["confirmation"]})
    op = await Operation.objects.filter(plan_id=case.plan_id).order_by("-created_at").afirst()
    return result, op, await served(case, mark)


async def served(case: WriteCase, mark: int) -> list[str]:
    """The requests to the two categories that reached the sandbox after `mark`: `PATCH Groceries`."""
    names = {case.arguments["from_category_id"]: "Groceries", case.arguments["to_category_id"]: "Dining Out"}
    entries = await sync_to_async(faults.requests_since)(mark)
    return [
        f"{entry.method} {names[entry.path.rsplit('/', 1)[1]]}"
        for entry in entries
        if "/categories/" in entry.path and entry.path.rsplit("/", 1)[1] in names
    ]
