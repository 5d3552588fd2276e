"""Benchmark of a busy minute: 10 concurrent sessions x 20 read calls, YNAB requests, refusals, latency.

    .venv/bin/python bench/burst.py [--transactions 50000] [--seed 0] [--sessions 10] [--seconds 50]

Runs against a throwaway SQLite database (`bench/harness.py`): seeds the heavy plan, serves
the real ASGI application in a child process with its default settings (freshness window
15 s, its own sandbox as YNAB) and connects `--sessions` MCP SDK clients over /mcp, each with
a read-only token of its own (as many agents would). The plan is cached by an earlier call,
older than the window. Then every session makes 20 calls at once with the others, spread
evenly over `--seconds` (each starts at its own offset): the ten read tools that read YNAB
(`bench/session.py`'s list), twice. Prints one figure a line as `name: value unit`:

- burst_calls: calls made; burst_refusals: calls answered with an error (pacing included);
- burst_requests: what reached the sandbox ("YNAB") meanwhile, from its own request log;
  burst_deltas and burst_plan_listings: how many were plan deltas and `GET /plans` (for
  list_plans, whose listing is reused within the window too);
- burst_median / burst_p95 (ms): each call end to end, nearest-rank p95.

Targets (issue 8): at most 5 requests, 0 refusals, p95 < 100 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    figure,
    is_delta,
    mcp_client,
    nearest_rank,
    read_only_token,
    request_mark,
    requests_since,
    seed_heavy,
    served,
    throwaway_database,
)
from bench.session import CALLS, session_calls  # noqa: E402


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=50.0, help="how long the calls are spread over")
    options = parser.parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        tokens = [read_only_token(f"bench burst {n}") for n in range(options.sessions)]
        with served() as service:
            asyncio.run(_burst(service, tokens, plan_id, options.seconds))


async def _burst(service: Service, tokens: list[str], plan_id: str, seconds: float) -> None:
    from django.conf import settings

    async with mcp_client(service, tokens[0]) as client:
        await client.call_tool("list_accounts", {"plan_id": plan_id})  # cached by an earlier call
    await asyncio.sleep(settings.AVENIR_MCP_FRESHNESS_SECONDS + 0.5)  # ... now out of date
    mark = await asyncio.to_thread(request_mark)
    results = await asyncio.gather(
        *(_session(service, token, plan_id, seconds, n / len(tokens)) for n, token in enumerate(tokens))
    )
    served_requests = await asyncio.to_thread(requests_since, mark)
    durations = [duration for session in results for duration, _ in session]
    refusals = [text for session in results for _, text in session if text is not None]
    figure("burst_calls", len(durations), "", 0)
    figure("burst_refusals", len(refusals), "", 0)
    figure("burst_requests", len(served_requests), "", 0)
    figure("burst_deltas", sum(1 for entry in served_requests if is_delta(entry)), "", 0)
    figure("burst_plan_listings", sum(1 for entry in served_requests if entry.path.endswith("/plans")), "", 0)
    figure("burst_median", statistics.median(durations) * 1000, "ms", 1)
    figure("burst_p95", nearest_rank(durations, 95) * 1000, "ms", 1)
    for text in sorted(set(refusals))[:3]:
        print(f"refusal: {text}", flush=True)


async def _session(
    service: Service, token: str, plan_id: str, seconds: float, offset: float
) -> list[tuple[float, str | None]]:
    """One agent: 20 calls spread over `seconds`, starting at `offset` of a gap; (duration, error)."""
    gap = seconds / CALLS
    outcomes = []
    async with mcp_client(service, token) as client:
        start = time.monotonic() + offset * gap
        for n, (tool, tool_arguments) in enumerate(session_calls(plan_id)):
            await asyncio.sleep(max(0.0, start + n * gap - time.monotonic()))
            began = time.perf_counter()
            result = await client.call_tool(tool, tool_arguments)
            text = result.content[0].text if result.is_error else None
            outcomes.append((time.perf_counter() - began, text))
    return outcomes


if __name__ == "__main__":
    main()
