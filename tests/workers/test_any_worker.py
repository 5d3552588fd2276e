"""Several workers serve one database and one Redis: any worker answers any request.

Three real service processes (`manage.py runserver --noreload`, the uvicorn serving `avenir-mcp
serve` runs), each on its own port, on this run's database and one Redis, their YNAB the live
sandbox; the SDK's own client, whose every request goes to the next worker in turn.
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from django.utils import timezone

from sandbox.models import Plan
from tests.helpers.mcp_http import MODES, mcp_over_http
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.processes import port_nobody_serves
from tests.helpers.runserver import Served
from tests.reads.read_calls import read_arguments
from tokens.models import McpToken
from ynab_client.client import tls_context

pytestmark = [pytest.mark.subprocesses, pytest.mark.anyio]

WORKERS = 3
READS = ("list_plans", "get_monthly_summary", "get_category_balances", "list_accounts", "get_spending_trends")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def workers(live_service, sandbox_url: str, redis_url: str) -> Iterator[list[Served]]:
    """Three service processes sharing this run's database and one Redis (a database of the
    store of their own, so their keys meet no other test's)."""
    store = f"{redis_url.rsplit('/', 1)[0]}/9"
    served = [
        Served(
            port_nobody_serves(), env={"REDIS_URL": store, "AVENIR_MCP_YNAB_URL": sandbox_url}, reload=False
        )
        for _ in range(WORKERS)
    ]
    try:
        for worker in served:
            worker.wait_for("Application startup complete")
        yield served
    finally:
        for worker in served:
            worker.stop()


@pytest.fixture(scope="module")
def plan(live_service) -> Plan:
    return demo_plan_copy()


@pytest.fixture(scope="module")
def token(live_service) -> str:
    _row, plaintext = McpToken.issue(f"workers {uuid.uuid4().hex[:8]}", read_only=True)
    return plaintext


class InTurn(httpx2.AsyncBaseTransport):
    """HTTP sending each request to the next worker in turn, counting the answers of each."""

    def __init__(self, workers: list[Served]) -> None:
        self.inner = httpx2.AsyncHTTPTransport(verify=tls_context())
        self.ports = itertools.cycle([httpx2.URL(worker.url).port for worker in workers])
        self.answered: Counter[int] = Counter()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = next(self.ports)
        request.url = request.url.copy_with(port=port)
        request.headers["Host"] = f"127.0.0.1:{port}"
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and response.status_code < 300:
            self.answered[port] += 1
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_one_session_is_answered_by_every_worker_in_turn(workers, plan, token, mode):
    in_turn = InTurn(workers)
    today = timezone.localdate()

    with anyio.fail_after(120):
        async with mcp_over_http(workers[0].url, token, mode=mode, transport=in_turn) as client:
            results = [
                await client.call_tool(tool, read_arguments(tool, plan.id, today)) for tool in READS * 2
            ]

    refused = [result.content[0].text for result in results if result.is_error]
    assert refused == []
    assert all(plan.id in str(result.structured_content) for result in results[1:])
    assert sorted(in_turn.answered) == sorted(httpx2.URL(worker.url).port for worker in workers)
