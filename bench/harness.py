"""What every bench script shares: the heavy plan in a throwaway database, the service
served for real in a child process, timings, and figures printed one a line.

A script keeps only its own measurements:

    options = arguments(__doc__).parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)   # prints seed_time
        with served() as service:
            ...  # requests to service.url / service.sandbox_url, figure(...) for each result

The database is a SQLite file in a temporary directory, never the project's. The service
is `avenir_site.asgi:application` under uvicorn, as `make run` serves it, in a child process
(`python -m bench.harness PORT`) on a free port; its YNAB is its own sandbox, and SIGUSR1
empties its pacer's hourly count (`Service.reset_pacing`), so a bench that sends more than
an hour's YNAB requests is not refused half way. `served(env=...)` adds settings of its own
(a second instance pointed at the first one's sandbox, a data folder).

Also shared: `read_only_token`, `mcp_client` (the SDK's client over /mcp with a token),
`request_mark` / `requests_since` (the sandbox's own request log: what reached "YNAB"),
`nearest_rank`, and `Service.memory()` (resident memory now and at its peak).
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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0
MB = 1024 * 1024


def arguments(doc: str) -> argparse.ArgumentParser:
    """The options every bench takes (`--transactions`, `--seed`); a script adds its own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    return parser


@contextmanager
def throwaway_database() -> Iterator[None]:
    """Django (here and in the served child) pointed at a temporary SQLite file and data
    folder for the block."""
    with tempfile.TemporaryDirectory(prefix="avenir-bench-") as workdir:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(workdir) / 'bench.sqlite3'}"  # before Django reads it
        os.environ["AVENIR_MCP_DATA_DIR"] = str(Path(workdir) / "data")  # stored plans go there too
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")
        os.environ.setdefault("LOG_LEVEL", "WARNING")  # figures on stdout, nothing chatty on stderr
        yield


def migrate() -> None:
    """Set Django up and migrate the throwaway database (a no-op when it is migrated already)."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed_heavy(transactions: int, seed: int) -> str:
    """Migrate the throwaway database and seed the heavy plan (printing `seed_time`); its id."""
    migrate()
    from avenir_mcp.sandbox.seeding import seed_heavy_plan

    started = time.perf_counter()
    plan = seed_heavy_plan(transactions, seed=seed)
    figure("seed_time", time.perf_counter() - started, "s", 2)
    return plan.id


def sandbox_token() -> str:
    """The bearer token the sandbox accepts (after `seed_heavy` has set Django up)."""
    from django.conf import settings

    return settings.SANDBOX_TOKEN


# --- the served child -----------------------------------------------------------------------


@dataclass(frozen=True)
class Service:
    """The service running in the child process."""

    url: str
    process: subprocess.Popen

    @property
    def sandbox_url(self) -> str:
        return f"{self.url}/sandbox/v1"

    def reset_pacing(self) -> None:
        """Give the service a whole hourly YNAB budget again (see the module docstring)."""
        self.process.send_signal(signal.SIGUSR1)

    def memory(self) -> tuple[float, float] | None:
        """(resident, peak resident) memory in MB, from /proc (None where there is no /proc)."""
        status = Path(f"/proc/{self.process.pid}/status")
        if not status.exists():
            return None
        fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        return _kilobytes(fields["VmRSS"]) / 1024, _kilobytes(fields["VmHWM"]) / 1024


def _kilobytes(field: str) -> int:
    number, unit = field.split()
    if unit != "kB":
        raise SystemExit(f"Unexpected unit in /proc status: {field!r}")
    return int(number)


@contextmanager
def served(env: dict[str, str] | None = None, *, workers: int | None = None) -> Iterator[Service]:
    """The service in a child process on a free port, up and answering, stopped afterwards
    (SIGTERM: a graceful shutdown, as a process manager stops it). With `workers`, the child
    is `manage.py runserver --noreload --workers N` instead (no SIGUSR1 there; its log, a line
    per request, is dropped)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    # AVENIR_MCP_SELF_URL: so that, unless env says otherwise, its YNAB is its own sandbox.
    child_env = {**os.environ, "AVENIR_MCP_SELF_URL": url, **(env or {})}
    command, log = ["-m", "bench.harness", str(port)], None
    if workers is not None:
        command = ["manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", f"--workers={workers}"]
        log = subprocess.DEVNULL
    process = subprocess.Popen([sys.executable, *command], cwd=ROOT, env=child_env, stdout=log, stderr=log)
    try:
        _wait_until_up(url, process)
        yield Service(url, process)
    finally:
        process.terminate()
        process.wait(timeout=60)


