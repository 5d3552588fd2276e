"""The plan write lock: one change applies to a plan at a time, across every process of the service.

Every write reads the plan fresh and sends values computed from what it read (an assigned
amount, a name, a balance's difference). Two writes to one plan applying at the same moment
would both compute from the same state, and the second would overwrite the first (five moves
of 10.00 from one category would take only 10.00 from it). So the applying step of every write
(a confirmed write once the person agreed, an unconfirmed one, an undo, the admin's undo,
settling's set-backs) runs inside

    async with plan_lock.held(plan_id):
        snapshot = await open_plan(plan_id, exclusive=True)   # fresh, read inside the lock
        ...   # rebuild the change, check its fingerprint, send it, log it

(docs/confirmation.md#one-change-at-a-time-per-plan). Reads never take it.

How it holds across processes: a lease row per plan (`oplog.models.PlanWriteLock`) in the
database every process shares, SQLite or PostgreSQL alike, with no transaction kept open
across YNAB's requests (SQLite has one writer: a transaction held for seconds would block the
operation log's own rows).

- Taking it: insert the plan's row naming this holder (`host:pid:random`; the primary key
  lets one insert win). When a row is there, it is taken over only once it has expired, or at
  once when its holder is a process of this host that no longer runs (a killed writer frees
  its plans immediately); each take-over is one conditional UPDATE, so of two processes racing
  for it one wins.
- Holding it: the row expires `LEASE_SECONDS` after it was taken or last renewed; the holder
  renews it every `RENEW_SECONDS` while it works, so a long write (a set-back waiting out a
  429) keeps it, and a holder on another host that died frees it within `LEASE_SECONDS`.
- Waiting: a cheap read first, then a take, every `POLL_SECONDS` at most; after `WAIT_SECONDS`
  the caller gets `PlanBusy`, a `Refusal` (nothing was sent; try again shortly). Settling
  waits for nothing (`wait=0`): a plan being written is settled in a later round.
- Within one call it is re-entrant: a write that already holds the plan (an undo settling the
  plan first) does not wait for itself.
- Releasing: the row is deleted if it is still this holder's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from datetime import datetime, timedelta

import anyio
from asgiref.sync import sync_to_async
from django.utils import timezone

from avenir_mcp.oplog.log import this_writer, writer_gone
from avenir_mcp.oplog.models import PlanWriteLock
from avenir_mcp.values.refusal import Refusal

logger = logging.getLogger(__name__)

LEASE_SECONDS = 60
"""A holder that stops renewing (its host died) frees the plan this long after its last renewal."""
RENEW_SECONDS = 15
WAIT_SECONDS = 90.0
"""How long a write waits for the write before it (longer than any one write takes but a rare
set-back waiting out YNAB's 429) before it is refused, nothing sent."""
POLL_SECONDS = 0.05

BUSY = (
    "Another change to this plan is still being applied, so nothing was sent (and no confirmation "
    "was used); try again in a minute."
)

clock: Callable[[], datetime] = timezone.now
"""The lease's clock (tests move it to expire a lease without waiting)."""

_held: ContextVar[frozenset[str]] = ContextVar("plan_write_locks_held", default=frozenset())


class PlanBusy(Refusal):
    """Another writer held the plan for longer than the caller would wait: nothing was sent."""

    def __init__(self) -> None:
        super().__init__(BUSY)


@contextlib.asynccontextmanager
async def held(plan_id: str, *, wait: float | None = None) -> AsyncIterator[None]:
    """Hold `plan_id`'s write lock for the block (module docstring); `PlanBusy` after `wait`
    seconds (default `WAIT_SECONDS`; 0: one attempt)."""
    if plan_id in _held.get():
        yield
        return
    holder = _new_holder()
    await _take(plan_id, holder, WAIT_SECONDS if wait is None else wait)
    token = _held.set(_held.get() | {plan_id})
    renewing = asyncio.get_running_loop().create_task(_keep_renewing(plan_id, holder))
    try:
        yield
    finally:
        _held.reset(token)
        renewing.cancel()
        with anyio.CancelScope(shield=True):  # a cancelled call still frees the plan
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            await sync_to_async(_release)(plan_id, holder)


def holding(plan_id: str) -> bool:
    """Does the current call hold `plan_id`'s write lock?"""
    return plan_id in _held.get()


def _new_holder() -> str:
    """This process (as `oplog.this_writer` names it) and this call."""
    return f"{this_writer()}:{secrets.token_hex(6)}"


async def _take(plan_id: str, holder: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    delay = POLL_SECONDS / 5
    while not await sync_to_async(_try_take)(plan_id, holder):
        if delay == POLL_SECONDS / 5:
            logger.info("Plan %s: a write waits for the one before it to finish", plan_id)
        if time.monotonic() >= deadline:
            logger.warning(
                "Plan %s: a write waited %.0f s for the plan's write lock and gave up", plan_id, wait
            )
            raise PlanBusy()
        await asyncio.sleep(delay)
        delay = min(delay * 2, POLL_SECONDS)


def _try_take(plan_id: str, holder: str) -> bool:
    """One attempt: the plan's row made ours, or False while another live holder has it."""
    now = clock()
    expires = now + timedelta(seconds=LEASE_SECONDS)
    row, created = PlanWriteLock.objects.get_or_create(
        plan_id=plan_id, defaults={"holder": holder, "expires_at": expires}
    )
    if created:
        return True
    if row.expires_at > now and not writer_gone(row.holder):
        return False
    # Expired, or its process is gone: take it over, unless someone else did first.
    logger.warning(
        "Plan %s: taking over the write lock of %s (expired, or its process gone)", plan_id, row.holder
    )
    still_theirs = PlanWriteLock.objects.filter(plan_id=plan_id, holder=row.holder)
    return bool(still_theirs.update(holder=holder, expires_at=expires))


async def _keep_renewing(plan_id: str, holder: str) -> None:
    while True:
        await asyncio.sleep(RENEW_SECONDS)
        if not await sync_to_async(_renew)(plan_id, holder):
            logger.error("Plan %s: the write lock was taken over while this write held it", plan_id)
            return


def _renew(plan_id: str, holder: str) -> bool:
    expires = clock() + timedelta(seconds=LEASE_SECONDS)
    return bool(PlanWriteLock.objects.filter(plan_id=plan_id, holder=holder).update(expires_at=expires))


def _release(plan_id: str, holder: str) -> None:
    PlanWriteLock.objects.filter(plan_id=plan_id, holder=holder).delete()
