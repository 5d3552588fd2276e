"""Several workers serve one database and one Redis: any worker answers any request.

Three real service processes (`manage.py runserver --noreload`, the uvicorn serving `avenir-mcp
serve` runs), each on its own port, on this run's database and one Redis, their YNAB the live
sandbox; the SDK's own client, whose every request goes to the next worker in turn. A fourth
worker killed in the middle of a write leaves it to the three others to settle.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import uuid
from collections import Counter
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone
from mcp.types import CallToolResult

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Fault, Plan
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.ynab_client.client import tls_context
from tests.helpers.confirmations import answering
from tests.helpers.mcp_http import MODES, mcp_over_http
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.processes import port_nobody_serves
from tests.helpers.runserver import Served, all_serving
from tests.reads.read_calls import read_arguments
from tests.writes.assigned_plans import BudgetHome, assigned, budget_home
from tests.writes.checks import content

pytestmark = [pytest.mark.subprocesses, pytest.mark.anyio]

WORKERS = 3
BUDGETS = 5  # the tests that write
READS = ("list_plans", "get_monthly_summary", "get_category_balances", "list_accounts", "get_spending_trends")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def worker_env(store: str, sandbox_url: str) -> dict[str, str]:
    """A worker's settings: the shared store, the live sandbox as YNAB, writes on, settling
    every second (so a worker notices a dead one's write soon)."""
    return {
        "REDIS_URL": store,
        "AVENIR_MCP_YNAB_URL": sandbox_url,
        "AVENIR_MCP_WRITE": "1",
        "AVENIR_MCP_SETTLE_SECONDS": "1",
    }


@pytest.fixture(scope="module")
def budgets(live_service) -> list[BudgetHome]:
    """A plan for each test that writes, made before the workers start: a worker reuses its
    plan listing for minutes, so a plan made after its first listing would be unknown to it."""
    return [budget_home() for _ in range(BUDGETS)]


@pytest.fixture(scope="module")
def workers(
    live_service, sandbox_url: str, store: str, plan: Plan, budgets: list[BudgetHome]
) -> Iterator[list[Served]]:
    """Three service processes sharing this run's database and one Redis (a database of the
    store of their own, so their keys meet no other test's)."""
    served = [
        Served(port_nobody_serves(), env=worker_env(store, sandbox_url), reload=False) for _ in range(WORKERS)
    ]
    with all_serving(served):
        yield served


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


@pytest.fixture
def budget(budgets: list[BudgetHome]) -> BudgetHome:
    return budgets.pop()


def move_of(budget: BudgetHome) -> dict[str, str]:
    """10.00 from Dining Out to Groceries this month."""
    return {
        "plan_id": budget.id,
        "month": budget.month,
        "from_category_id": budget.home.dining,
        "to_category_id": budget.home.groceries,
        "amount": "10.00",
    }


@pytest.fixture
def writer_token(live_service) -> str:
    _row, plaintext = McpToken.issue(f"workers writer {uuid.uuid4().hex[:8]}", read_only=False)
    return plaintext


async def test_a_worker_killed_during_move_money_is_settled_by_another(
    workers, budget, writer_token, store, sandbox_url
):
    """A fourth worker asks and starts the move; its first write reaches YNAB (held there a
    while) and the worker is killed before the answer. The three others settle it."""
    dining, groceries = budget.home.dining, budget.home.groceries
    before = (await assigned(budget, dining), await assigned(budget, groceries))
    move = move_of(budget)
    victim = Served(port_nobody_serves(), env=worker_env(store, sandbox_url), reload=False)
    try:
        victim.wait_for("Application startup complete")
        async with mcp_over_http(victim.url, writer_token) as client:
            code = content(await client.call_tool("move_money", move))["confirmation"]
        held = await sync_to_async(faults.inject)(
            "delay", method="PATCH", path=f"/categories/{dining}$", delay_ms=10_000
        )

        async def confirm() -> None:
            with contextlib.suppress(Exception):  # its worker dies under it
                async with mcp_over_http(victim.url, writer_token) as client:
                    await client.call_tool("move_money", {**move, "confirmation": code})

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(confirm)
                while (await Fault.objects.aget(pk=held.pk)).remaining:  # noqa: ASYNC110 (another process)
                    await anyio.sleep(0.05)
                os.kill(victim.process.pid, signal.SIGKILL)  # not reaped yet: its pid still answers
                while await assigned(budget, dining) == before[0]:  # noqa: ASYNC110 (the held write lands)
                    await anyio.sleep(0.05)
                victim.process.wait()  # now gone: another worker may judge its write
                op = await Operation.objects.filter(plan_id=budget.id, tool="move_money").alatest(
                    "created_at"
                )
                while (await Operation.objects.aget(pk=op.pk)).status == "pending":  # noqa: ASYNC110
                    await anyio.sleep(0.1)
                group.cancel_scope.cancel()
    finally:
        victim.stop()
        await Fault.objects.filter(path_pattern=f"/categories/{dining}$").adelete()  # if left unused

    settled = await Operation.objects.aget(pk=op.pk)
    after = (await assigned(budget, dining), await assigned(budget, groceries))
    assert (settled.status, settled.settled_at is not None) == ("failed", True)
    assert "Dining Out was set back to 120.00; both categories are as before." in settled.error
    assert after == before  # the half that landed was put back: no money made or lost


async def test_an_input_required_answer_is_accepted_by_another_worker(workers, budget, writer_token):
    in_turn = InTurn(workers)
    groceries_before = await assigned(budget, budget.home.groceries)

    with anyio.fail_after(120):
        async with mcp_over_http(
            workers[0].url,
            writer_token,
            mode="2026-07-28",
            transport=in_turn,
            elicitation_callback=answering("accept", True),
        ) as client:
            result = await client.call_tool("move_money", move_of(budget))

    assert content(result)["status"] == "applied"
    assert await assigned(budget, budget.home.groceries) == groceries_before + 10_000
    assert len(in_turn.answered) >= 2  # the question and its answer went to two workers


@pytest.mark.parametrize("mode", MODES)
async def test_a_code_asked_on_one_worker_is_confirmed_on_another(workers, budget, writer_token, mode):
    in_turn = InTurn(workers)
    groceries_before = await assigned(budget, budget.home.groceries)

    with anyio.fail_after(120):
        async with mcp_over_http(workers[0].url, writer_token, mode=mode, transport=in_turn) as client:
            asked = content(await client.call_tool("move_money", move_of(budget)))
            confirmed = await client.call_tool(
                "move_money", {**move_of(budget), "confirmation": asked["confirmation"]}
            )

    assert content(confirmed)["status"] == "applied"
    assert await assigned(budget, budget.home.groceries) == groceries_before + 10_000


async def test_ten_spends_of_one_code_across_workers_apply_once(workers, budget, writer_token):
    groceries_before = await assigned(budget, budget.home.groceries)
    async with mcp_over_http(workers[0].url, writer_token) as client:
        code = content(await client.call_tool("move_money", move_of(budget)))["confirmation"]
    answers: list[CallToolResult] = []

    async def spend(url: str) -> None:
        async with mcp_over_http(url, writer_token) as client:
            answers.append(await client.call_tool("move_money", {**move_of(budget), "confirmation": code}))

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for n in range(10):
                group.start_soon(spend, workers[n % WORKERS].url)

    applied = [
        answer
        for answer in answers
        if not answer.is_error and answer.structured_content["status"] == "applied"
    ]
    assert len(applied) == 1
    assert all(answer.is_error for answer in answers if answer not in applied)
    assert await assigned(budget, budget.home.groceries) == groceries_before + 10_000
