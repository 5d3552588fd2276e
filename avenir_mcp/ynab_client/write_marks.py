"""Write marks: what the writes to a plan left, which ends the freshness window of every cache of it
(`ynab_client.cache`, `ynab_client.movements`; docs/architecture.md#shared-state).

A mark, per (base URL, token tag, plan id), says when the last write to the plan ended (sent or
not, answered or not: a lost answer may still have changed the plan) and the highest
server_knowledge the writes' answers reported. A cache entry synced before the mark, or older
than its knowledge, is not answered from the window.

One process (`REDIS_URL` unset): the marks are this process's, in its memory, on
`clock.monotonic()`. Several workers (`REDIS_URL` set): each write also raises the plan's mark in
the shared store, one script (`_RAISE`: the instant and the knowledge each only ever go up), with
the instant on the wall clock (`clock.wall()`), the one clock processes share; a process reads
it back onto its own monotonic clock. So a write on one worker ends the window on all of them.
The stored mark lives `MARK_SECONDS` (garbage collection: far longer than any window).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import cast

from avenir_mcp.shared_state import redis_connection, shared
from avenir_mcp.ynab_client import clock

MARK_SECONDS = 24 * 3600

PlanKey = tuple[str, str, str]  # (base URL, token tag, plan id)


@dataclass(frozen=True, slots=True)
class WriteMark:
    """The writes to one plan: when the last one ended (`clock.monotonic()`) and the highest
    server_knowledge their answers reported."""

    ended_at: float
    knowledge: int


_writes: dict[PlanKey, WriteMark] = {}
_writes_lock = threading.Lock()

# KEYS[1]: the plan's mark (a hash); ARGV: the write's wall-clock instant, its knowledge, the lifetime.
_RAISE = """
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '0')
if tonumber(ARGV[1]) > at then redis.call('HSET', KEYS[1], 'at', ARGV[1]) end
local knowledge = tonumber(redis.call('HGET', KEYS[1], 'knowledge') or '0')
if tonumber(ARGV[2]) > knowledge then redis.call('HSET', KEYS[1], 'knowledge', ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
"""


def mark_write(key: PlanKey, knowledge: int) -> None:
    """A write to the plan ended now; its answer reported `knowledge` (0: none)."""
    with _writes_lock:
        previous = _writes.get(key)
        _writes[key] = WriteMark(clock.monotonic(), max(knowledge, previous.knowledge if previous else 0))
    connection = redis_connection()
    if connection is not None:
        script = connection.register_script(_RAISE)
        script(keys=[_stored_key(key)], args=[repr(clock.wall()), knowledge, MARK_SECONDS])


def last_write(key: PlanKey) -> WriteMark | None:
    """What the last write to the plan left (this process's, or with a shared store any
    process's), if any."""
    with _writes_lock:
        mine = _writes.get(key)
    connection = redis_connection()
    if connection is None:
        return mine
    stored = cast("dict[bytes, bytes]", connection.hgetall(_stored_key(key)))  # a sync connection
    if not stored:
        return mine
    # The stored instant on this process's monotonic clock: as long before now as on the wall.
    theirs = WriteMark(clock.monotonic() - (clock.wall() - float(stored[b"at"])), int(stored[b"knowledge"]))
    if mine is None:
        return theirs
    return WriteMark(max(mine.ended_at, theirs.ended_at), max(mine.knowledge, theirs.knowledge))


def forget_writes(key: PlanKey) -> None:
    """Forget the writes to a plan YNAB started over (its knowledge went back)."""
    with _writes_lock:
        _writes.pop(key, None)
    connection = redis_connection()
    if connection is not None:
        connection.delete(_stored_key(key))


def _stored_key(key: PlanKey) -> str:
    store = shared()
    assert store is not None  # only called with a shared store
    return str(store.make_key("plan-written:" + ":".join(key)))
