"""Settling: no operation stays `pending` or `unknown` without the service working to close it.

A row is left unsettled when a request's answer was lost (`unknown`), when the process stopped
between `log.begin` and the end of its requests (`pending`, e.g. `kill -9` between move_money's
two writes), or when half of a change is in YNAB and could not be put back yet (`pending`).
Settling reads the plan fresh and lets each operation's settler (`oplog.settling.judge`) say
what YNAB holds, then records it (`log.settle`): `applied`, `failed`, or `unknown` when YNAB
cannot tell; a settler that still has to act (a half move to put back) leaves the row pending,
and settling tries again later. An undo settled as landed makes its original `undone`.

When it runs:

- at start-up (`mcp_surface.http`'s lifespan, `manage.py mcp_stdio`): `settle_everything()`;
- before `list_operations` and `undo_operation` answer: `settle_plan(plan_id)` (no request at
  all when the plan has nothing unsettled);
- in the background while unsettled rows exist: `keep_settling()`, every
  `AVENIR_MCP_SETTLE_SECONDS` (0 turns the loop off).

A row is judged only `AVENIR_MCP_SETTLE_AFTER_SECONDS` after its last request (YNAB may still
be processing one that timed out), and a `pending` row is left alone while its writer may
still be sending: a row this process is writing (`log.being_written`), or one begun by
another process that still runs on this host, or by one elsewhere, until
`STALE_PENDING_SECONDS` have passed: so a row a killed process left is settled by any other
process, at once on its host. One call settles a row at a time (`_claim`): with a shared store
(`REDIS_URL`), one worker, by a claim in the store that expires after `CLAIM_SECONDS` should
that worker die; and settling a plan holds its write lock. Reading the plan failing
(YNAB down, pacing) leaves everything for a later round; a row or plan that could not be settled
is tried again after 1 minute, then twice as long each time up to 30 minutes (`backoff`), so
settling never eats the hour's YNAB budget. Nothing here raises to its caller.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import anyio
from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from redis.exceptions import LockError
from redis.lock import Lock

from avenir_mcp import ynab_client
from avenir_mcp.oplog import log, plan_lock
from avenir_mcp.oplog.kinds import Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.settling.judge import settlement_of
from avenir_mcp.shared_state import shared
from avenir_mcp.values.ids import IdError
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

__all__ = [
    "STALE_PENDING_SECONDS",
    "Settlement",
    "keep_settling",
    "needs_attention",
    "settle_everything",
    "settle_plan",
    "unsettled",
]

logger = logging.getLogger(__name__)

STALE_PENDING_SECONDS = 15 * 60
"""A pending row begun by a live process on another host is settled only after this long: longer
than any write can take (five requests of at most 40 seconds, and a set-back's wait)."""

Status = Operation.Status

CLAIM_SECONDS = 10 * 60
"""With a shared store, a worker's claim on a row it settles expires this long after it took it
(should the worker die mid-settling): longer than settling one row takes."""

FIRST_RETRY_SECONDS = 60
LAST_RETRY_SECONDS = 30 * 60

_settling: set[str] = set()
_settling_lock = threading.Lock()


class _Backoff:
    """When a row (or a plan) that could not be settled may be tried again: after 1 minute, then
    twice as long each time, up to 30 minutes, so a set-back YNAB keeps refusing, or a plan that
    cannot be read, never eats the hour's request budget (200 a token)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next: dict[str, tuple[float, float]] = {}

    def ready(self, key: str) -> bool:
        with self._lock:
            when, _delay = self._next.get(key, (0.0, 0.0))
            return time.monotonic() >= when

    def failed(self, key: str) -> None:
        with self._lock:
            _when, delay = self._next.get(key, (0.0, 0.0))
            delay = min(max(delay * 2, FIRST_RETRY_SECONDS), LAST_RETRY_SECONDS)
            self._next[key] = (time.monotonic() + delay, delay)

    def done(self, key: str) -> None:
        with self._lock:
            self._next.pop(key, None)

    def forget(self) -> None:
        """Every row and plan may be tried at once (tests, or the owner asking from the admin)."""
        with self._lock:
            self._next.clear()


backoff = _Backoff()


def unsettled() -> QuerySet[Operation]:
    """Rows whose outcome is still open: `pending`, or `unknown` and not settled yet."""
    return Operation.objects.filter(status__in=(Status.PENDING, Status.UNKNOWN), settled_at__isnull=True)


def needs_attention() -> QuerySet[Operation]:
    """What the owner should look at (the admin's filter): unsettled rows, rows YNAB's state could
    not settle (`unknown`), and half moves whose source changed before it could be put back."""
    open_outcome = Q(status__in=(Status.PENDING, Status.UNKNOWN))
    half_left = Q(status=Status.FAILED, undo_data__outcome="half_done")
    return Operation.objects.filter(open_outcome | half_left)


async def settle_plan(plan_id: str) -> int:
    """Settle what can be settled of one plan now; how many rows were settled or advanced."""
    of_plan = unsettled().filter(plan_id=plan_id).select_related("undo_of").order_by("created_at")
    rows = [op async for op in of_plan if _may_settle(op) and backoff.ready(op.pk)]
    if not rows or not backoff.ready(f"plan:{plan_id}"):
        return 0
    try:
        async with plan_lock.held(plan_id, wait=0):  # its set-backs are writes: one writer per plan
            return await _settle_rows(plan_id, rows)
    except plan_lock.PlanBusy:
        logger.info("Settling plan %s waits: a change to it is being applied", plan_id)
        return 0


async def _settle_rows(plan_id: str, rows: list[Operation]) -> int:
    """Judge `rows` on the plan read fresh inside its write lock."""
    try:
        snapshot = await ynab_client.plan_snapshot(plan_id, exclusive=True)
    except (ynab_client.YnabError, IdError) as error:
        logger.info("Settling plan %s waits: its plan could not be read (%s)", plan_id, error)
        backoff.failed(f"plan:{plan_id}")
        return 0
    backoff.done(f"plan:{plan_id}")
    client = ynab_client.get_ynab_client()
    done = 0
    for op in rows:
        done += await _settle_one(client, snapshot, op)
    return done


async def settle_everything() -> int:
    """Settle every plan's unsettled rows (start-up, and each background round).

    A plan whose round fails for another reason than YNAB (a bug, the database) is logged and
    left to the next round; the plans after it are still settled in this one (they are taken in
    the same order every round, so one such plan would otherwise hold back all that follow it).
    """
    plan_ids = [plan async for plan in unsettled().values_list("plan_id", flat=True).distinct()]
    done = 0
    for plan_id in sorted(set(plan_ids)):
        try:
            done += await settle_plan(plan_id)
        except Exception:
            logger.exception("Settling plan %s failed; trying it again next round", plan_id)
    return done


async def keep_settling() -> None:
    """Settle at start-up, then every `AVENIR_MCP_SETTLE_SECONDS` while rows are unsettled (runs until
    cancelled; with the setting at 0, only the start-up round)."""
    while True:
        try:
            if await unsettled().aexists():
                await settle_everything()
        except Exception:  # a bug or a database hiccup must not end the loop
            logger.exception("Settling failed; trying again next round")
        interval = settings.AVENIR_MCP_SETTLE_SECONDS
        if interval <= 0:
            return
        await anyio.sleep(interval)


async def _settle_one(client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> int:
    give_back = _claim(op.pk)
    if give_back is None:
        return 0
    try:
        settlement = await settlement_of(client, snapshot, op)
        changed = await log.settle(
            op,
            status=settlement.status,
            error=settlement.message,
            undo_data=settlement.undo_data,
            final=settlement.final,
        )
        if changed and op.undo_of_id is not None:
            await _undo_settled(op, op.undo_of_id, settlement)
        if changed:
            logger.info("Settled operation %s (%s): %s", op.pk, op.tool, settlement.status)
        if settlement.final:
            backoff.done(op.pk)
        else:
            backoff.failed(op.pk)
        return int(changed)
    except Exception:
        logger.exception("Settling operation %s (%s) failed; it is tried again later", op.pk, op.tool)
        backoff.failed(op.pk)
        return 0
    finally:
        give_back()


async def _undo_settled(undo: Operation, original_id: str, settlement: Settlement) -> None:
    """An undo settled: landed → its original (`original_id`, its `undo_of`) is `undone` by it; not
    landed → the original's claim (held when the undo's process stopped mid-write) is given back."""
    if settlement.landed == "all":
        await log.mark_undone(original_id, undo)
    else:  # an undo's settlement is always final (`judge.undo_settled`)
        await log.release_undo_claim(original_id, undo, status=Status.APPLIED)


def _may_settle(op: Operation) -> bool:
    """Never a row whose writer may still be sending, nor one whose last request YNAB may still be
    processing (`AVENIR_MCP_SETTLE_AFTER_SECONDS` after its answer was lost; module docstring)."""
    last_heard = op.completed_at or op.created_at
    if timezone.now() - last_heard < timedelta(seconds=settings.AVENIR_MCP_SETTLE_AFTER_SECONDS):
        return False
    if op.status != Status.PENDING:
        return True
    if log.being_written(op.pk):
        return False
    if op.writer == log.this_writer():
        return True  # left pending on purpose by this process (a half move), not being written
    if log.writer_gone(op.writer):
        return True
    return timezone.now() - op.created_at > timedelta(seconds=STALE_PENDING_SECONDS)


def _claim(op_id: str) -> Callable[[], None] | None:
    """Settle `op_id` in this call only, on no other worker meanwhile: how to give it back, or
    None when another call (or, with a shared store, another worker) is settling it."""
    store = shared()
    if store is not None:
        lock = store.lock(f"settling:{op_id}", timeout=CLAIM_SECONDS, thread_local=False)
        return functools.partial(_give_back, lock) if lock.acquire(blocking=False) else None
    with _settling_lock:
        if op_id in _settling:
            return None
        _settling.add(op_id)
    return functools.partial(_release, op_id)


def _give_back(lock: Lock) -> None:
    with contextlib.suppress(LockError):  # expired meanwhile: another worker may have it now
        lock.release()


def _release(op_id: str) -> None:
    with _settling_lock:
        _settling.discard(op_id)
