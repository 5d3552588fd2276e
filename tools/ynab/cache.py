"""The plan cache: each plan loaded once, then kept current by delta requests.

`PlanCache.snapshot(client, plan_id)`:
- within the freshness window: a read (`RequestKind.READ`, see `tools.ynab.pacing`) less than
  `AVENIR_MCP_FRESHNESS_SECONDS` after the plan's last sync is answered from the cache with no
  request at all, unless this process wrote to the plan since that sync began (a write's
  answer does not carry the figures it changes, such as balances and Ready to Assign). A
  write, and every read inside `request_kind(WRITE)` (the write flow, undo), always syncs;
- cold: the plan's stored snapshot (`tools.ynab.store`) when there is a usable one, then
  one delta; else `GET /plans/{id}` (the full export), built into a `PlanSnapshot`;
- warm: `GET /plans/{id}?last_knowledge_of_server=N`, merged into the cached snapshot
  (`tools.ynab.merge`); if YNAB's knowledge went backwards (a restored or re-created plan),
  the snapshot is dropped (one log line) and the plan loaded in full.
Concurrent calls for the same plan on one event loop share one in-flight refresh (single
flight), so twenty simultaneous tool calls cost one request. A snapshot older than what
this process's own writes reported is refreshed once more, so a tool reads its writes.
A sync that changed a plan hands it to the store (`store.Saver`: at once the first time,
then at most once a minute, and at shutdown); `warm_up` loads the stored plans of the
configured YNAB in the background when a process starts.

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
import concurrent.futures
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

import anyio
from django.conf import settings
from django.db import connections
from django.utils import timezone

from tools.logic.ids import check_id
from tools.ynab import store
from tools.ynab.client import ALIASES, YnabClient, prepare_transport
from tools.ynab.errors import YnabError
from tools.ynab.merge import apply_delta
from tools.ynab.pacing import RequestKind, current_kind
from tools.ynab.parse import Json, parse_plan_delta
from tools.ynab.snapshot import PlanSnapshot

logger = logging.getLogger(__name__)

CacheKey = tuple[str, str, str]  # (base URL, token tag, plan id or alias)
# Answers with more transactions than this are parsed and merged off the event loop.
_OFF_LOOP_ROWS = 2000


@dataclass(frozen=True, slots=True)
class CacheEntry:
    snapshot: PlanSnapshot
    loaded_at: datetime
    last_refresh_at: datetime
    # time.monotonic() when the request that brought this snapshot was sent; None for a
    # snapshot restored from the store, which is never fresh.
    synced_at: float | None


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


# Loads stored plans (and does the rest of a warm-up) off the event loop, one at a time.
_restorer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="plan-store-load")


class PlanCache:
    def __init__(self) -> None:
        self._entries: dict[CacheKey, CacheEntry] = {}
        self._aliases: dict[CacheKey, str] = {}
        self._flights: dict[tuple[CacheKey, asyncio.AbstractEventLoop, bool], asyncio.Task] = {}
        self._restores: dict[CacheKey, concurrent.futures.Future] = {}
        self._lock = threading.Lock()
        self.saver = store.Saver()

    async def snapshot(self, client: YnabClient, plan_id: str) -> PlanSnapshot:
        """The plan, current as of this call (at most one request when warm, none inside the
        freshness window). Raises `YnabError`, `IdError`."""
        check_id(plan_id, what="plan", source="list_plans")
        key = (client.base_url, client.token_tag, plan_id)
        fresh = self._within_window(client, key)
        if fresh is not None:
            return fresh
        snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        if snapshot.server_knowledge < client.written_knowledge(snapshot.plan_id):
            # Joined a refresh that started before this process's last write landed.
            snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        return snapshot

    def warm_up(self, client: YnabClient) -> list[str]:
        """Start loading, in the background, every plan stored for this client's YNAB and key.

        Returns their ids; a call for one of them meanwhile waits for its load (no export).
        """
        stored = store.stored_plans(client.base_url, client.token_tag)
        # What a process's first request would otherwise do on its way: load the CA bundle
        # and the transport, read the last hour's requests for the pacer.
        _restorer.submit(prepare_transport)
        _restorer.submit(_closing_connection(client.sender.seed_pacer_now))
        for plan in stored:
            with self._lock:
                for alias in plan.aliases:  # newest first: the latest word on what it meant
                    self._aliases.setdefault((client.base_url, client.token_tag, alias), plan.plan_id)
            self._restore((client.base_url, client.token_tag, plan.plan_id))
        return [plan.plan_id for plan in stored]

    def _within_window(self, client: YnabClient, key: CacheKey) -> PlanSnapshot | None:
        """The cached snapshot when a read may have it without asking YNAB (module docstring)."""
        window = settings.AVENIR_MCP_FRESHNESS_SECONDS
        if window <= 0 or current_kind() is not RequestKind.READ:
            return None
        with self._lock:
            real_id = self._aliases.get(key, key[2])
            entry = self._entries.get((key[0], key[1], real_id))
        if entry is None or entry.synced_at is None or time.monotonic() - entry.synced_at >= window:
            return None
        written = client.last_write(real_id)
        if written is not None and (
            written.ended_at >= entry.synced_at or written.knowledge > entry.snapshot.server_knowledge
        ):
            return None  # this process wrote to the plan since: sync once to show it
        return entry.snapshot

    def states(self) -> list[PlanCacheState]:
        with self._lock:
            entries = list(self._entries.items())
        return [_state(key, entry) for key, entry in entries]

    def clear(self) -> None:
        """Forget every plan, as a new process would (the next use of each reads the store)."""
        with self._lock:
            self._entries.clear()
            self._aliases.clear()
            self._restores.clear()
        self.saver.forget()

    async def _single_flight(
        self, key: CacheKey, refresh: Callable[[], Awaitable[PlanSnapshot]]
    ) -> PlanSnapshot:
        loop = asyncio.get_running_loop()
        # A write's read does not join a read's: the pacer may refuse reads, never it for them.
        flight_key = (key, loop, current_kind() is RequestKind.READ)
        with self._lock:
            task = self._flights.get(flight_key)
            if task is None:
                task = self._flights[flight_key] = loop.create_task(refresh())
                task.add_done_callback(lambda done: self._landed(flight_key, done))
        # Shielded: a caller that gives up does not cancel the refresh others wait for.
        return await asyncio.shield(task)

    def _landed(
        self, flight_key: tuple[CacheKey, asyncio.AbstractEventLoop, bool], task: asyncio.Task
    ) -> None:
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
        entry = self._entry(key) or await self._restored(key)
        if entry is None:
            return await self._load(client, plan_id)
        started = time.monotonic()
        try:
            data = await client.get_plan(plan_id, entry.snapshot.server_knowledge)
        except YnabError as error:
            if error.status == 404:  # the plan is gone: forget it
                self._drop(key)
            raise
        return await self._merged(client, entry, data, started)

    async def _restored(self, key: CacheKey) -> CacheEntry | None:
        """The plan's stored snapshot, restored into the cache (loaded off the event loop once)."""
        await asyncio.wrap_future(self._restore(key))
        return self._entry(key)

    def _restore(self, key: CacheKey) -> concurrent.futures.Future:
        with self._lock:
            future = self._restores.get(key)
            if future is None:
                future = self._restores[key] = _restorer.submit(self._load_stored, key)
            return future

    def _load_stored(self, key: CacheKey) -> None:
        started = time.perf_counter()
        snapshot = store.load(*key)
        if snapshot is None:
            return
        logger.info(
            "Plan %s restored from the store (server_knowledge %s, %s transactions) in %.0f ms",
            key[2],
            snapshot.server_knowledge,
            len(snapshot.transactions),
            (time.perf_counter() - started) * 1000,
        )
        now = timezone.now()
        with self._lock:
            self._entries.setdefault(key, CacheEntry(snapshot, now, now, synced_at=None))

    async def _refresh_alias(self, client: YnabClient, alias: str) -> PlanSnapshot:
        alias_key = (client.base_url, client.token_tag, alias)
        real_id = self._aliases.get(alias_key)
        entry = None
        if real_id is not None:
            real_key = (client.base_url, client.token_tag, real_id)
            entry = self._entry(real_key) or await self._restored(real_key)
        if entry is None:
            return await self._load(client, alias, alias_key=alias_key)
        started = time.monotonic()
        data = await client.get_plan(alias, entry.snapshot.server_knowledge)
        answered_id = _plan_id_of(data)
        if answered_id == real_id:
            return await self._merged(client, entry, data, started)
        # YNAB's last-used plan changed: this answer is a delta against another plan's
        # knowledge, meaningless here. Drop it and read that plan by its own id.
        check_id(answered_id, what="plan")
        with self._lock:
            self._aliases[alias_key] = answered_id
        return await self._refresh_plan(client, answered_id)

    async def _load(
        self, client: YnabClient, plan_id: str, *, alias_key: CacheKey | None = None
    ) -> PlanSnapshot:
        started = time.monotonic()
        snapshot = await _built(None, await client.get_plan(plan_id))
        if alias_key is not None:
            with self._lock:
                self._aliases[alias_key] = snapshot.plan_id
        return self._keep(client, snapshot, started, full=True)

    async def _merged(
        self, client: YnabClient, entry: CacheEntry, data: Json, started: float
    ) -> PlanSnapshot:
        knowledge = data.get("server_knowledge")
        if isinstance(knowledge, int) and knowledge < entry.snapshot.server_knowledge:
            # YNAB knows less than this cache (a restored or re-created plan): start over.
            kept = "stored" if entry.synced_at is None else "cached"
            logger.warning(
                "Plan %s: YNAB's server_knowledge went back (%s < %s of the %s snapshot); "
                "that snapshot is dropped and the plan loaded in full.",
                entry.snapshot.plan_id,
                knowledge,
                entry.snapshot.server_knowledge,
                kept,
            )
            client.forget_writes(entry.snapshot.plan_id)  # their knowledge means nothing now
            return await self._load(client, entry.snapshot.plan_id)
        snapshot = await _built(entry.snapshot, data)
        return self._keep(client, snapshot, started, full=False)

    def _keep(
        self, client: YnabClient, snapshot: PlanSnapshot, started: float, *, full: bool
    ) -> PlanSnapshot:
        """Keep `snapshot` unless a newer one landed meanwhile (then return that one), and
        hand it to the store when it changed."""
        key = (client.base_url, client.token_tag, snapshot.plan_id)
        now = timezone.now()
        with self._lock:
            current = self._entries.get(key)
            if current and not full and current.snapshot.server_knowledge > snapshot.server_knowledge:
                return current.snapshot
            loaded_at = now if full or current is None else current.loaded_at
            synced_at = max(started, current.synced_at or started) if current and not full else started
            self._entries[key] = CacheEntry(snapshot, loaded_at, now, synced_at)
            changed = (
                full or current is None or current.snapshot.server_knowledge != snapshot.server_knowledge
            )
            aliases = [alias for (*at, alias), real_id in self._aliases.items() if (*at, real_id) == key]
        if changed:
            self.saver.changed(client.base_url, client.token_tag, snapshot, aliases)
        return snapshot

    def flush(self) -> None:
        """Store every plan changed since its last save (at shutdown; blocks)."""
        self.saver.flush()

    def _entry(self, key: CacheKey) -> CacheEntry | None:
        with self._lock:
            return self._entries.get(key)

    def _drop(self, key: CacheKey) -> None:
        with self._lock:
            self._entries.pop(key, None)


def _closing_connection(work: Callable[[], None]) -> Callable[[], None]:
    """`work` for a thread of our own that uses the database: its connection closed after."""

    def run() -> None:
        try:
            work()
        except Exception:
            logger.exception("Warm-up step failed (the first call will do it)")
        finally:
            connections.close_all()

    return run


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
