"""Benchmark of the sandbox on a heavy plan: seeding, full export and delta requests.

    .venv/bin/python bench/sandbox.py [--transactions 50000] [--seed 0]

Runs against a throwaway SQLite database in a temporary directory (never the project's),
serves the real ASGI application under uvicorn in a child process (`bench/harness.py`), and
prints one figure a line as `name: value unit`:

- seed_time: creating the heavy plan (`seed_heavy_plan`), in seconds;
- full_export_size: the body of `GET /plans/{id}`, in megabytes (context for the next figure);
- full_export_time: median of a few `GET /plans/{id}` over HTTP, in seconds;
- delta_request_median: after one change (a PATCH of one transaction's memo), median of
  `GET /plans/{id}?last_knowledge_of_server=N` with N the knowledge before the change, in ms.

Targets (issue 2): delta median < 20 ms, full export < 3 s on a 2-core machine.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import httpx2

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    arguments,
    figure,
    sandbox_token,
    seed_heavy,
    served,
    throwaway_database,
    timed,
)

EXPORT_RUNS = 5
DELTA_RUNS = 50


def main() -> None:
    options = arguments(__doc__).parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        headers = {"Authorization": f"Bearer {sandbox_token()}"}
        with (
            served() as service,
            httpx2.Client(base_url=service.sandbox_url, headers=headers, timeout=120) as api,
        ):
            _measure(api, plan_id)


def _measure(api: httpx2.Client, plan_id: str) -> None:
    response = api.get(f"/plans/{plan_id}")  # warms caches; not counted
    export = _ok(response)["plan"]
    figure("full_export_size", len(response.content) / 1_000_000, "MB", 1)
    figure("full_export_time", _median(lambda: _ok(api.get(f"/plans/{plan_id}")), EXPORT_RUNS), "s", 3)
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
    figure("delta_request_median", _median(lambda: _ok(api.get(delta_url)), DELTA_RUNS) * 1000, "ms", 1)


def _median(request: Callable[[], object], runs: int) -> float:
    return statistics.median(timed(request, runs))


def _ok(response: httpx2.Response) -> dict:
    if response.status_code != 200:
        raise SystemExit(
            f"{response.request.method} {response.request.url}: {response.status_code} {response.text}"
        )
    return response.json()["data"]


if __name__ == "__main__":
    main()
