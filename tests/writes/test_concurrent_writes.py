"""Changes to one plan at the same moment: each applies on what the one before it left.

Over real HTTP (the SDK's client on the served `/mcp`, a read-write token per agent), on the
database the run uses (SQLite, or PostgreSQL in CI's second run), with another process
holding the plan's write lock where the test needs a second process (`tests.writes.lock_holder`).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import anyio
import anyio.abc
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.utils import timezone
from mcp import Client
from mcp.types import CallToolResult

from avenir_mcp.oplog import plan_lock, settling
from avenir_mcp.oplog.models import Operation, PlanWriteLock
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.ledger.catalog import create_category
from avenir_mcp.sandbox.models import CategoryGroup
from avenir_mcp.tokens.models import McpToken
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.processes import next_line, service_env
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.writes.assigned_plans import BudgetHome, assigned, budget_arguments, ready_to_assign, set_assigned
from tests.writes.checks import content

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _writes_on(settings, live_service) -> None:
    settings.AVENIR_MCP_WRITE = True


@asynccontextmanager
async def agent(base_url: str) -> AsyncIterator[Client]:
    """An agent of its own (a read-write token) on the served /mcp; its client cannot ask, so
    the person's agreement comes back as a code."""
    _row, token = await sync_to_async(McpToken.issue)(f"agent {os.urandom(4).hex()}", read_only=False)
    async with mcp_over_http(base_url, token) as client:
        yield client


async def at_once(*calls: Callable[[], Awaitable[CallToolResult]]) -> list[CallToolResult]:
    """Run the calls at the same moment; their results, in order."""
    results: list[CallToolResult | None] = [None] * len(calls)

    async def run(index: int) -> None:
        results[index] = await calls[index]()

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for index in range(len(calls)):
                group.start_soon(run, index)
    return [result for result in results if result is not None]


def five_more_categories(budget: BudgetHome) -> list[str]:
    group = CategoryGroup.objects.get(pk=budget.home.everyday_group)
    with plan_write(budget.id):
        return [create_category(budget.home.plan, group, f"Fund {n}").id for n in range(1, 6)]


async def test_five_moves_from_one_category_confirmed_at_once_take_all_five_amounts(budget, live_service):
    destinations = await sync_to_async(five_more_categories)(budget)
    source = budget.home.groceries
    source_before = await assigned(budget, source)
    ready_before = await ready_to_assign(budget)
    async with AsyncExitStack() as stack:
        sessions = [await stack.enter_async_context(agent(live_service.url)) for _ in range(5)]
        moves = [
            {
                "plan_id": budget.id,
                "month": budget.month,
                "from_category_id": source,
                "to_category_id": destination,
                "amount": "10.00",
            }
            for destination in destinations
        ]
        codes = [
            content(await client.call_tool("move_money", move))["confirmation"]
            for client, move in zip(sessions, moves, strict=True)
        ]
        mark = await request_mark()

        results = await at_once(
            *[
                lambda client=client, move=move, code=code: client.call_tool(
                    "move_money", {**move, "confirmation": code}
                )
                for client, move, code in zip(sessions, moves, codes, strict=True)
            ]
        )

    assert [content(result)["status"] for result in results] == ["applied"] * 5
    assert await assigned(budget, source) == source_before - 50_000
    for destination in destinations:
        assert await assigned(budget, destination) == 10_000
    assert await ready_to_assign(budget) == ready_before  # money moved, none made or lost
    assert len(await writes_after(mark)) == 10  # two PATCHes a move, nothing more
    # The log says exactly what was written: each move took 10.00 from what the one before left.
    rows = [
        row
        async for row in Operation.objects.filter(plan_id=budget.id, tool="move_money").order_by(
            "completed_at"
        )
    ]
    assert [row.status for row in rows] == ["applied"] * 5
    taken = [
        (row.undo_data["categories"][0]["before"], row.undo_data["categories"][0]["after"]) for row in rows
    ]
    assert taken == [(source_before - 10_000 * n, source_before - 10_000 * (n + 1)) for n in range(5)]
    said = [content(result)["from_category"] for result in results]
    assert sorted(each["from_amount"] for each in said) == sorted(
        f"{(source_before - 10_000 * n) // 1000}.00" for n in range(5)
    )


