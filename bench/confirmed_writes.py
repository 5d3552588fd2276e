"""Benchmark of confirmed writes to one plan at the same moment, over /mcp on a heavy plan.

    .venv/bin/python bench/confirmed_writes.py [--transactions 50000] [--seed 0] [--agents 10]

Runs against a throwaway SQLite database (never the project's): seeds the heavy plan, serves
the real ASGI application with writes on in a child process (`bench/harness.py`; its sandbox
is the "YNAB"), and connects `--agents` agents, each with a read-write MCP token, over
streamable HTTP at protocol 2026-07-28 without elicitation. Each agent previews a
`move_money` of 1.00 from one category (the same for all) to a category of its own and gets a
code; then all answer with their codes at the same moment. The plan's write lock
(docs/confirmation.md#one-change-at-a-time-per-plan) applies them one after another, each on
the plan read inside the lock.

Prints one figure a line as `name: value unit`: seed_time (s), applied (of the agents),
source_taken and destinations_given (milliunits: equal, `--agents` × 1000, when nothing is
lost or made), ready_to_assign_change (milliunits: 0), all_confirmed_time (s: from the first
answer sent to the last result), answer_median and answer_max (ms: each agent's answering
call, waiting for the lock included), requests_per_write (what reached "YNAB" during the
answers, per write: one plan read and two PATCHes).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import httpx2

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    figure,
    mcp_client,
    request_mark,
    requests_since,
    sandbox_token,
    seed_heavy,
    served,
    throwaway_database,
)

AMOUNT = 1_000  # milliunits each agent moves


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--agents", type=int, default=10, help="agents confirming at the same moment")
    options = parser.parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        source, destinations = _categories(plan_id, options.agents)
        tokens = [_read_write_token(n) for n in range(options.agents)]
        os.environ["AVENIR_MCP_WRITE"] = "1"  # the served child lists the write tools
        with served() as service:
            asyncio.run(_measure(service, plan_id, source, destinations, tokens))


def _categories(plan_id: str, count: int) -> tuple[str, list[str]]:
    """The source (the first ordinary category) and a destination of its own for each agent."""
    from avenir_mcp.sandbox.models import Category

    ordinary = Category.objects.filter(
        plan_id=plan_id, role=Category.ROLE_NONE, hidden=False, deleted=False, group__hidden=False
    ).exclude(group__name="Credit Card Payments")
    ids = list(ordinary.order_by("name", "id").values_list("id", flat=True)[: count + 1])
    if len(ids) < count + 1:
        raise SystemExit(
            f"The heavy plan has {len(ids)} ordinary categories; --agents {count} needs {count + 1}."
        )
    return ids[0], ids[1:]


def _read_write_token(n: int) -> str:
    from avenir_mcp.tokens.models import McpToken

    _row, token = McpToken.issue(f"bench agent {n}")
    return token


async def _measure(
    service: Service, plan_id: str, source: str, destinations: list[str], tokens: list[str]
) -> None:
    month = time.strftime("%Y-%m-01")
    before = await _assigned_now(service, plan_id, month, [source, *destinations])
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(mcp_client(service, token)) for token in tokens]
        moves = [
            {
                "plan_id": plan_id,
                "month": month,
                "from_category_id": source,
                "to_category_id": destination,
                "amount": "1.00",
            }
            for destination in destinations
        ]
        codes = [await _code(client, move) for client, move in zip(clients, moves, strict=True)]
        service.reset_pacing()
        mark = await asyncio.to_thread(request_mark)
        started = time.perf_counter()
        answered = await asyncio.gather(
            *[_answer(client, move, code) for client, move, code in zip(clients, moves, codes, strict=True)]
        )
        figure("all_confirmed_time", time.perf_counter() - started, "s", 2)
        served_requests = await asyncio.to_thread(requests_since, mark)
    after = await _assigned_now(service, plan_id, month, [source, *destinations])
    applied = sum(1 for status, _seconds in answered if status == "applied")
    figure("applied", applied, "writes", 0)
    figure("source_taken", before[source] - after[source], "milliunits", 0)
    figure("destinations_given", sum(after[d] - before[d] for d in destinations), "milliunits", 0)
    figure("ready_to_assign_change", after["ready"] - before["ready"], "milliunits", 0)
    durations = [seconds for _status, seconds in answered]
    figure("answer_median", statistics.median(durations) * 1000, "ms", 1)
    figure("answer_max", max(durations) * 1000, "ms", 1)
    figure("requests_per_write", len(served_requests) / max(applied, 1), "requests", 2)


async def _code(client, move: dict) -> str:
    result = await client.call_tool("move_money", move)
    if result.is_error or (result.structured_content or {}).get("status") != "confirmation_required":
        raise SystemExit(f"move_money gave no preview: {result.content[0].text}")
    return result.structured_content["confirmation"]


async def _answer(client, move: dict, code: str) -> tuple[str, float]:
    started = time.perf_counter()
    result = await client.call_tool("move_money", {**move, "confirmation": code})
    seconds = time.perf_counter() - started
    status = "error" if result.is_error else (result.structured_content or {}).get("status", "")
    return status, seconds


async def _assigned_now(
    service: Service, plan_id: str, month: str, category_ids: list[str]
) -> dict[str, int]:
    """Each category's assigned amount that month, and Ready to Assign (`ready`), in milliunits,
    as the sandbox's YNAB API answers them."""
    headers = {"Authorization": f"Bearer {sandbox_token()}"}
    base = f"{service.sandbox_url}/plans/{plan_id}/months/{month}"
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        figures = {}
        for category in category_ids:
            answer = (await http.get(f"{base}/categories/{category}")).json()
            figures[category] = answer["data"]["category"]["budgeted"]
        figures["ready"] = (await http.get(base)).json()["data"]["month"]["to_be_budgeted"]
    return figures


if __name__ == "__main__":
    main()
