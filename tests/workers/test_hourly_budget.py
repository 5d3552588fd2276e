"""Three workers share one YNAB hour: together they send no more than the limit allows.

Three real service processes (`manage.py runserver --noreload`) on this run's database and one
Redis, with a small hourly limit and no freshness window (every read asks YNAB), all on the first
one's sandbox under a YNAB token of this module's own, so the hour they count and the `YnabRequest`
rows counted here are theirs alone. Callers read in turn on every worker.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator

import anyio
import pytest

from avenir_mcp.sandbox.models import Plan
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.ynab_client.client import ynab_token_tag
from avenir_mcp.ynab_client.pacing import reserve_of
from avenir_mcp.ynab_requests.models import YnabRequest
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.processes import port_nobody_serves
from tests.helpers.runserver import Served, all_serving

pytestmark = [pytest.mark.subprocesses, pytest.mark.anyio]

LIMIT = 12  # the reserve keeps 6 for changes: reads together may send 6
CALLERS = 5
READS_EACH = 3


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def ynab_token() -> str:
    return f"workers-{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def workers(live_service, store: str, ynab_token: str) -> Iterator[list[Served]]:
    env = {
        "REDIS_URL": store,
        "SANDBOX_TOKEN": ynab_token,  # their sandbox takes it, their YNAB client sends it
        "AVENIR_MCP_YNAB_HOURLY_LIMIT": str(LIMIT),
        "AVENIR_MCP_FRESHNESS_SECONDS": "0",
    }
    ports = [port_nobody_serves() for _ in range(3)]
    env["AVENIR_MCP_YNAB_URL"] = f"http://127.0.0.1:{ports[0]}/sandbox/v1"  # one YNAB, as in production
    with all_serving([Served(port, env=env, reload=False) for port in ports]) as served:
        yield served


@pytest.fixture
def tokens(live_service) -> list[str]:
    """A read-only token for each caller: each has a share of its own."""
    return [McpToken.issue(f"workers hour {uuid.uuid4().hex[:8]}", read_only=True)[1] for _ in range(CALLERS)]


@pytest.fixture
def plan(live_service) -> Plan:
    return demo_plan_copy()


async def test_reads_on_three_workers_stay_within_one_hourly_limit(workers, ynab_token, plan, tokens):
    urls = itertools.cycle(worker.url for worker in workers)
    answered: list[bool] = []

    async def caller(token: str) -> None:
        for _ in range(READS_EACH):
            async with mcp_over_http(next(urls), token) as client:
                result = await client.call_tool("get_monthly_summary", {"plan_id": plan.id})
            answered.append(not result.is_error)

    with anyio.fail_after(180):
        async with anyio.create_task_group() as group:
            for token in tokens:
                group.start_soon(caller, token)

    sent = await YnabRequest.objects.filter(token_tag=ynab_token_tag(ynab_token)).acount()
    assert 0 < sent <= LIMIT - reserve_of(LIMIT)  # each worker alone would have let 6 go: 18
    assert any(answered)
    assert not all(answered)  # the others were refused: the hour was spent