async def test_two_budgets_of_one_category_from_two_clients_apply_one_after_the_other(budget, live_service):
    dining = budget.home.dining
    dining_before = await assigned(budget, dining)
    ready_before = await ready_to_assign(budget)
    wanted = {"150.00": 150_000, "200.00": 200_000}
    async with agent(live_service.url) as first, agent(live_service.url) as second:
        calls = {
            amount: {"plan_id": budget.id, "month": budget.month, "category_id": dining, "amount": amount}
            for amount in wanted
        }
        codes = {
            amount: content(await client.call_tool("set_category_budget", calls[amount]))["confirmation"]
            for client, amount in zip((first, second), wanted, strict=True)
        }

        results = await at_once(
            *[
                lambda client=client, amount=amount: client.call_tool(
                    "set_category_budget", {**calls[amount], "confirmation": codes[amount]}
                )
                for client, amount in zip((first, second), wanted, strict=True)
            ]
        )

        assert [content(result)["status"] for result in results] == ["applied", "applied"]
        rows = [
            row
            async for row in Operation.objects.filter(plan_id=budget.id, tool="set_category_budget").order_by(
                "completed_at"
            )
        ]
        (earlier,), (later,) = (rows[0].undo_data["categories"], rows[1].undo_data["categories"])
        # The later one started from what the earlier one left, not from the preview's 120.00.
        assert earlier["before"] == dining_before
        assert later["before"] == earlier["after"]
        final = later["after"]
        assert {earlier["after"], later["after"]} == set(wanted.values())
        assert await assigned(budget, dining) == final
        assert await ready_to_assign(budget) == ready_before - (final - dining_before)

        # Undone latest first, each undo finds what it left: the plan is as it was.
        for row in (rows[1], rows[0]):
            undo = {"plan_id": budget.id, "operation_id": row.pk}
            code = content(await first.call_tool("undo_operation", undo))["confirmation"]
            assert content(await first.call_tool("undo_operation", {**undo, "confirmation": code}))[
                "status"
            ] == ("applied")
    assert await assigned(budget, dining) == dining_before
    assert await ready_to_assign(budget) == ready_before


# --- across processes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Holder:
    """The lock-holding process, and its standard output read line by line."""

    process: anyio.abc.Process
    lines: BufferedByteReceiveStream

    async def release(self) -> None:
        await self.process.stdin.send(b"release\n")
        assert await next_line(self.lines) == b"released"


@asynccontextmanager
async def lock_holder(plan_id: str) -> AsyncIterator[Holder]:
    """Another process holding the plan's write lock (`tests.writes.lock_holder`), killed at the end."""
    holder = await anyio.open_process(
        [sys.executable, "-m", "tests.writes.lock_holder", plan_id],
        cwd=str(django_settings.BASE_DIR),
        env=service_env(),
        stderr=subprocess.DEVNULL,
    )
    lines = BufferedByteReceiveStream(holder.stdout)
    try:
        assert await next_line(lines) == b"held"
        yield Holder(holder, lines)
    finally:
        if holder.returncode is None:
            holder.kill()
        await holder.wait()  # reaped: its pid is gone, as a dead process's is
        await holder.aclose()


async def until_waiting(caplog: pytest.LogCaptureFixture, plan_id: str) -> None:
    """Until a write of the service waits for the plan's write lock (its log line)."""

    def logged() -> bool:
        said = [
            record.getMessage() for record in caplog.records if record.name == "avenir_mcp.oplog.plan_lock"
        ]
        return any(plan_id in line and "waits" in line for line in said)

    with anyio.fail_after(60):
        while not logged():  # noqa: ASYNC110 (another thread's log: nothing to await)
            await anyio.sleep(0.02)


