"""Benchmark of the YNAB client's plan cache on a heavy plan: cold load, refreshes, memory.

    .venv/bin/python bench/cache.py [--transactions 50000] [--seed 0] [--runs 50]

Runs against a throwaway SQLite database in a temporary directory (never the project's):
migrates it, seeds the heavy plan (`seed_heavy_plan`), serves the real ASGI application
under uvicorn in a child process (`bench/harness.py`), points a `YnabClient` at its sandbox
and prints one figure a line as `name: value unit`:

- cold_load_time: the first `snapshot()` of the plan (full export over HTTP, parsed, indexed);
- refresh_median_unchanged: a warm `snapshot()` when nothing changed (one delta request);
- refresh_median_after_change: a warm `snapshot()` right after one transaction's memo was
  changed through the client (the write itself not timed);
- delta_request_median / full_export_request_time: the bare requests over HTTP, for
  comparison (the sandbox's share of a refresh and of a cold load);
- cache_memory: memory the cached snapshot keeps (tracemalloc, after a cold load into an
  empty cache), and cache_memory_peak: the most in use during that load.

Every `snapshot()` is timed end to end: pacing, the request, its YnabRequest row, parsing
and merging. Targets (issue 3): refresh median < 25 ms, cache memory < 150 MB.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import httpx2

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    MB,
    arguments,
    bare_delta_median,
    figure,
    sandbox_token,
    seed_heavy,
    served,
    throwaway_database,
    timed_async,
)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=50, help="timed refreshes of each kind (at most 80)")
    options = parser.parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        with served() as service:
            asyncio.run(_measure(service.sandbox_url, plan_id, options.runs))


async def _measure(sandbox_url: str, plan_id: str, runs: int) -> None:
    from avenir_mcp.ynab_client.cache import PlanCache
    from avenir_mcp.ynab_client.client import YnabClient

    client = YnabClient(base_url=sandbox_url, token=sandbox_token())
    cache = PlanCache()
    started = time.perf_counter()
    snapshot = await cache.snapshot(client, plan_id)
    figure("cold_load_time", time.perf_counter() - started, "s", 2)
    figure("transactions", len(snapshot.transactions), "", 0)
    await cache.snapshot(client, plan_id)  # first warm use, not counted

    unchanged = await timed_async(lambda: cache.snapshot(client, plan_id), runs)
    figure("refresh_median_unchanged", statistics.median(unchanged) * 1000, "ms", 1)
    after_change = await _after_each_change(client, cache, snapshot, runs)
    figure("refresh_median_after_change", statistics.median(after_change) * 1000, "ms", 1)
    figure("delta_request_median", await bare_delta_median(sandbox_url, plan_id, runs), "ms", 1)
    figure("full_export_request_time", await _bare_full_export(sandbox_url, plan_id), "s", 2)
    await _memory(client, plan_id)
    await client.aclose()


async def _after_each_change(client, cache, snapshot, runs: int) -> list[float]:
    """Change one transaction's memo, then time the refresh that brings it in."""
    plan_id = snapshot.plan_id
    ids = sorted(snapshot.transactions)
    durations = []
    for run in range(runs):
        changed = ids[(run * 997) % len(ids)]
        await client.patch_transactions(plan_id, [{"id": changed, "memo": f"bench {run}"}])
        started = time.perf_counter()
        fresh = await cache.snapshot(client, plan_id)
        durations.append(time.perf_counter() - started)
        if fresh.transactions[changed].memo != f"bench {run}":
            raise SystemExit("The refresh did not bring in the change.")
    return durations


async def _bare_full_export(sandbox_url: str, plan_id: str) -> float:
    """One full export with plain httpx2, body read but not decoded."""
    headers = {"Authorization": f"Bearer {sandbox_token()}"}
    async with httpx2.AsyncClient(base_url=sandbox_url, headers=headers, timeout=120) as http:
        started = time.perf_counter()
        (await http.get(f"/plans/{plan_id}")).raise_for_status()
        return time.perf_counter() - started


async def _memory(client, plan_id: str) -> None:
    """What one cached snapshot of the plan keeps, measured around a cold load."""
    from avenir_mcp.ynab_client.cache import PlanCache

    gc.collect()
    tracemalloc.start()
    cache = PlanCache()
    await cache.snapshot(client, plan_id)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figure("cache_memory", kept / MB, "MB", 1)
    figure("cache_memory_peak", peak / MB, "MB", 1)


if __name__ == "__main__":
    main()
