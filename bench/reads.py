"""Benchmark of every read tool over /mcp on a heavy plan: median and p95 per tool, service memory.

    .venv/bin/python bench/reads.py [--transactions 50000] [--seed 0] [--calls 30] [--mode 2026-07-28]

Runs against a throwaway SQLite database in a temporary directory (never the project's):
migrates it, seeds the heavy plan (`seed_heavy_plan`), creates a read-only MCP token, serves
the real ASGI application under uvicorn in a child process (its sandbox is the "YNAB" it
reads), connects the MCP SDK's client over streamable HTTP with the token, and calls each read
tool of the catalog (discovered from `catalog_specs()`, arguments from
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
costs one delta request, so `--calls` calls of every tool go beyond that; the child process
empties its pacer's hourly count when the benchmark sends it SIGUSR1, between tools (nothing
else differs from `make run`).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # this file's own directory would shadow the `sandbox` app
START_TIMEOUT = 60.0
CALL_TIMEOUT = 120.0
MB = 1024 * 1024


def main() -> None:
    options = _arguments()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # figures on stdout, nothing chatty on stderr
    if options.serve_on is not None:
        _serve(options.serve_on)
        return
    with tempfile.TemporaryDirectory(prefix="avenir-bench-") as workdir:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(workdir) / 'bench.sqlite3'}"  # before Django
        plan_id, token = _prepare(options.transactions, options.seed)
        with _service() as (base_url, server):
            asyncio.run(_measure(base_url, token, plan_id, server, options))
            _memory(server)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calls", type=int, default=30, help="timed calls of each tool")
    parser.add_argument("--mode", choices=["2026-07-28", "legacy"], default="2026-07-28")
    parser.add_argument("--serve-on", type=int, default=None, help=argparse.SUPPRESS)  # the child
    return parser.parse_args()


def _prepare(transactions: int, seed: int) -> tuple[str, str]:
    """Migrate the throwaway database, seed the heavy plan, issue a token: (plan id, token)."""
    import django

    django.setup()
    from django.core.management import call_command

    from sandbox.seeding import seed_heavy_plan
    from tools.models import McpToken

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    plan = seed_heavy_plan(transactions, seed=seed)
    _figure("seed_time", time.perf_counter() - started, "s", 2)
    _token_row, token = McpToken.issue("bench reads", read_only=True)
    return plan.id, token


# --- the serving process --------------------------------------------------------------------


@contextmanager
def _service() -> Iterator[tuple[str, subprocess.Popen]]:
    """This script in `--serve-on` mode, in a child process on a free port: (base URL, process)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "AVENIR_MCP_SELF_URL": base_url}  # so its YNAB is its own sandbox
    command = [sys.executable, str(Path(__file__).resolve()), "--serve-on", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        _wait_until_up(base_url, server)
        yield base_url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


def _serve(port: int) -> None:
    """The child: uvicorn serving `avenir_site.asgi:application`, as `make run` does, plus
    SIGUSR1 to empty the pacer's hourly count (see the module docstring)."""
    import django

    django.setup()
    import uvicorn

    from tools.ynab.pacing import reset_pacing

    config = uvicorn.Config(
        "avenir_site.asgi:application",
        host="127.0.0.1",
        port=port,
        lifespan="on",
        log_level="warning",
        access_log=False,
    )
    server = uvicorn.Server(config)

    async def serve() -> None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, reset_pacing)
        await server.serve()

    asyncio.run(serve())


def _wait_until_up(base_url: str, server: subprocess.Popen) -> None:
    import httpx

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


# --- the calls ------------------------------------------------------------------------------


async def _measure(
    base_url: str, token: str, plan_id: str, server: subprocess.Popen, options: argparse.Namespace
) -> None:
    import httpx2
    from django.utils import timezone
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.reads.read_calls import read_arguments, read_tool_names

    today = timezone.localdate()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT)
    )
    transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
    async with http, Client(transport, mode=options.mode) as client:
        started = time.perf_counter()
        await _call(client, "get_monthly_summary", {"plan_id": plan_id})
        _figure("first_call_time", time.perf_counter() - started, "s", 2)
        for tool in read_tool_names():
            server.send_signal(signal.SIGUSR1)  # a whole hourly budget for this tool's calls
            arguments = read_arguments(tool, plan_id, today)
            await _call(client, tool, arguments)  # untimed
            cpu_before = _cpu_seconds(server.pid)
            durations = [await _timed(client, tool, arguments) for _ in range(options.calls)]
            cpu_per_call = (_cpu_seconds(server.pid) - cpu_before) / options.calls
            _figure(f"{tool}_median", statistics.median(durations) * 1000, "ms", 1)
            _figure(f"{tool}_p95", _nearest_rank(durations, 95) * 1000, "ms", 1)
            _figure(f"{tool}_service_cpu", cpu_per_call * 1000, "ms", 1)
    server.send_signal(signal.SIGUSR1)
    _figure("sandbox_delta_median", await _bare_delta_median(base_url, plan_id, options.calls), "ms", 1)


async def _bare_delta_median(base_url: str, plan_id: str, calls: int) -> float:
    """The delta request of a warm plan (`?last_knowledge_of_server=N`, nothing changed), timed."""
    import httpx
    from django.conf import settings

    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    async with httpx.AsyncClient(base_url=f"{base_url}/sandbox/v1", headers=headers, timeout=60) as http:
        accounts = await http.get(f"/plans/{plan_id}/accounts")
        url = f"/plans/{plan_id}?last_knowledge_of_server={accounts.json()['data']['server_knowledge']}"
        durations = []
        for _ in range(calls):
            started = time.perf_counter()
            (await http.get(url)).raise_for_status()
            durations.append(time.perf_counter() - started)
    return statistics.median(durations) * 1000


async def _timed(client, tool: str, arguments: dict) -> float:
    started = time.perf_counter()
    await _call(client, tool, arguments)
    return time.perf_counter() - started


async def _call(client, tool: str, arguments: dict) -> None:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise SystemExit(f"{tool} refused {arguments}: {result.content[0].text}")


def _nearest_rank(values: list[float], percent: int) -> float:
    ordered = sorted(values)
    return ordered[max(math.ceil(percent / 100 * len(ordered)) - 1, 0)]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


# --- memory ---------------------------------------------------------------------------------


def _memory(server: subprocess.Popen) -> None:
    """The serving process's resident memory now and at its peak, from /proc (Linux)."""
    status = Path(f"/proc/{server.pid}/status")
    if not status.exists():
        print("service_rss: unavailable (no /proc on this system)", flush=True)
        return
    fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
    _figure("service_rss", _kilobytes(fields["VmRSS"]) / 1024, "MB", 1)
    _figure("service_rss_peak", _kilobytes(fields["VmHWM"]) / 1024, "MB", 1)


def _kilobytes(field: str) -> int:
    number, unit = field.split()
    if unit != "kB":
        raise SystemExit(f"Unexpected unit in /proc status: {field!r}")
    return int(number)


def _figure(name: str, value: float, unit: str, digits: int) -> None:
    print(f"{name}: {value:.{digits}f} {unit}".rstrip(), flush=True)


if __name__ == "__main__":
    main()