@asynccontextmanager
async def answered_while_held(
    client: Client, tool: str, arguments: dict[str, str], caplog: pytest.LogCaptureFixture
) -> AsyncIterator[tuple[Holder, list[CallToolResult]]]:
    """`tool` previewed (a code), then, while another process holds the plan's lock, the call
    with the code: the block runs once that call waits for the lock; its answer is in the list
    after the block."""
    code = content(await client.call_tool(tool, arguments))["confirmation"]
    answers: list[CallToolResult] = []

    async def confirm() -> None:
        answers.append(await client.call_tool(tool, {**arguments, "confirmation": code}))

    async with lock_holder(arguments["plan_id"]) as holder, anyio.create_task_group() as group:
        group.start_soon(confirm)
        await until_waiting(caplog, arguments["plan_id"])
        yield holder, answers


@pytest.mark.subprocesses
async def test_a_write_waits_for_another_process_and_applies_on_what_it_left(budget, live_service, caplog):
    caplog.set_level(logging.INFO, logger="avenir_mcp.oplog.plan_lock")
    dining, groceries = budget.home.dining, budget.home.groceries
    groceries_before = await assigned(budget, groceries)
    move = {
        "plan_id": budget.id,
        "month": budget.month,
        "from_category_id": dining,
        "to_category_id": groceries,
        "amount": "10.00",
    }
    async with (
        agent(live_service.url) as client,
        answered_while_held(client, "move_money", move, caplog) as (holder, answers),
    ):
        mark = await request_mark()
        # What the other process writes while it holds the plan (another change of Dining Out).
        await set_assigned(budget, dining, 130_000)
        assert [entry.method for entry in await writes_after(mark)] == ["PATCH"]  # none of the move's
        await holder.release()

    (answer,) = answers
    assert content(answer)["status"] == "applied"
    assert content(answer)["from_category"]["from_amount"] == "130.00"
    assert await assigned(budget, dining) == 120_000  # 130.00 it found, less the 10.00 moved
    assert await assigned(budget, groceries) == groceries_before + 10_000


@pytest.mark.subprocesses
async def test_a_killed_holder_frees_the_plan_at_once(budget, live_service, caplog):
    caplog.set_level(logging.INFO, logger="avenir_mcp.oplog.plan_lock")
    arguments = budget_arguments(budget)
    async with (
        agent(live_service.url) as client,
        answered_while_held(client, "set_category_budget", arguments, caplog) as (holder, answers),
    ):
        os.kill(holder.process.pid, signal.SIGKILL)
        await holder.process.wait()

    (answer,) = answers
    assert content(answer)["status"] == "applied"  # long before the lease's 60 s were over
    assert await assigned(budget, budget.home.dining) == 150_000
    assert any("taking over the write lock" in record.getMessage() for record in caplog.records)


async def test_a_write_that_waits_too_long_sends_nothing_and_keeps_its_code(
    budget, live_service, monkeypatch
):
    # A holder on another host (its process cannot be checked): only its lease frees the plan.
    now = timezone.now()
    await PlanWriteLock.objects.acreate(
        plan_id=budget.id, holder="elsewhere:4242:0badcafe", expires_at=now + timedelta(seconds=60)
    )
    monkeypatch.setattr(plan_lock, "WAIT_SECONDS", 0.2)
    arguments = budget_arguments(budget)
    async with agent(live_service.url) as client:
        code = content(await client.call_tool("set_category_budget", arguments))["confirmation"]
        mark = await request_mark()

        busy = await client.call_tool("set_category_budget", {**arguments, "confirmation": code})

        assert busy.is_error
        assert busy.content[0].text == plan_lock.BUSY
        assert await writes_after(mark) == []
        assert not await Operation.objects.filter(plan_id=budget.id).aexists()

        # The holder's lease runs out (its host died): the same code now goes through.
        monkeypatch.setattr(plan_lock, "clock", lambda: now + timedelta(seconds=61))
        applied = await client.call_tool("set_category_budget", {**arguments, "confirmation": code})

    assert content(applied)["status"] == "applied"
    assert await assigned(budget, budget.home.dining) == 150_000
    assert not await PlanWriteLock.objects.filter(plan_id=budget.id).aexists()  # released after


