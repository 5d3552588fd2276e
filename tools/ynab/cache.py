"""The plan cache: each plan loaded once, then kept current by one delta request per use.

`PlanCache.snapshot(client, plan_id)`:
- cold: `GET /plans/{id}` (the full export), built into a `PlanSnapshot`;
- warm: `GET /plans/{id}?last_knowledge_of_server=N`, merged into the cached snapshot
  (`tools.ynab.merge`); if YNAB's knowledge went backwards (a restored plan), a full load.
Concurrent calls for the same plan on one event loop share one in-flight refresh (single
flight), so twenty simultaneous tool calls cost one request. A snapshot older than what
this client's own writes reported is refreshed once more, so a tool reads its writes.

`last-used` (and `default`) are aliases YNAB resolves. The first call loads
`GET /plans/last-used` and remembers the real id; later calls send
`GET /plans/last-used?last_knowledge_of_server=N` with that plan's N, and merge only when
the answer is that same plan. If YNAB now means another plan, the answer is discarded and
that plan is read by its own id (fully when it is not cached), so two plans never mix. A
snapshot always carries the real id.

Entries are keyed by (base URL, token tag, plan id): two YNABs or two tokens never share a
plan. The cache is per process and thread-safe; snapshots are immutable and shared.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

import anyio
from django.utils import timezone

from tools.logic.ids import check_id
from tools.ynab.client import ALIASES, YnabClient
from tools.ynab.errors import YnabError
from tools.ynab.merge import apply_delta
from tools.ynab.parse import Json, parse_plan_delta
from tools.ynab.snapshot import PlanSnapshot

CacheKey = tuple[str, str, str]  # (base URL, token tag, plan id or alias)
# Answers with more transactions than this are parsed and merged off the event loop.
_OFF_LOOP_ROWS = 2000


@dataclass(frozen=True, slots=True)
class CacheEntry:
    snapshot: PlanSnapshot
    loaded_at: datetime
    last_refresh_at: datetime


@dataclass(frozen=True, slots=True)
class PlanCacheState:
    """What the cache holds for one plan, for `/api/health` and the admin."""

    plan_id: str
    name: str
    server_knowledge: int
    loaded_at: datetime
    last_refresh_at: datetime
    counts: dict[str, int]
    base_url: str
    token_tag: str


class PlanCache:
    def __init__(self) -> None:
        self._entries: dict[CacheKey, CacheEntry] = {}
        self._aliases: dict[CacheKey, str] = {}
        self._flights: dict[tuple[CacheKey, asyncio.AbstractEventLoop], asyncio.Task] = {}
        self._lock = threading.Lock()

    async def snapshot(self, client: YnabClient, plan_id: str) -> PlanSnapshot:
        """The plan, current as of this call (one request when warm). Raises `YnabError`, `IdError`."""
        check_id(plan_id, what="plan", source="list_plans")
        key = (client.base_url, client.token_tag, plan_id)
        snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        if snapshot.server_knowledge < client.written_knowledge.get(snapshot.plan_id, 0):
            # Joined a refresh that started before this client's last write landed.
            snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        return snapshot

    def states(self) -> list[PlanCacheState]:
        with self._lock:
            entries = list(self._entries.items())
        return [_state(key, entry) for key, entry in entries]

    def clear(self) -> None:
        """Forget every plan (the next use of each is a full load)."""
        with self._lock:
            self._entries.clear()
            self._aliases.clear()

    async def _single_flight(
        self, key: CacheKey, refresh: Callable[[], Awaitable[PlanSnapshot]]
    ) -> PlanSnapshot:
        loop = asyncio.get_running_loop()
        flight_key = (key, loop)
        with self._lock:
            task = self._flights.get(flight_key)
            if task is None:
                task = self._flights[flight_key] = loop.create_task(refresh())
                task.add_done_callback(lambda done: self._landed(flight_key, done))
        # Shielded: a caller that gives up does not cancel the refresh others wait for.
        return await asyncio.shield(task)

    def _landed(self, flight_key: tuple[CacheKey, asyncio.AbstractEventLoop], task: asyncio.Task) -> None:
        with self._lock:
            if self._flights.get(flight_key) is task:
                del self._flights[flight_key]
        if not task.cancelled():
            task.exception()  # retrieved here, so an error nobody awaited is not logged as lost

    async def _refresh(self, client: YnabClient, plan_id: str) -> PlanSnapshot:
        if plan_id in ALIASES:
            return await self._refresh_alias(client, plan_id)
        return await self._refresh_plan(client, plan_id)

    async def _refresh_plan(self, client: YnabClient, plan_id: str) -> PlanSnapshot:
        key = (client.base_url, client.token_tag, plan_id)
        entry = self._entry(key)
        if entry is None:
            return await self._load(client, plan_id)
        try:
            data = await client.get_plan(plan_id, entry.snapshot.server_knowledge)
        except YnabError as error:
            if error.status == 404:  # the plan is gone: forget it
                self._drop(key)
            raise
        return await self._merged(client, entry, data)

    async def _refresh_alias(self, client: YnabClient, alias: str) -> PlanSnapshot:
        alias_key = (client.base_url, client.token_tag, alias)
        real_id = self._aliases.get(alias_key)
        entry = self._entry((client.base_url, client.token_tag, real_id)) if real_id else None
        if entry is None:
            return await self._load(client, alias, alias_key=alias_key)
        data = await client.get_plan(alias, entry.snapshot.server_knowledge)
        answered_id = _plan_id_of(data)
        if answered_id == real_id:
            return await self._merged(client, entry, data)
        # YNAB's last-used plan changed: this answer is a delta against another plan's
        # knowledge, meaningless here. Drop it and read that plan by its own id.
        check_id(answered_id, what="plan")
        with self._lock:
            self._aliases[alias_key] = answered_id
        return await self._refresh_plan(client, answered_id)

    async def _load(
        self, client: YnabClient, plan_id: str, *, alias_key: CacheKey | None = None
    ) -> PlanSnapshot:
        snapshot = await _built(None, await client.get_plan(plan_id))
        if alias_key is not None:
            with self._lock:
                self._aliases[alias_key] = snapshot.plan_id
        return self._store(client, snapshot, full=True)

    async def _merged(self, client: YnabClient, entry: CacheEntry, data: Json) -> PlanSnapshot:
        knowledge = data.get("server_knowledge")
        if isinstance(knowledge, int) and knowledge < entry.snapshot.server_knowledge:
            # YNAB knows less than this cache (a restored or re-created plan): start over.
            return await self._load(client, entry.snapshot.plan_id)
        snapshot = await _built(entry.snapshot, data)
        return self._store(client, snapshot, full=False)

    def _store(self, client: YnabClient, snapshot: PlanSnapshot, *, full: bool) -> PlanSnapshot:
        """Keep `snapshot` unless a newer one landed meanwhile (then return that one)."""
        key = (client.base_url, client.token_tag, snapshot.plan_id)
        now = timezone.now()
        with self._lock:
            current = self._entries.get(key)
            if current and not full and current.snapshot.server_knowledge > snapshot.server_knowledge:
                return current.snapshot
            loaded_at = now if full or current is None else current.loaded_at
            self._entries[key] = CacheEntry(snapshot, loaded_at, now)
        return snapshot

    def _entry(self, key: CacheKey) -> CacheEntry | None:
        with self._lock:
            return self._entries.get(key)

    def _drop(self, key: CacheKey) -> None:
        with self._lock:
            self._entries.pop(key, None)


async def _built(base: PlanSnapshot | None, data: Json) -> PlanSnapshot:
    """`data` (a plan answer) parsed and merged; big answers off the event loop."""
    if len(_rows(data)) > _OFF_LOOP_ROWS:
        return await anyio.to_thread.run_sync(_parse_and_apply, base, data)
    return _parse_and_apply(base, data)


def _parse_and_apply(base: PlanSnapshot | None, data: Json) -> PlanSnapshot:
    delta = parse_plan_delta(data)
    if base is not None and delta.plan_id != base.plan_id:
        raise YnabError(
            f"YNAB answered with plan {delta.plan_id} for plan {base.plan_id}; nothing was merged."
        )
    return apply_delta(base, delta)


def _rows(data: Json) -> list:
    plan = data.get("plan")
    return plan.get("transactions") or [] if isinstance(plan, dict) else []


def _plan_id_of(data: Json) -> str:
    try:
        return str(data["plan"]["id"])
    except (KeyError, TypeError) as exc:
        raise YnabError(
            "YNAB's answer for the plan did not say which plan it is; nothing was merged."
        ) from exc


def _state(key: CacheKey, entry: CacheEntry) -> PlanCacheState:
    snapshot = entry.snapshot
    return PlanCacheState(
        plan_id=snapshot.plan_id,
        name=snapshot.name,
        server_knowledge=snapshot.server_knowledge,
        loaded_at=entry.loaded_at,
        last_refresh_at=entry.last_refresh_at,
        counts=snapshot.counts(),
        base_url=key[0],
        token_tag=key[1],
    )


plan_cache = PlanCache()  # the process's cache, used by `tools.ynab.plan_snapshot`