def _wait_until_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("The server exited before it answered.")
        try:
            if httpx2.get(f"{url}/api/health", timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            time.sleep(0.1)  # not listening yet
    raise SystemExit(f"The server did not answer within {START_TIMEOUT:.0f} s.")


def _serve(port: int) -> None:
    """The child: uvicorn serving `avenir_site.asgi:application` as `make run` does, plus SIGUSR1.

    uvicorn binds the port itself, so asyncio sets TCP_NODELAY on every connection (with
    Nagle on, delayed ACKs add ~40 ms to an answer sent in two writes).
    """
    import django

    django.setup()
    import uvicorn

    from avenir_mcp.ynab_client.pacing import reset_pacing

    config = uvicorn.Config(
        "avenir_mcp.avenir_site.asgi:application",
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


# --- MCP clients and the sandbox's request log ----------------------------------------------


def read_only_token(name: str) -> str:
    """A new read-only MCP token (after `seed_heavy` has set Django up)."""
    from avenir_mcp.tokens.models import McpToken

    _row, token = McpToken.issue(name, read_only=True)
    return token


@asynccontextmanager
async def mcp_client(service: Service, token: str, mode: str = "2026-07-28") -> AsyncIterator[object]:
    """The MCP SDK's client on the service's /mcp over streamable HTTP, with `token`."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))
    transport = streamable_http_client(f"{service.url}/mcp", http_client=http)
    async with http, Client(transport, mode=mode) as client:
        yield client


async def call_tool(client, tool: str, arguments: dict) -> None:
    """One tool call; a refusal stops the bench with its text."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise SystemExit(f"{tool} refused {arguments}: {result.content[0].text}")


def request_mark() -> int:
    """The sandbox's request log position now (the log is in the throwaway database).

    This and `requests_since` use Django's ORM: from async code, call them in a thread
    (`await asyncio.to_thread(request_mark)`)."""
    from avenir_mcp.sandbox import faults

    return faults.last_request_id()


def requests_since(mark: int) -> list:
    """Every request that reached the sandbox after `mark`, oldest first (`RequestLogEntry`)."""
    from avenir_mcp.sandbox import faults

    return faults.requests_since(mark)


def is_delta(entry) -> bool:
    """A plan read with `last_knowledge_of_server` (not a full export)."""
    return entry.method == "GET" and "last_knowledge_of_server=" in entry.query


# --- timing and figures ---------------------------------------------------------------------


def nearest_rank(values: list[float], percent: int) -> float:
    """The nearest-rank percentile of `values`."""
    ordered = sorted(values)
    return ordered[max(math.ceil(percent / 100 * len(ordered)) - 1, 0)]


def timed(call: Callable[[], object], runs: int) -> list[float]:
    """Seconds each of `runs` calls of `call` took."""
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        durations.append(time.perf_counter() - started)
    return durations


async def timed_async(call: Callable[[], Awaitable[object]], runs: int) -> list[float]:
    """Seconds each of `runs` awaited calls of `call` took."""
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        durations.append(time.perf_counter() - started)
    return durations


async def bare_delta_median(sandbox_url: str, plan_id: str, runs: int) -> float:
    """Median ms of the delta request a warm read sends when nothing changed, with plain httpx2:
    what the sandbox alone costs, to read the other figures against."""
    headers = {"Authorization": f"Bearer {sandbox_token()}"}
    async with httpx2.AsyncClient(base_url=sandbox_url, headers=headers, timeout=60) as http:
        accounts = (await http.get(f"/plans/{plan_id}/accounts")).raise_for_status()
        url = f"/plans/{plan_id}?last_knowledge_of_server={accounts.json()['data']['server_knowledge']}"
        durations = await timed_async(lambda: _ok(http.get(url)), runs)
    return statistics.median(durations) * 1000


async def _ok(request: Awaitable[httpx2.Response]) -> None:
    (await request).raise_for_status()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def figure(name: str, value: float, unit: str, digits: int) -> None:
    """One figure on its own line: `name: value unit`."""
    print(f"{name}: {value:.{digits}f} {unit}".rstrip(), flush=True)


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
