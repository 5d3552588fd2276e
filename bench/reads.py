"""Benchmark of every read tool over /mcp on a heavy plan: median and p95 per tool, service memory.

    .venv/bin/python bench/reads.py [--transactions 50000] [--seed 0] [--calls 30] [--mode 2026-07-28]

Runs against a throwaway SQLite database in a temporary directory (never the project's):
migrates it, seeds the heavy plan (`seed_heavy_plan`), creates a read-only MCP token, serves
the real ASGI application under uvicorn in a child process (`bench/harness.py`; its sandbox
is the "YNAB" it reads), connects the MCP SDK's client over streamable HTTP with the token,
and calls each read tool of the catalog (discovered from `catalog_specs()`, arguments from
`tests/reads/read_calls.py`). Prints one figure a line as `name: value unit`:

- seed_time (s), transactions, first_call_time (s: the cold load of the plan, one full export);
- `<tool>_median` and `<tool>_p95` (ms): `--calls` calls of the tool on a warm cache, each
  timed end to end (the client's request over /mcp, the tool's delta request to the sandbox,
  the answer); one untimed call per tool first. p95 is the nearest-rank percentile;
- `<tool>_service_cpu` (ms): CPU time the serving process spent per timed call (its own
  sandbox answering the delta included), from /proc: unlike wall time, it hardly moves when
  other work shares the machine;
- sandbox_delta_median (ms): the bare delta request a warm call sends, over plain HTTP, for
  comparison: a read tool's median is about this, plus the MCP round trip (list_operations
  sends no YNAB request, so its median is that round trip), plus the tool's own work;
- service_rss (MB): resident memory of the serving process after the calls (Linux /proc),
  and service_rss_peak (MB): the most it held (the cold load included).

Targets (issue 4): every read tool median < 50 ms, service memory < 300 MB, on a 2-core machine.

Pacing: the service stops at 180 YNAB requests an hour, as against the real YNAB. A warm call
costs one delta request, so `--calls` calls of every tool go beyond that; the benchmark empties
the served process's hourly count between tools (`Service.reset_pacing` in `bench/harness.py`;
nothing else differs from `make run`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    bare_delta_median,
    cpu_seconds,
    figure,
    nearest_rank,
    seed_heavy,
    served,
    throwaway_database,
    timed_async,
)

CALL_TIMEOUT = 120.0


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--calls", type=int, default=30, help="timed calls of each tool")
    parser.add_argument("--mode", choices=["2026-07-28", "legacy"], default="2026-07-28")
    options = parser.parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        token = _read_only_token()
        with served() as service:
            asyncio.run(_measure(service, token, plan_id, options))
            _memory(service)


def _read_only_token() -> str:
    from avenir_mcp.tokens.models import McpToken

    _token_row, token = McpToken.issue("bench reads", read_only=True)
    return token


# --- the calls ------------------------------------------------------------------------------


async def _measure(service: Service, token: str, plan_id: str, options: argparse.Namespace) -> None:
    import httpx2
    from django.utils import timezone
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.reads.read_calls import read_arguments, read_tool_names

    today = timezone.localdate()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT)
    )
    transport = streamable_http_client(f"{service.url}/mcp", http_client=http)
    async with http, Client(transport, mode=options.mode) as client:
        started = time.perf_counter()
        await _call(client, "get_monthly_summary", {"plan_id": plan_id})
        figure("first_call_time", time.perf_counter() - started, "s", 2)
        for tool in read_tool_names():
            service.reset_pacing()  # a whole hourly budget for this tool's calls
            arguments = read_arguments(tool, plan_id, today)
            await _call(client, tool, arguments)  # untimed
            cpu_before = cpu_seconds(service.process.pid)
            durations = await timed_async(partial(_call, client, tool, arguments), options.calls)
            cpu_per_call = (cpu_seconds(service.process.pid) - cpu_before) / options.calls
            figure(f"{tool}_median", statistics.median(durations) * 1000, "ms", 1)
            figure(f"{tool}_p95", nearest_rank(durations, 95) * 1000, "ms", 1)
            figure(f"{tool}_service_cpu", cpu_per_call * 1000, "ms", 1)
    service.reset_pacing()
    figure(
        "sandbox_delta_median", await bare_delta_median(service.sandbox_url, plan_id, options.calls), "ms", 1
    )


async def _call(client, tool: str, arguments: dict) -> None:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise SystemExit(f"{tool} refused {arguments}: {result.content[0].text}")


# --- memory ---------------------------------------------------------------------------------


def _memory(service: Service) -> None:
    """The serving process's resident memory now and at its peak (Linux /proc)."""
    memory = service.memory()
    if memory is None:
        print("service_rss: unavailable (no /proc on this system)", flush=True)
        return
    figure("service_rss", memory[0], "MB", 1)
    figure("service_rss_peak", memory[1], "MB", 1)


if __name__ == "__main__":
    main()
