"""One delta request for a plan however many workers sync it at once (docs/architecture.md#shared-state).

`delta(client, plan_id, knowledge)` → (YNAB's answer to `GET /plans/{id}?last_knowledge_of_server=N`,
`clock.monotonic()` when that request was sent). The plan cache merges it (`ynab_client.cache`).

One process (`REDIS_URL` unset): the request, sent now (the cache's own single flight already
shares it between the calls of the process). Several workers (`REDIS_URL` set): a short lock per
plan (`SYNC_LOCK_SECONDS`, waited for at most `WAIT_SECONDS`) around the request; its holder
sends it and publishes the answer, keyed by the plan and the knowledge it started from, for
`ANSWER_SECONDS`. A worker that waited for the lock, with the same knowledge, merges that answer
without a request when it came while the worker waited (as a call of one process joins a
refresh in flight; the cache then checks it against the write marks), or, for an `exclusive`
read (a write's, inside its plan's lock), only when its request was sent after that call
began, so it sees every write before it. Otherwise, or when the lock was not free in time, it
sends its own and publishes it.
Aliases (`last-used`) are not shared: their answer may be about another plan.
"""

from __future__ import annotations

import contextlib
import time

import anyio
from redis.exceptions import LockError
from redis.lock import Lock

from avenir_mcp.shared_state import shared
from avenir_mcp.ynab_client import clock
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.snapshot import Json

SYNC_LOCK_SECONDS = 60.0
"""The lock frees itself this long after it was taken, should its holder die mid-request."""
WAIT_SECONDS = 45.0
"""A worker waits this long at most for another's delta (one request: 40 s at most) before sending its own."""
POLL_SECONDS = 0.05
ANSWER_SECONDS = 30
"""A published answer lives this long (garbage collection: waiters read it at once)."""


async def delta(client: YnabClient, plan_id: str, knowledge: int, *, exclusive: bool) -> tuple[Json, float]:
    """The plan's changes since `knowledge`, and when the request that brought them was sent
    (module docstring; `exclusive`: a request sent after this call began, as
    `PlanCache.snapshot` means it). Raises `YnabError`."""
    store = shared()
    if store is None:
        started = clock.monotonic()
        return await client.get_plan(plan_id, knowledge), started
    called_at = clock.wall()
    name = f"plan-sync:{client.base_url}:{client.token_tag}:{plan_id}"
    lock = store.lock(name, timeout=SYNC_LOCK_SECONDS, thread_local=False)
    held = await _taken(lock)
    try:
        published = store.get(f"{name}:{knowledge}")
        if published is not None:
            sent_at, answered_at, data = published
            if (sent_at if exclusive else answered_at) > called_at:
                return data, clock.monotonic() - (clock.wall() - sent_at)
        started, sent_at = clock.monotonic(), clock.wall()
        data = await client.get_plan(plan_id, knowledge)
        store.set(f"{name}:{knowledge}", (sent_at, clock.wall(), data), timeout=ANSWER_SECONDS)
        return data, started
    finally:
        if held:
            with contextlib.suppress(LockError):  # expired meanwhile (a request retried long)
                lock.release()


async def _taken(lock: Lock) -> bool:
    """Take `lock`, waiting `WAIT_SECONDS` at most (polled: a cancelled call leaves nothing held)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not lock.acquire(blocking=False):
        if time.monotonic() >= deadline:
            return False
        await anyio.sleep(POLL_SECONDS)
    return True
