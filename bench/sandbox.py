"""Benchmark of the sandbox on a heavy plan: seeding, full export and delta requests.

    .venv/bin/python bench/sandbox.py [--transactions 50000] [--seed 0]

Runs against a throwaway SQLite database in a temporary directory (never the project's),
serves the real ASGI application under uvicorn in a child process, and prints one figure a
line as `name: value unit`:

- seed_time: creating the heavy plan (`seed_heavy_plan`), in seconds;
- full_export_size: the body of `GET /plans/{id}`, in megabytes (context for the next figure);
- full_export_time: median of a few `GET /plans/{id}` over HTTP, in seconds;
- delta_request_median: after one change (a PATCH of one transaction's memo), median of
  `GET /plans/{id}?last_knowledge_of_server=N` with N the knowledge before the change, in ms.

Targets (issue 2): delta median < 20 ms, full export < 3 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # this file's own directory would shadow the `sandbox` app
EXPORT_RUNS = 5
DELTA_RUNS = 50
START_TIMEOUT = 60.0


def main() -> None:
    options = _arguments()
    with tempfile.TemporaryDirectory(prefix="avenir-bench-") as workdir:
        database_url = f"sqlite:///{Path(workdir) / 'bench.sqlite3'}"
        os.environ["DATABASE_URL"] = database_url  # before Django reads its settings
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_site.settings")
        os.environ.setdefault("LOG_LEVEL", "WARNING")  # figures on stdout, nothing chatty on stderr
        plan_id, token = _prepare(options.transactions, options.seed)
        with (
            _served(database_url) as base_url,
            httpx.Client(
                base_url=f"{base_url}/sandbox/v1", headers={"Authorization": f"Bearer {token}"}, timeout=120
            ) as api,
        ):
            _measure(api, plan_id)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def _prepare(transactions: int, seed: int) -> tuple[str, str]:
    """Migrate the throwaway database and seed the heavy plan; (plan id, sandbox token)."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from sandbox.seeding import seed_heavy_plan

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    plan = seed_heavy_plan(transactions, seed=seed)
    _figure("seed_time", time.perf_counter() - started, "s", 2)
    return plan.id, settings.SANDBOX_TOKEN


@contextmanager
def _served(database_url: str) -> Iterator[str]:
    """uvicorn serving `avenir_site.asgi:application` in a child process, on a free port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # uvicorn takes an inherited socket (--fd) for a Unix one, so asyncio leaves Nagle on for
    # its connections and every keep-alive answer waits ~40 ms for a delayed ACK. Accepted
    # connections inherit TCP_NODELAY from the listener, as they do when uvicorn binds itself.
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    base_url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "avenir_site.asgi:application",
        "--fd",
        str(listener.fileno()),
        "--lifespan",
        "on",
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    env = {**os.environ, "DATABASE_URL": database_url}
    server = subprocess.Popen(command, cwd=ROOT, env=env, pass_fds=[listener.fileno()])
    try:
        _wait_until_up(base_url, server)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)
        listener.close()


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


def _measure(api: httpx.Client, plan_id: str) -> None:
    response = api.get(f"/plans/{plan_id}")  # warms caches; not counted
    export = _ok(response)["plan"]
    _figure("full_export_size", len(response.content) / 1_000_000, "MB", 1)
    _figure("full_export_time", _median(lambda: _ok(api.get(f"/plans/{plan_id}")), EXPORT_RUNS), "s", 3)
    knowledge = _ok(api.get(f"/plans/{plan_id}"))["server_knowledge"]
    changed = next(
        row["id"] for row in reversed(export["transactions"]) if row["transfer_account_id"] is None
    )
    _ok(
        api.patch(f"/plans/{plan_id}/transactions", json={"transactions": [{"id": changed, "memo": "bench"}]})
    )
    delta_url = f"/plans/{plan_id}?last_knowledge_of_server={knowledge}"
    delta = _ok(api.get(delta_url))["plan"]
    if [row["id"] for row in delta["transactions"]] != [changed]:
        raise SystemExit("The delta request did not return exactly the changed transaction.")
    _figure("delta_request_median", _median(lambda: _ok(api.get(delta_url)), DELTA_RUNS) * 1000, "ms", 1)


def _median(request: Callable[[], object], runs: int) -> float:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        request()
        durations.append(time.perf_counter() - started)
    return statistics.median(durations)


def _ok(response: httpx.Response) -> dict:
    if response.status_code != 200:
        raise SystemExit(
            f"{response.request.method} {response.request.url}: {response.status_code} {response.text}"
        )
    return response.json()["data"]


def _figure(name: str, value: float, unit: str, digits: int) -> None:
    print(f"{name}: {value:.{digits}f} {unit}", flush=True)


if __name__ == "__main__":
    main()
