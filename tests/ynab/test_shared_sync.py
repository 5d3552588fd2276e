"""Several workers on one shared store (REDIS_URL): a write on one ends the freshness window on
all, and concurrent syncs of one plan send one delta (ynab_client.write_marks, ynab_client.shared_sync).

Two `PlanCache`s in this process stand for two workers' caches; a write made by another process
(a subprocess on the same store) stands for another worker's write."""

from __future__ import annotations

import asyncio
import sys

import anyio
import pytest
from django.conf import settings

from avenir_mcp.shared_state import shared
from avenir_mcp.ynab_client import shared_sync
from avenir_mcp.ynab_client.cache import PlanCache
from avenir_mcp.ynab_client.movements import MovementCache
from tests.helpers.processes import PROCESS_SECONDS, service_env

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]

_ANOTHER_WORKERS_WRITE = """
import asyncio, sys, django
from django.conf import settings
settings.CACHES['shared']['KEY_PREFIX'] = sys.argv[1]
django.setup()
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.pacing import Pacer
base_url, token, plan_id, month, category_id = sys.argv[2:]
client = YnabClient(base_url=base_url, token=token, pacer=Pacer(history=False))
asyncio.run(client.patch_month_category(plan_id, month, category_id, 4_560))
"""


def _month(snapshot):
    return snapshot.month_keys()[-2]


def _any_category(snapshot) -> str:
    return next(c.id for c in snapshot.categories.values() if not c.internal)


async def _written_by_another_worker(client, *ids: str) -> None:
    prefix = settings.CACHES["shared"]["KEY_PREFIX"]
    with anyio.fail_after(PROCESS_SECONDS):
        await anyio.run_process(
            [
                sys.executable,
                "-c",
                _ANOTHER_WORKERS_WRITE,
                prefix,
                client.base_url,
                settings.SANDBOX_TOKEN,
                *ids,
            ],
            env=service_env(REDIS_URL=settings.REDIS_URL),
        )


@pytest.mark.subprocesses
async def test_a_write_on_another_worker_ends_the_window_here(
    client, demo_plan_id, sandbox_log, settings, shared_store
):
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 600  # real clocks: the other process has its own
    cache, movements = PlanCache(), MovementCache()
    synced = await cache.snapshot(client, demo_plan_id)
    moved = await movements.movements(client, demo_plan_id)
    await sandbox_log.mark()
    assert await cache.snapshot(client, demo_plan_id) is synced  # inside the window: no request
    assert await movements.movements(client, demo_plan_id) is moved
    assert await sandbox_log.requests(demo_plan_id) == []
    category = _any_category(synced)

    await _written_by_another_worker(client, demo_plan_id, _month(synced).isoformat(), category)
    await sandbox_log.mark()
    after = await cache.snapshot(client, demo_plan_id)
    moved_after = await movements.movements(client, demo_plan_id)

    assert [entry.method for entry in await sandbox_log.requests(demo_plan_id)] == ["GET", "GET"]
    assert after.server_knowledge > synced.server_knowledge
    assert after.month_category(_month(after), category).budgeted == 4_560
    assert moved_after.server_knowledge == after.server_knowledge


async def test_two_workers_syncing_a_plan_at_once_send_one_delta(
    client, demo_plan_id, sandbox_log, shared_store
):
    first, second = PlanCache(), PlanCache()
    loaded = await first.snapshot(client, demo_plan_id)
    await second.snapshot(client, demo_plan_id)
    await client.patch_month_category(demo_plan_id, _month(loaded), _any_category(loaded), 3_210)
    await sandbox_log.mark()

    with anyio.fail_after(60):
        one, other = await asyncio.gather(
            first.snapshot(client, demo_plan_id), second.snapshot(client, demo_plan_id)
        )

    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == f"last_knowledge_of_server={loaded.server_knowledge}"
    assert one.server_knowledge == other.server_knowledge > loaded.server_knowledge
    assert one.month_category(_month(one), _any_category(loaded)).budgeted == 3_210
    assert other.month_category(_month(other), _any_category(loaded)).budgeted == 3_210


async def test_a_later_sync_never_takes_an_answer_sent_before_it_began(
    client, demo_plan_id, sandbox_log, shared_store
):
    first, second = PlanCache(), PlanCache()
    loaded = await first.snapshot(client, demo_plan_id)
    await second.snapshot(client, demo_plan_id)
    await first.snapshot(client, demo_plan_id)  # publishes its answer from `loaded`'s knowledge
    category = _any_category(loaded)
    await client.patch_month_category(demo_plan_id, _month(loaded), category, 6_540)
    await sandbox_log.mark()

    later = await second.snapshot(client, demo_plan_id)

    assert len(await sandbox_log.requests(demo_plan_id)) == 1
    assert later.month_category(_month(later), category).budgeted == 6_540


async def test_a_worker_that_cannot_get_the_lock_in_time_syncs_on_its_own(
    client, demo_plan_id, sandbox_log, shared_store, monkeypatch
):
    cache = PlanCache()
    loaded = await cache.snapshot(client, demo_plan_id)
    await client.patch_month_category(demo_plan_id, _month(loaded), _any_category(loaded), 7_650)
    store = shared()
    stuck = store.lock(f"plan-sync:{client.base_url}:{client.token_tag}:{demo_plan_id}", timeout=60)
    assert stuck.acquire(blocking=False)  # a worker that took the lock and hangs
    monkeypatch.setattr(shared_sync, "WAIT_SECONDS", 0.2)
    await sandbox_log.mark()

    try:
        after = await cache.snapshot(client, demo_plan_id)
    finally:
        stuck.release()

    assert len(await sandbox_log.requests(demo_plan_id)) == 1
    assert after.month_category(_month(after), _any_category(loaded)).budgeted == 7_650


async def test_a_read_takes_an_answer_that_came_while_it_waited_a_writes_read_one_sent_after_it_began(
    client, demo_plan_id, sandbox_log, shared_store, freshness_clock
):
    loaded = await PlanCache().snapshot(client, demo_plan_id)
    await client.patch_month_category(demo_plan_id, _month(loaded), _any_category(loaded), 8_760)
    answer = await client.get_plan(demo_plan_id, loaded.server_knowledge)
    now = freshness_clock.wall()
    published = f"plan-sync:{client.base_url}:{client.token_tag}:{demo_plan_id}:{loaded.server_knowledge}"
    # Another worker's: sent 5 s before this call began, answered (published) 1 s after.
    shared().set(published, (now - 5, now + 1, answer), timeout=30)
    await sandbox_log.mark()

    read = await shared_sync.delta(client, demo_plan_id, loaded.server_knowledge, exclusive=False)
    asked_by_the_read = await sandbox_log.requests(demo_plan_id)
    written = await shared_sync.delta(client, demo_plan_id, loaded.server_knowledge, exclusive=True)

    assert read == (answer, freshness_clock.now - 5)  # dated when the other worker sent it
    assert asked_by_the_read == []
    assert len(await sandbox_log.requests(demo_plan_id)) == 1
    assert written == (answer, freshness_clock.now)