async def test_settling_leaves_a_plan_being_written_to_a_later_round(budget, live_service, caplog):
    caplog.set_level(logging.INFO, logger="avenir_mcp.oplog.settling")
    # A budget whose answer was lost an hour ago (Dining Out 120.00 → 150.00; it is still 120.00).
    an_hour_ago = timezone.now() - timedelta(hours=1)
    dining = {"category_id": budget.home.dining, "before": 120_000, "after": 150_000}
    op = await Operation.objects.acreate(
        plan_id=budget.id,
        tool="set_category_budget",
        subject={},
        fingerprint="0" * 64,
        preview="",
        confirmed_by="code",
        undoable=True,
        status=Operation.Status.UNKNOWN,
        undo_data={"month": budget.month, "categories": [dining]},
        created_at=an_hour_ago,
        completed_at=an_hour_ago,
    )
    await PlanWriteLock.objects.acreate(
        plan_id=budget.id, holder="elsewhere:4242:0badcafe", expires_at=timezone.now() + timedelta(seconds=60)
    )
    settling.backoff.forget()

    assert await settling.settle_plan(budget.id) == 0

    assert (await Operation.objects.aget(pk=op.pk)).settled_at is None
    assert any("a change to it is being applied" in record.getMessage() for record in caplog.records)
    await PlanWriteLock.objects.filter(plan_id=budget.id).adelete()
    assert await settling.settle_plan(budget.id) == 1


# --- the lease itself -------------------------------------------------------------------------------


async def test_a_held_lock_is_renewed_and_a_taken_over_one_is_left_to_its_new_holder(
    live_service, monkeypatch, caplog
):
    caplog.set_level(logging.ERROR, logger="avenir_mcp.oplog.plan_lock")
    plan_id = "0f0e0d0c-0000-4000-8000-000000000001"
    start = timezone.now()
    monkeypatch.setattr(plan_lock, "RENEW_SECONDS", 0.01)
    later = start + timedelta(seconds=30)
    clock_at = [start]
    monkeypatch.setattr(plan_lock, "clock", lambda: clock_at[0])

    async with plan_lock.held(plan_id):
        first = await PlanWriteLock.objects.aget(plan_id=plan_id)
        assert first.expires_at == start + timedelta(seconds=plan_lock.LEASE_SECONDS)
        clock_at[0] = later
        renewed = later + timedelta(seconds=plan_lock.LEASE_SECONDS)
        with anyio.fail_after(30):
            while (await PlanWriteLock.objects.aget(plan_id=plan_id)).expires_at != renewed:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        async with plan_lock.held(plan_id):  # re-entered by the same call: no wait for itself
            assert plan_lock.holding(plan_id)
        assert plan_lock.holding(plan_id)
        # Another writer took it over (this one stalled past its lease): renewing stops, and
        # releasing leaves the new holder's row alone.
        await PlanWriteLock.objects.filter(plan_id=plan_id).aupdate(holder="elsewhere:1:feedface")
        with anyio.fail_after(30):  # until its next renewal finds the row another's, and says so
            while not any("was taken over" in record.getMessage() for record in caplog.records):  # noqa: ASYNC110
                await anyio.sleep(0.01)
    assert not plan_lock.holding(plan_id)
    kept = await PlanWriteLock.objects.aget(plan_id=plan_id)
    assert kept.holder == "elsewhere:1:feedface"
    await kept.adelete()


def test_of_two_takers_of_an_expired_lock_one_gets_it():
    plan_id = "0f0e0d0c-0000-4000-8000-000000000002"
    try:
        assert plan_lock._try_take(plan_id, "elsewhere:1:aaaa")
        assert not plan_lock._try_take(plan_id, "elsewhere:1:bbbb")  # held, alive for all we know
        PlanWriteLock.objects.filter(plan_id=plan_id).update(expires_at=timezone.now() - timedelta(seconds=1))
        assert plan_lock._try_take(plan_id, "elsewhere:1:cccc")  # expired: taken over
        assert PlanWriteLock.objects.get(plan_id=plan_id).holder == "elsewhere:1:cccc"
    finally:
        PlanWriteLock.objects.filter(plan_id=plan_id).delete()
