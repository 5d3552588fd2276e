"""Benchmark of each confirmed write's first call (its preview) over /mcp on a heavy plan: median per tool.

    .venv/bin/python bench/writes.py [--transactions 50000] [--seed 0] [--calls 30]

Runs like `bench/reads.py` (throwaway SQLite database, the heavy plan seeded, the real ASGI
application under uvicorn in a child process whose YNAB is its own sandbox, the MCP SDK's
client over streamable HTTP), with writes on (`AVENIR_MCP_WRITE=1`) and a read-write token.
The client cannot ask (no elicitation), so a write's first call reads the plan (one delta
request on a warm cache), checks the arguments, builds the change and its preview and
returns `confirmation_required` with a code: nothing is written. That first call is what is
timed, `--calls` times per tool after one untimed call; the result must be
`confirmation_required` (a refusal or a `nothing_to_do` stops the bench).

`CASES` is the table of (tool, argument builder); a builder takes `Picks`, the ids of the
heavy plan a write needs (looked up once, in the sandbox's database). Prints one figure a
line as `name: value unit`: seed_time (s), first_call_time (s: the cold load), then
`<tool>_preview_median` (ms) per case.

Target (issues 11 and 12): every preview median < 50 ms on the 50,000-transaction plan.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    figure,
    seed_heavy,
    served,
    throwaway_database,
    timed_async,
)

CALL_TIMEOUT = 120.0


@dataclass(frozen=True)
class Picks:
    """Ids of the heavy plan the write cases use."""

    plan_id: str
    category_id: str  # a spending category (not internal, not a card's payment)
    group_id: str  # a group a category can be created in or moved to (not the category's own)
    payee_id: str  # a payee that is not a transfer payee


CASES: list[tuple[str, Callable[[Picks], dict[str, Any]]]] = [
    (
        "set_category_target",
        lambda p: {"plan_id": p.plan_id, "category_id": p.category_id, "amount": "123.45"},
    ),
    (
        "update_category",
        lambda p: {
            "plan_id": p.plan_id,
            "category_id": p.category_id,
            "name": "Bench renamed",
            "category_group_id": p.group_id,
        },
    ),
    (
        "create_category",
        lambda p: {"plan_id": p.plan_id, "category_group_id": p.group_id, "name": "Bench new"},
    ),
    ("rename_payee", lambda p: {"plan_id": p.plan_id, "payee_id": p.payee_id, "name": "Bench payee"}),
]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--calls", type=int, default=30, help="timed first calls of each write")
    options = parser.parse_args()
    os.environ["AVENIR_MCP_WRITE"] = "1"  # the served child lists and runs write tools
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        picks = _picks(plan_id)
        token = _read_write_token()
        with served() as service:
            asyncio.run(_measure(service, token, picks, options.calls))


def _read_write_token() -> str:
    from tools.models import McpToken

    _token_row, token = McpToken.issue("bench writes")
    return token


def _picks(plan_id: str) -> Picks:
    """The first ordinary category with a sibling group, and the most ordinary payee, by id."""
    from sandbox.models import Category, CategoryGroup, Payee

    groups = CategoryGroup.objects.filter(plan_id=plan_id, deleted=False, internal=False, hidden=False)
    groups = groups.exclude(name="Credit Card Payments").order_by("id")
    category = (
        Category.objects.filter(group__in=groups, deleted=False, internal=False, hidden=False)
        .order_by("id")
        .first()
    )
    if category is None:
        raise SystemExit("The heavy plan has no ordinary category to write to.")
    group = groups.exclude(pk=category.group_id).first()
    payee = (
        Payee.objects.filter(plan_id=plan_id, deleted=False, transfer_account_id=None).order_by("id").first()
    )
    if group is None or payee is None:
        raise SystemExit("The heavy plan has no second group or no ordinary payee to write to.")
    return Picks(plan_id, category.id, group.id, payee.id)


async def _measure(service: Service, token: str, picks: Picks, calls: int) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT)
    )
    transport = streamable_http_client(f"{service.url}/mcp", http_client=http)
    async with http, Client(transport, mode="2026-07-28") as client:
        started = asyncio.get_running_loop().time()
        await client.call_tool("list_payees", {"plan_id": picks.plan_id, "limit": 1})  # the cold load
        figure("first_call_time", asyncio.get_running_loop().time() - started, "s", 2)
        for tool, build in CASES:
            service.reset_pacing()  # a whole hourly budget for this tool's calls
            preview = partial(_preview, client, tool, build(picks))
            await preview()  # untimed
            durations = await timed_async(preview, calls)
            figure(f"{tool}_preview_median", statistics.median(durations) * 1000, "ms", 1)


async def _preview(client, tool: str, arguments: dict[str, Any]) -> None:
    result = await client.call_tool(tool, arguments)
    answer = result.structured_content or {}
    if result.is_error or answer.get("status") != "confirmation_required":
        raise SystemExit(f"{tool} gave no preview for {arguments}: {result.content[0].text}")


if __name__ == "__main__":
    main()
