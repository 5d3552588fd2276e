"""Benchmark of a restart on a heavy plan: the first call 2 s after start, its YNAB request, memory.

    .venv/bin/python bench/restart.py [--transactions 50000] [--seed 0] [--calls 20]

Runs against a throwaway SQLite database and data folder (`bench/harness.py`): seeds the
heavy plan and serves two instances of the real ASGI application in child processes. The
first only hosts the sandbox ("YNAB"). The second is the service measured, without the
embedded sandbox's work: `AVENIR_MCP_YNAB_URL` points it at the first one's sandbox. It is
started, makes its cold first call (the full export), is stopped as a process manager stops
it (SIGTERM: it stores its plans), and started again; 2 s after it answers, the first call
is made. Prints one figure a line as `name: value unit`:

- cold_first_call (ms) and cold_service_rss_peak (MB): the first start, for comparison;
- store_size (MB): the stored plan on disk;
- restart_first_call (ms): the first call after the restart, end to end over /mcp;
- restart_first_call_request: what it sent to YNAB (`delta`, `export`, or `none`), and
  restart_first_call_requests: how many;
- restart_warm_call_median (ms): `--calls` more calls of the same tool (inside the
  freshness window: no request);
- restart_synced_call_median (ms): 3 calls of the same tool, each after waiting out the
  freshness window, so each sends one delta as the first call did: a warm call to read the
  first one against;
- restart_service_rss_peak (MB): the restarted service's peak resident memory.

Targets (issue 8): one delta request, the first call as fast as a warm one (< 50 ms), peak
RSS of the restarted service < 200 MB (before: 229 MB).
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
    MB,
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
    timed_async,
)

TOOL = "get_monthly_summary"
RESTART_WAIT = 2.0


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--calls", type=int, default=20)
    options = parser.parse_args()
    with throwaway_database(), tempfile.TemporaryDirectory(prefix="avenir-bench-data-") as data_dir:
        plan_id = seed_heavy(options.transactions, options.seed)
        token = read_only_token("bench restart")
        with served() as ynab:
            measured = {"AVENIR_MCP_YNAB_URL": ynab.sandbox_url, "AVENIR_MCP_DATA_DIR": data_dir}
            with served(env=measured) as service:
                started = time.perf_counter()
                asyncio.run(_calls(service, token, plan_id, 1))
                figure("cold_first_call", (time.perf_counter() - started) * 1000, "ms", 0)
                _peak("cold_service_rss_peak", service)
            stored = sum(path.stat().st_size for path in Path(data_dir).glob("plans/*.plan"))
            figure("store_size", stored / MB, "MB", 1)
            with served(env=measured) as service:
                time.sleep(RESTART_WAIT)
                mark = request_mark()
                durations = asyncio.run(_calls(service, token, plan_id, 1 + options.calls))
                sent = requests_since(mark)
                figure("restart_first_call", durations[0] * 1000, "ms", 1)
                kinds = {("delta" if is_delta(entry) else "export") for entry in sent}
                print(f"restart_first_call_request: {'+'.join(sorted(kinds)) or 'none'}", flush=True)
                figure("restart_first_call_requests", len(sent), "", 0)
                figure("restart_warm_call_median", statistics.median(durations[1:]) * 1000, "ms", 1)
                synced = [asyncio.run(_synced_call(service, token, plan_id)) for _ in range(3)]
                figure("restart_synced_call_median", statistics.median(synced) * 1000, "ms", 1)
                _peak("restart_service_rss_peak", service)


async def _calls(service: Service, token: str, plan_id: str, count: int) -> list[float]:
    """Seconds each of `count` calls of the tool took, in one MCP session."""
    async with mcp_client(service, token) as client:
        return await timed_async(lambda: call_tool(client, TOOL, {"plan_id": plan_id}), count)


async def _synced_call(service: Service, token: str, plan_id: str) -> float:
    """One call after the freshness window has passed (it sends one delta request)."""
    from django.conf import settings

    async with mcp_client(service, token) as client:
        await asyncio.sleep(settings.AVENIR_MCP_FRESHNESS_SECONDS + 0.5)
        [duration] = await timed_async(lambda: call_tool(client, TOOL, {"plan_id": plan_id}), 1)
    return duration


def _peak(name: str, service: Service) -> None:
    memory = service.memory()
    if memory is None:
        print(f"{name}: unavailable (no /proc on this system)", flush=True)
    else:
        figure(name, memory[1], "MB", 1)


if __name__ == "__main__":
    main()
