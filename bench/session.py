"""Benchmark of an agent's session: 20 mixed read calls back to back, YNAB requests and total time.

    .venv/bin/python bench/session.py [--transactions 50000] [--seed 0]

Runs against a throwaway SQLite database (`bench/harness.py`): seeds the demo plan and the
heavy plan, serves the real ASGI application in a child process with its default settings
(freshness window 15 s, its own sandbox as YNAB), and connects the MCP SDK's client over
/mcp with a read-only token. For each plan, the session starts as a new agent's would: the
plan already cached by an earlier call but older than the freshness window. Then the same
20 calls, back to back: the ten read tools that read YNAB (`tests/reads/read_calls.py`), in
catalog order, then the ten again. The requests are counted in the sandbox's own request
log (what reached "YNAB"). Prints one figure a line as `name: value unit`:

- `<plan>_session_requests`: YNAB requests the 20 calls cost (deltas and plan listings);
- `<plan>_session_exports`: how many of them were full exports (expected 0);
- `<plan>_session_time` (ms): the 20 calls end to end.

`<plan>` is `demo` and `heavy`. Target (issue 8): at most 3 requests per session (before:
20, one delta request per call).
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    call_tool,
    figure,
    is_delta,
    mcp_client,
    read_only_token,
    request_mark,
    requests_since,
    seed_heavy,
    served,
    throwaway_database,
)

CALLS = 20
NO_YNAB = {"list_operations"}  # reads the operation log only


def main() -> None:
    options = arguments(__doc__).parse_args()
    with throwaway_database():
        heavy_id = seed_heavy(options.transactions, options.seed)
        from avenir_mcp.sandbox.seeding import seed_demo_plan

        demo_id = seed_demo_plan(plan_id=str(uuid.uuid4())).id
        token = read_only_token("bench session")
        with served() as service:
            for name, plan_id in (("demo", demo_id), ("heavy", heavy_id)):
                asyncio.run(_session(service, token, name, plan_id))


def session_calls(plan_id: str) -> list[tuple[str, dict]]:
    """The session's 20 calls: the read tools that read YNAB, in catalog order, twice."""
    from django.utils import timezone

    from tests.reads.read_calls import read_arguments, read_tool_names

    tools = [tool for tool in read_tool_names() if tool not in NO_YNAB]
    calls = [(tool, read_arguments(tool, plan_id, timezone.localdate())) for tool in tools]
    return (calls * CALLS)[:CALLS]


async def _session(service: Service, token: str, name: str, plan_id: str) -> None:
    from django.conf import settings

    calls = session_calls(plan_id)
    async with mcp_client(service, token) as client:
        await call_tool(client, "list_accounts", {"plan_id": plan_id})  # cached by an earlier call
        await asyncio.sleep(settings.AVENIR_MCP_FRESHNESS_SECONDS + 0.5)  # ... that is now out of date
        mark = await asyncio.to_thread(request_mark)
        started = time.perf_counter()
        for tool, tool_arguments in calls:
            await call_tool(client, tool, tool_arguments)
        elapsed = time.perf_counter() - started
    served_requests = await asyncio.to_thread(requests_since, mark)
    exports = [entry for entry in served_requests if entry.path.endswith(plan_id) and not is_delta(entry)]
    figure(f"{name}_session_requests", len(served_requests), "", 0)
    figure(f"{name}_session_exports", len(exports), "", 0)
    figure(f"{name}_session_time", elapsed * 1000, "ms", 0)


if __name__ == "__main__":
    main()
