"""Benchmark of several workers: 50 sessions x 20 reads against 1 and against 3 workers.

    .venv/bin/python bench/workers.py [--transactions 50000] [--seed 0] [--sessions 50]

Runs against a throwaway SQLite database (`bench/harness.py`) and one throwaway Redis
(`redis-server`, as the tests start it: `REDIS_URL` set for both runs, so both serve /mcp
stateless and keep their shared state in it). Each run serves the real service with
`manage.py runserver --noreload --workers N` (what `avenir-mcp serve --workers N` runs), its
YNAB its own sandbox; the kernel spreads connections over the workers. A few untimed calls first
load the plan into the workers; then `--sessions` MCP SDK clients, each with a read-only token
of its own, make their 20 reads (`bench/session.py`'s list) back to back, all sessions at once.
Prints one figure a line as `name: value unit`, for N = 1 and 3 (`w1_…`, `w3_…`):

- `calls`, `refusals` (calls answered with an error, pacing included), `seconds` (the wall time
  of all sessions), `throughput` (calls/s);
- `p50` / `p95` (ms): each call end to end, nearest-rank p95;
- `ynab_requests`: what reached the sandbox ("YNAB") during the timed calls, from its own log;
- `worker_rss` (MB): resident memory of one worker after the calls (Linux /proc).

On a 2-core machine 3 workers share 2 cores with the client itself: the figures say what
a second process buys there, not what it would on a larger host.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    figure,
    mcp_client,
    nearest_rank,
    read_only_token,
    request_mark,
    requests_since,
    seed_heavy,
    served,
    throwaway_database,
)
from bench.session import session_calls  # noqa: E402
from tests.helpers.redis_server import given_or_started  # noqa: E402

WARM_UP_SESSIONS = 6  # untimed: enough connections that every worker loads the plan


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--sessions", type=int, default=50)
    options = parser.parse_args()
    with throwaway_database(), tempfile.TemporaryDirectory(prefix="avenir-bench-redis-") as folder:
        redis = given_or_started(Path(folder))
        try:
            plan_id = seed_heavy(options.transactions, options.seed)
            tokens = [read_only_token(f"bench workers {n}") for n in range(options.sessions)]
            for workers in (1, 3):
                with served(
                    {"REDIS_URL": f"{redis.url.rsplit('/', 1)[0]}/{workers}"}, workers=workers
                ) as service:
                    asyncio.run(_measure(service, tokens, plan_id, f"w{workers}"))
                    figure(f"w{workers}_worker_rss", _worker_rss(service), "MB", 1)
        finally:
            redis.stop()


async def _measure(service: Service, tokens: list[str], plan_id: str, name: str) -> None:
    await asyncio.gather(*(_session(service, token, plan_id, calls=2) for token in tokens[:WARM_UP_SESSIONS]))
    mark = await asyncio.to_thread(request_mark)
    started = time.perf_counter()
    results = await asyncio.gather(*(_session(service, token, plan_id) for token in tokens))
    seconds = time.perf_counter() - started
    ynab = await asyncio.to_thread(requests_since, mark)
    durations = [duration for session in results for duration, _ in session]
    refusals = [text for session in results for _, text in session if text is not None]
    figure(f"{name}_calls", len(durations), "", 0)
    figure(f"{name}_refusals", len(refusals), "", 0)
    figure(f"{name}_seconds", seconds, "s", 2)
    figure(f"{name}_throughput", len(durations) / seconds, "calls/s", 1)
    figure(f"{name}_p50", statistics.median(durations) * 1000, "ms", 1)
    figure(f"{name}_p95", nearest_rank(durations, 95) * 1000, "ms", 1)
    figure(f"{name}_ynab_requests", len(ynab), "", 0)
    for text in sorted(set(refusals))[:3]:
        print(f"refusal: {text}", flush=True)


async def _session(
    service: Service, token: str, plan_id: str, calls: int | None = None
) -> list[tuple[float, str | None]]:
    """One agent's reads back to back; (duration, error text) of each."""
    outcomes = []
    async with mcp_client(service, token) as client:
        for tool, tool_arguments in session_calls(plan_id)[:calls]:
            began = time.perf_counter()
            result = await client.call_tool(tool, tool_arguments)
            outcomes.append(
                (time.perf_counter() - began, result.content[0].text if result.is_error else None)
            )
    return outcomes


def _worker_rss(service: Service) -> float:
    """Resident memory (MB) of one worker: the process itself when it serves alone, else the
    first of the processes it started to serve (not multiprocessing's resource tracker)."""
    pid = service.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = [child for child in children if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text()]
    status = Path(f"/proc/{workers[0] if workers else pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024


if __name__ == "__main__":
    main()
