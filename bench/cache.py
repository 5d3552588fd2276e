"""Benchmark of the YNAB client's plan cache on a heavy plan: cold load, refreshes, memory.

    .venv/bin/python bench/cache.py [--transactions 50000] [--seed 0] [--runs 50]

Runs against a throwaway SQLite database in a temporary directory (never the project's):
migrates it, seeds the heavy plan (`seed_heavy_plan`), serves the real ASGI application
under uvicorn in a child process, points a `YnabClient` at its sandbox and prints one
figure a line as `name: value unit`:

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

import argparse
import asyncio
import gc
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # this file's own directory would shadow the `sandbox` app
MB = 1024 * 1024
START_TIMEOUT = 60.0


@contextmanager
def _served(database_url: str) -> Iterator[str]:
    """uvicorn serving `avenir_site.asgi:application` in a child process, on a free port.

    By `--port`, not by passing a listening socket with `--fd`: uvicorn takes an fd for a
    Unix socket, so asyncio never sets TCP_NODELAY on its connections, and Nagle's
    algorithm with delayed ACKs then adds ~40 ms to every answer sent in two writes.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    uvicorn = [sys.executable, "-m", "uvicorn", "avenir_site.asgi:application", "--host", "127.0.0.1"]
    command = [*uvicorn, "--port", str(port), "--log-level", "warning", "--no-access-log"]
    server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "DATABASE_URL": database_url})
    try:
        base_url = f"http://127.0.0.1:{port}"
        _wait_until_up(base_url, server)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_until_up(base_url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("The server exited before it answered.")
        try:
            if httpx.get(f"{base_url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)  # not listening yet
    raise SystemExit(f"The server did not answer within {START_TIMEOUT:.0f} s.")


def main() -> None:
    options = _arguments()
    with tempfile.TemporaryDirectory(prefix="avenir-bench-") as workdir:
        database_url = f"sqlite:///{Path(workdir) / 'bench.sqlite3'}"
        os.environ["DATABASE_URL"] = database_url  # before Django reads its settings
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_site.settings")
        os.environ.setdefault("LOG_LEVEL", "WARNING")  # figures on stdout, nothing chatty on stderr
        plan_id = _prepare(options.transactions, options.seed)
        with _served(database_url) as base_url:
            asyncio.run(_measure(f"{base_url}/sandbox/v1", plan_id, options.runs))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=50, help="timed refreshes of each kind (at most 80)")
    return parser.parse_args()


def _prepare(transactions: int, seed: int) -> str:
    """Migrate the throwaway database and seed the heavy plan; its id."""
    import django

    django.setup()
    from django.core.management import call_command

    from sandbox.seeding import seed_heavy_plan

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    plan = seed_heavy_plan(transactions, seed=seed)
    _figure("seed_time", time.perf_counter() - started, "s", 2)
    return plan.id


async def _measure(sandbox_url: str, plan_id: str, runs: int) -> None:
    from django.conf import settings

    from tools.ynab.cache import PlanCache
    from tools.ynab.client import YnabClient

    client = YnabClient(base_url=sandbox_url, token=settings.SANDBOX_TOKEN)
    cache = PlanCache()
    started = time.perf_counter()
    snapshot = await cache.snapshot(client, plan_id)
    _figure("cold_load_time", time.perf_counter() - started, "s", 2)
    _figure("transactions", len(snapshot.transactions), "", 0)
    await cache.snapshot(client, plan_id)  # first warm use, not counted

    unchanged = await _timed(lambda: cache.snapshot(client, plan_id), runs)
    _figure("refresh_median_unchanged", statistics.median(unchanged) * 1000, "ms", 1)
    after_change = await _after_each_change(client, cache, snapshot, runs)
    _figure("refresh_median_after_change", statistics.median(after_change) * 1000, "ms", 1)
    _figure(
        "delta_request_median", await _bare_delta_median(sandbox_url, plan_id, cache, client, runs), "ms", 1
    )
    _figure("full_export_request_time", await _bare_full_export(sandbox_url, plan_id), "s", 2)
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


async def _bare_delta_median(sandbox_url: str, plan_id: str, cache, client, runs: int) -> float:
    """The same delta request with plain httpx: what the sandbox alone costs."""
    from django.conf import settings

    knowledge = (await cache.snapshot(client, plan_id)).server_knowledge
    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    async with httpx.AsyncClient(base_url=sandbox_url, headers=headers, timeout=60) as http:
        url = f"/plans/{plan_id}?last_knowledge_of_server={knowledge}"
        durations = await _timed(lambda: http.get(url), runs)
    return statistics.median(durations) * 1000


async def _bare_full_export(sandbox_url: str, plan_id: str) -> float:
    """One full export with plain httpx, body read but not decoded."""
    from django.conf import settings

    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    async with httpx.AsyncClient(base_url=sandbox_url, headers=headers, timeout=120) as http:
        started = time.perf_counter()
        (await http.get(f"/plans/{plan_id}")).raise_for_status()
        return time.perf_counter() - started


async def _memory(client, plan_id: str) -> None:
    """What one cached snapshot of the plan keeps, measured around a cold load."""
    from tools.ynab.cache import PlanCache

    gc.collect()
    tracemalloc.start()
    cache = PlanCache()
    await cache.snapshot(client, plan_id)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    _figure("cache_memory", kept / MB, "MB", 1)
    _figure("cache_memory_peak", peak / MB, "MB", 1)


async def _timed(call: Callable[[], Awaitable[object]], runs: int) -> list[float]:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        durations.append(time.perf_counter() - started)
    return durations


def _figure(name: str, value: float, unit: str, digits: int) -> None:
    print(f"{name}: {value:.{digits}f} {unit}".rstrip(), flush=True)


if __name__ == "__main__":
    main()
