"""The plan cache: each plan loaded once, then kept current by delta requests.

`PlanCache.snapshot(client, plan_id)`:
- within the freshness window: a read (`RequestKind.READ`, see `ynab_client.pacing`) less than
  `AVENIR_MCP_FRESHNESS_SECONDS` after the plan's last sync is answered from the cache with no
  request at all, unless the plan was written to since that sync began, by this process or,
  with a shared store, by any worker (`ynab_client.write_marks`: a write's answer does not
  carry the figures it changes, such as balances and Ready to Assign). A write, and every
  read inside `request_kind(WRITE)` (the write flow, undo), always syncs;
- cold: the plan's stored snapshot (`ynab_client.store`) when there is a usable one, then
  one delta; else `GET /plans/{id}` (the full export), built into a `PlanSnapshot`;
- warm: `GET /plans/{id}?last_knowledge_of_server=N` (with a shared store, one such request
  for the workers syncing the plan at once: `ynab_client.shared_sync`), merged into the cached snapshot
  (`apply_delta`, below); if YNAB's knowledge went backwards (a restored or re-created plan),
  the snapshot is dropped (one log line) and the plan loaded in full.
Concurrent calls for the same plan on one event loop share one in-flight refresh (single
flight), so twenty simultaneous tool calls cost one request; a write inside its plan's lock
asks for a refresh of its own (`exclusive`), started after the writes before it landed. A
snapshot older than what the writes reported (this process's, or any worker's with a shared
store) is refreshed once more, so a tool reads its writes.
Every snapshot the cache keeps is stamped with its `as_of`: the UTC time the request that
synced it was sent (`clock.wall_at` of the entry's `synced_at`, the moment the window counts
from), the conservative choice, since a change YNAB got while the request was on its way may
be missing. A read inside the window gets the snapshot as stamped then, so its result says how
old it is (docs/conventions.md#results). A snapshot restored from the store keeps the `as_of`
of the sync before it was stored, and no read gets it before one delta stamps it anew.
A sync that changed a plan hands it to the store (`store.Saver`: at once the first time,
then at most once a minute, and at shutdown).

Stored plans are loaded when first used: `warm_up`, when a process starts, lists the stored
plans of the configured YNAB and key (their headers only) and loads one in the background, the
most recently used (`store.stored_plans`: a call that reads or writes a plan marks it used, at
most once a minute); any other is loaded from the store by the first call that needs it (off
the event loop, beside the warm-up's load, never waiting for it), then one delta. So a process
holds in memory the plans it serves, plus at most that one: a person who works on one plan has
it ready at once whatever else is stored, and a plan stored but never used costs no memory and
no time at start (docs/architecture.md#talking-to-ynab).

`last-used` (and `default`) are aliases YNAB resolves. The first call loads
`GET /plans/last-used` and remembers the real id; later calls send
`GET /plans/last-used?last_knowledge_of_server=N` with that plan's N, and merge only when
the answer is that same plan. If YNAB now means another plan, the answer is discarded and
that plan is read by its own id (fully when it is not cached), so two plans never mix. A
snapshot always carries the real id.

Entries are keyed by (base URL, token tag, plan id): two YNABs or two tokens never share a
plan. The cache is per process and thread-safe; snapshots are immutable and shared. Plan
ids arrive checked (`mcp_surface.plan_lookup`); the id an alias turns out to mean is YNAB's, and
is checked here before it names anything.

Merging (`apply_delta`, bottom of this module): `apply_delta(None, full_export)` builds a
plan from its export; `apply_delta(snapshot, delta)` merges a delta (updates replace by id,
deletions drop, months merge per category). Indexes are updated from the entities that
changed only: a transaction leaves the index keys it had and enters the ones it has now
(its account, month, payee and categories, including its split lines'), so a refresh of
one change on a 50,000-transaction plan touches a few small tuples, not the plan. Split
lines follow their parent: they are dropped with it (whether or not YNAB reports them
deleted), and lines whose parent is not in the plan are ignored, so a chain of deltas and a
full export agree.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from bisect import bisect_left, insort
from collections.abc import Callable, Coroutine, Hashable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Protocol, TypedDict, TypeVar

import anyio
from django.conf import settings
from django.db import connections
from django.utils import timezone

from avenir_mcp.values.ids import is_valid_id
from avenir_mcp.ynab_client import clock, shared_sync, store
from avenir_mcp.ynab_client.client import ALIASES, YnabClient, prepare_transport
from avenir_mcp.ynab_client.errors import MalformedAnswer, YnabError
from avenir_mcp.ynab_client.pacing import RequestKind, current_kind
from avenir_mcp.ynab_client.snapshot import (
    EMPTY_MAP,
    Category,
    Changes,
    Json,
    Month,
    PersistentMap,
    PlanDelta,
    PlanSnapshot,
    Subtransaction,
    Transaction,
    category_order,
    id_order,
    parse_plan_delta,
    transaction_order,
)

logger = logging.getLogger(__name__)

CacheKey = tuple[str, str, str]  # (base URL, token tag, plan id or alias)
# Answers with more transactions than this are parsed and merged off the event loop.
_OFF_LOOP_ROWS = 2000


@dataclass(frozen=True, slots=True)
class CacheEntry:
    snapshot: PlanSnapshot
    loaded_at: datetime
    last_refresh_at: datetime
    # clock.monotonic() when the request that brought this snapshot was sent; None for a
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


# Loads stored plans off the event loop: two at once, so a call's plan does not wait for the
# warm-up's.
_loader = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="plan-store-load")
# The rest of a warm-up, and the marks of plans used, off the event loop, in order.
_restorer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="plan-store-warm-up")
# A plan is marked used in the store at most this often (seconds).
USE_MARK_SECONDS = 60.0


class PlanCache:
    def __init__(self) -> None:
        self._entries: dict[CacheKey, CacheEntry] = {}
        self._aliases: dict[CacheKey, str] = {}
        self._flights: dict[tuple[CacheKey, asyncio.AbstractEventLoop, bool], asyncio.Task] = {}
        self._restores: dict[CacheKey, concurrent.futures.Future] = {}
        self._stored: set[CacheKey] = set()  # stored plans of the keys warmed up, loaded or not
        self._marked_at: dict[CacheKey, float] = {}  # when each plan was last marked used
        self._lock = threading.Lock()
        self.saver = store.Saver()

    async def snapshot(
        self, client: YnabClient, plan_id: str, *, fresh: bool = False, exclusive: bool = False
    ) -> PlanSnapshot:
        """The plan, current as of this call (at most one request when warm, none inside the
        freshness window). `plan_id` is checked already (`mcp_surface.plan_lookup`). Raises `YnabError`.

        `fresh`: never from the freshness window, whatever the request kind (a write's preview).
        `exclusive`: a refresh of its own, started now, never one another call started earlier
        (which may have left before another process's write landed): a write reads so inside
        its plan's write lock (`oplog.plan_lock`)."""
        if exclusive:
            snapshot = await self._refresh(client, plan_id, exclusive=True)
        else:
            snapshot = await self._current(client, plan_id, fresh=fresh)
        self._mark_used(client, snapshot.plan_id)
        return snapshot

    async def _current(self, client: YnabClient, plan_id: str, *, fresh: bool) -> PlanSnapshot:
        key = (client.base_url, client.token_tag, plan_id)
        kept = None if fresh else self._within_window(client, key)
        if kept is not None:
            return kept
        snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        if snapshot.server_knowledge < client.written_knowledge(snapshot.plan_id):
            # Joined a refresh that started before this process's last write landed.
            snapshot = await self._single_flight(key, lambda: self._refresh(client, plan_id))
        return snapshot

    def held(self, client: YnabClient, plan_id: str) -> PlanSnapshot | None:
        """The snapshot of the plan this process has in memory (`last-used` as last resolved),
        however old, with no request; None when it has none loaded. For a read that checks
        the snapshot's server_knowledge against an answer of its own (money movements)."""
        with self._lock:
            real_id = self._aliases.get((client.base_url, client.token_tag, plan_id), plan_id)
            entry = self._entries.get((client.base_url, client.token_tag, real_id))
        return entry.snapshot if entry is not None else None

    def held_or_stored(self, client: YnabClient, plan_id: str) -> PlanSnapshot | None:
        """`held`, or when this process has not loaded the plan but it is among the key's stored
        plans (`warm_up`), its stored snapshot, restored into the cache (no request; the call
        waits for the restore, off no event loop: a page's code). None when neither."""
        snapshot = self.held(client, plan_id)
        key = (client.base_url, client.token_tag, plan_id)
        with self._lock:
            stored = key in self._stored
        if snapshot is not None or not stored:
            return snapshot
        self._start_restore(key).result()
        return self.held(client, plan_id)

    def holds(self, client: YnabClient, plan_id: str) -> bool:
        """True when this process has the plan for this client's YNAB and key, loaded or stored
        (loaded or not yet): it was in the key's plans (no listing needed to know it exists)."""
        key = (client.base_url, client.token_tag, plan_id)
        with self._lock:
            return key in self._entries or key in self._restores or key in self._stored

    def warm_up(self, client: YnabClient) -> list[str]:
        """List the plans stored for this client's YNAB and key, and start loading the most
        recently used one in the background (the others load when first used).

        Returns their ids, the most recently used first; a call for the one loading meanwhile
        waits for its load, a call for another loads it (no export either way).
        """
        stored = store.stored_plans(client.base_url, client.token_tag)
        # What a process's first request would otherwise do on its way: load the CA bundle
        # and the transport, read the last hour's requests for the pacer.
        _restorer.submit(prepare_transport)
        _restorer.submit(_closing_connection(client.sender.seed_pacer_now))
        with self._lock:
            for plan in stored:
                self._stored.add((client.base_url, client.token_tag, plan.plan_id))
                for alias in plan.aliases:  # most recent first: the latest word on what it meant
                    self._aliases.setdefault((client.base_url, client.token_tag, alias), plan.plan_id)
        if stored:
            self._start_restore((client.base_url, client.token_tag, stored[0].plan_id))
        return [plan.plan_id for plan in stored]

    def _mark_used(self, client: YnabClient, plan_id: str) -> None:
        """Tell the store a call used the plan (at most once a `USE_MARK_SECONDS`), off the loop."""
        key = (client.base_url, client.token_tag, plan_id)
        now = clock.monotonic()
        with self._lock:
            marked_at = self._marked_at.get(key)
            if marked_at is not None and now - marked_at < USE_MARK_SECONDS:
                return
            self._marked_at[key] = now
        _restorer.submit(store.mark_used, client.base_url, plan_id)

    def _within_window(self, client: YnabClient, key: CacheKey) -> PlanSnapshot | None:
        """The cached snapshot when a read may have it without asking YNAB (module docstring)."""
        window = settings.AVENIR_MCP_FRESHNESS_SECONDS
        if window <= 0 or current_kind() is not RequestKind.READ:
            return None
        with self._lock:
            real_id = self._aliases.get(key, key[2])
            entry = self._entries.get((key[0], key[1], real_id))
        if entry is None or entry.synced_at is None or clock.monotonic() - entry.synced_at >= window:
            return None
        written = client.last_write(real_id)
        if written is not None and (
            written.ended_at >= entry.synced_at or written.knowledge > entry.snapshot.server_knowledge
        ):
            return None  # written to since (here, or on another worker): sync once to show it
        return entry.snapshot

    def states(self) -> list[PlanCacheState]:
        with self._lock:
            entries = list(self._entries.items())
        return [_state(key, entry) for key, entry in entries]

    async def _single_flight(
        self, key: CacheKey, refresh: Callable[[], Coroutine[Any, Any, PlanSnapshot]]
    ) -> PlanSnapshot:
        loop = asyncio.get_running_loop()
        # A write's read does not join a read's: the pacer may refuse reads, never it for them.
        flight_key = (key, loop, current_kind() is RequestKind.READ)
        with self._lock:
            task = self._flights.get(flight_key)
            if task is None:
                task = self._flights[flight_key] = loop.create_task(refresh())
                task.add_done_callback(lambda done: self._flight_done(flight_key, done))
        # Shielded: a caller that gives up does not cancel the refresh others wait for.
        return await asyncio.shield(task)

    def _flight_done(
        self, flight_key: tuple[CacheKey, asyncio.AbstractEventLoop, bool], task: asyncio.Task
    ) -> None:
        with self._lock:
            del self._flights[flight_key]  # still this task's: a key gets a new task only once it is gone
        if not task.cancelled():
            task.exception()  # retrieved here, so an error nobody awaited is not logged as lost

    async def _refresh(self, client: YnabClient, plan_id: str, *, exclusive: bool = False) -> PlanSnapshot:
        if plan_id in ALIASES:
            return await self._refresh_alias(client, plan_id, exclusive=exclusive)
        return await self._refresh_plan(client, plan_id, exclusive=exclusive)

    async def _refresh_plan(self, client: YnabClient, plan_id: str, *, exclusive: bool) -> PlanSnapshot:
        key = (client.base_url, client.token_tag, plan_id)
        entry = self._entry(key) or await self._stored_entry(key)
        if entry is None:
            return await self._load(client, plan_id)
        try:
            data, started = await shared_sync.delta(
                client, plan_id, entry.snapshot.server_knowledge, exclusive=exclusive
            )
        except YnabError as error:
            if error.status == 404:  # the plan is gone: forget it
                self._drop(key)
            raise
        return await self._merge_answer(client, entry, data, started)

    async def _stored_entry(self, key: CacheKey) -> CacheEntry | None:
        """The plan's stored snapshot, restored into the cache (loaded off the event loop once)."""
        await asyncio.wrap_future(self._start_restore(key))
        return self._entry(key)

    def _start_restore(self, key: CacheKey) -> concurrent.futures.Future:
        with self._lock:
            future = self._restores.get(key)
            if future is None:
                future = self._restores[key] = _loader.submit(self._load_from_store, key)
            return future

    def _load_from_store(self, key: CacheKey) -> None:
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

    async def _refresh_alias(self, client: YnabClient, alias: str, *, exclusive: bool) -> PlanSnapshot:
        alias_key = (client.base_url, client.token_tag, alias)
        real_id = self._aliases.get(alias_key)
        entry = None
        if real_id is not None:
            real_key = (client.base_url, client.token_tag, real_id)
            entry = self._entry(real_key) or await self._stored_entry(real_key)
        if entry is None:
            return await self._load(client, alias, alias_key=alias_key)
        started = clock.monotonic()
        data = await client.get_plan(alias, entry.snapshot.server_knowledge)
        answered_id = _plan_id_of(data)
        if answered_id == real_id:
            return await self._merge_answer(client, entry, data, started)
        # YNAB's last-used plan changed: this answer is a delta against another plan's
        # knowledge, meaningless here. Drop it and read that plan by its own id.
        with self._lock:
            self._aliases[alias_key] = answered_id
        return await self._refresh_plan(client, answered_id, exclusive=exclusive)

    async def _load(
        self, client: YnabClient, plan_id: str, *, alias_key: CacheKey | None = None
    ) -> PlanSnapshot:
        started = clock.monotonic()
        snapshot = await _snapshot_from_answer(None, await client.get_plan(plan_id))
        if alias_key is not None:
            with self._lock:
                self._aliases[alias_key] = snapshot.plan_id
        return self._keep(client, snapshot, started, full=True)

    async def _merge_answer(
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
        snapshot = await _snapshot_from_answer(entry.snapshot, data)
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
            snapshot = replace(snapshot, as_of=clock.wall_at(synced_at))
            self._entries[key] = CacheEntry(snapshot, loaded_at, now, synced_at)
            changed = (
                full or current is None or current.snapshot.server_knowledge != snapshot.server_knowledge
            )
            aliases = [alias for (*at, alias), real_id in self._aliases.items() if (*at, real_id) == key]
        if changed:
            self.saver.plan_changed(client.base_url, client.token_tag, snapshot, aliases)
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


async def _snapshot_from_answer(base: PlanSnapshot | None, data: Json) -> PlanSnapshot:
    """`data` (a plan answer) parsed and merged; big answers off the event loop."""
    if len(_rows(data)) > _OFF_LOOP_ROWS:
        return await anyio.to_thread.run_sync(_apply_answer, base, data)
    return _apply_answer(base, data)


def _apply_answer(base: PlanSnapshot | None, data: Json) -> PlanSnapshot:
    """`data` parsed and merged into `base`; the plan id YNAB gives is checked before it names
    anything (a cache key, a stored file, a write's URL)."""
    delta = parse_plan_delta(data)
    if not is_valid_id(delta.plan_id):
        raise MalformedAnswer(
            "YNAB's answer for the plan named a plan id this service cannot use; nothing was merged.",
            status=200,
        )
    if base is not None and delta.plan_id != base.plan_id:
        raise YnabError(
            f"YNAB answered with plan {delta.plan_id} for plan {base.plan_id}; nothing was merged."
        )
    return apply_delta(base, delta)


def _rows(data: Json) -> list:
    plan = data.get("plan")
    return plan.get("transactions") or [] if isinstance(plan, dict) else []


def _plan_id_of(data: Json) -> str:
    """The plan an answer is about: YNAB's id, checked here before it names anything."""
    try:
        plan_id = str(data["plan"]["id"])
    except (KeyError, TypeError) as exc:
        raise MalformedAnswer(
            "YNAB's answer for the plan did not say which plan it is; nothing was merged.", status=200
        ) from exc
    if not is_valid_id(plan_id):
        raise MalformedAnswer(
            "YNAB's answer for the plan named a plan id this service cannot use; nothing was merged.",
            status=200,
        )
    return plan_id


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


plan_cache = PlanCache()  # the process's cache, used by `ynab_client.plan_snapshot`


# --- Merging a delta into a snapshot ---------------------------------------------------------


def apply_delta(snapshot: PlanSnapshot | None, delta: PlanDelta) -> PlanSnapshot:
    """`snapshot` (None: an empty plan) with everything `delta` says applied."""
    base = snapshot or PlanSnapshot(plan_id=delta.plan_id)  # same plan: checked by `_apply_answer`
    merged = replace(
        base,
        name=delta.name,
        server_knowledge=delta.server_knowledge,
        last_modified_on=delta.last_modified_on,
        first_month=delta.first_month,
        last_month=delta.last_month,
        settings=delta.settings,
        accounts=with_changes(base.accounts, delta.accounts),
        category_groups=with_changes(base.category_groups, delta.category_groups),
        payees=with_changes(base.payees, delta.payees),
        payee_locations=with_changes(base.payee_locations, delta.payee_locations),
    )
    if delta.is_empty():
        return merged
    merged = _merge_categories(merged, delta)
    merged = _merge_months(merged, delta)
    merged = merge_transactions(merged, delta)
    return _merge_schedules(merged, delta)


def _merge_categories(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    changes = delta.categories
    if not (changes.upserts or changes.deleted_ids):
        return base
    categories = with_changes(base.categories, changes)
    touched = [entity.id for entity in changes.upserts] + list(changes.deleted_ids)
    leaving = [(old.category_group_id, old) for old in present(base.categories, touched)]
    entering = [(new.category_group_id, new) for new in present(categories, touched)]
    by_group = update_index(base.categories_by_group, leaving, entering, category_order)
    return replace(base, categories=categories, categories_by_group=by_group)


def _merge_months(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    if not delta.months:
        return base
    totals: dict[date, Month] = {}
    gone: list[date] = []
    figures: dict[date, PersistentMap[str, Category]] = {}
    for change in delta.months:
        if change.totals is None:
            gone.append(change.month)
            continue
        totals[change.month] = change.totals
        previous = figures.get(change.month) or base.month_figures.get(change.month, EMPTY_MAP)
        figures[change.month] = with_changes(previous, change.categories)
    return replace(
        base,
        months=base.months.evolve(totals, gone),
        month_figures=base.month_figures.evolve(figures, gone),
    )


def _merge_schedules(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    parents, lines = delta.scheduled_transactions, delta.scheduled_subtransactions
    if not (parents.upserts or parents.deleted_ids or lines.upserts or lines.deleted_ids):
        return base
    scheduled = with_changes(base.scheduled_transactions, parents)
    dropped = list(lines.deleted_ids)
    for sid in parents.deleted_ids:
        dropped.extend(line.id for line in base.scheduled_subtransactions_of(sid))
    kept = [line for line in lines.upserts if line.scheduled_transaction_id in scheduled]
    sub_map = base.scheduled_subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [
        (old.scheduled_transaction_id, old) for old in present(base.scheduled_subtransactions, touched)
    ]
    entering = [(new.scheduled_transaction_id, new) for new in present(sub_map, touched)]
    return replace(
        base,
        scheduled_transactions=scheduled,
        scheduled_subtransactions=sub_map,
        scheduled_subtransactions_by_scheduled=update_index(
            base.scheduled_subtransactions_by_scheduled, leaving, entering, id_order
        ),
    )


# --- Transactions and their split lines: the four transaction indexes ------------------------
#
# A transaction is indexed under its account, its month (first day), its payees and its
# categories, each including its split lines' (`PlanSnapshot.transactions_in_category`...).
# After a delta, each affected transaction (changed itself, or one of its lines changed)
# leaves the keys it had and enters the ones it has now: a refresh touches a few tuples.
# A cold load instead sorts every transaction once and fills the indexes in that order.

Lines = tuple[Subtransaction, ...]
Transactions = tuple[Transaction, ...]
# One affected transaction: (before, its lines before, after, its lines after); None = absent.
Move = tuple[Transaction | None, Lines, Transaction | None, Lines]


class TransactionIndexes(TypedDict):
    """The four transaction indexes of a `PlanSnapshot`, as `replace` takes them."""

    transactions_by_account: PersistentMap[str, Transactions]
    transactions_by_category: PersistentMap[str, Transactions]
    transactions_by_payee: PersistentMap[str, Transactions]
    transactions_by_month: PersistentMap[date, Transactions]


def merge_transactions(base: PlanSnapshot, delta: PlanDelta) -> PlanSnapshot:
    """`base` with the delta's transactions and split lines merged, indexes updated."""
    txn_changes, sub_changes = delta.transactions, delta.subtransactions
    if not (txn_changes.upserts or txn_changes.deleted_ids or sub_changes.upserts or sub_changes.deleted_ids):
        return base
    transactions = with_changes(base.transactions, txn_changes)
    subs, subs_by_txn, affected = _merge_lines(base, transactions, txn_changes, sub_changes)
    indexes: TransactionIndexes
    if base.transactions:
        indexes = _reindex_all(base, transactions, subs_by_txn, affected)
    else:
        indexes = _build_indexes(transactions, subs_by_txn)
    return replace(
        base,
        transactions=transactions,
        subtransactions=subs,
        subtransactions_by_transaction=subs_by_txn,
        **indexes,
    )


def _merge_lines(
    base: PlanSnapshot,
    transactions: PersistentMap[str, Transaction],
    txn_changes: Changes[Transaction],
    sub_changes: Changes[Subtransaction],
) -> tuple[PersistentMap[str, Subtransaction], PersistentMap[str, Lines], set[str]]:
    """Lines after the merge, their index by parent, and every parent whose lines or self changed."""
    dropped = list(sub_changes.deleted_ids)
    for tid in txn_changes.deleted_ids:  # a deleted parent takes its lines with it
        dropped.extend(line.id for line in base.subtransactions_of(tid))
    kept = [line for line in sub_changes.upserts if line.transaction_id in transactions]
    subs = base.subtransactions.evolve({line.id: line for line in kept}, dropped)
    touched = dropped + [line.id for line in kept]
    leaving = [(old.transaction_id, old) for old in present(base.subtransactions, touched)]
    entering = [(new.transaction_id, new) for new in present(subs, touched)]
    subs_by_txn = update_index(base.subtransactions_by_transaction, leaving, entering, id_order)
    affected = {entity.id for entity in txn_changes.upserts} | set(txn_changes.deleted_ids)
    affected.update(line.transaction_id for _, line in leaving)
    affected.update(line.transaction_id for _, line in entering)
    return subs, subs_by_txn, affected


def _account_keys(transaction: Transaction, lines: Lines) -> set[str]:
    return {transaction.account_id}


@lru_cache(maxsize=4096)
def _first_of_month(day: date) -> date:
    return day.replace(day=1)


def _month_keys(transaction: Transaction, lines: Lines) -> set[date]:
    return {_first_of_month(transaction.date)}


def _category_keys(transaction: Transaction, lines: Lines) -> set[str]:
    keys = {line.category_id for line in lines if line.category_id}
    if transaction.category_id:
        keys.add(transaction.category_id)
    return keys


def _payee_keys(transaction: Transaction, lines: Lines) -> set[str]:
    keys = {line.payee_id for line in lines if line.payee_id}
    if transaction.payee_id:
        keys.add(transaction.payee_id)
    return keys


def _reindex_all(
    base: PlanSnapshot,
    transactions: PersistentMap[str, Transaction],
    subs_by_txn: PersistentMap[str, Lines],
    affected: set[str],
) -> TransactionIndexes:
    moves: list[Move] = [
        (
            base.transactions.get(tid),
            base.subtransactions_of(tid),
            transactions.get(tid),
            subs_by_txn.get(tid, ()),
        )
        for tid in affected
    ]
    return TransactionIndexes(
        transactions_by_account=_reindex(base.transactions_by_account, moves, _account_keys),
        transactions_by_category=_reindex(base.transactions_by_category, moves, _category_keys),
        transactions_by_payee=_reindex(base.transactions_by_payee, moves, _payee_keys),
        transactions_by_month=_reindex(base.transactions_by_month, moves, _month_keys),
    )


def _reindex(
    index: PersistentMap[K, Transactions], moves: list[Move], keys_of: Callable[[Transaction, Lines], set[K]]
) -> PersistentMap[K, Transactions]:
    """`index` after each affected transaction left its old keys and entered its new ones."""
    leaving: list[tuple[K, Transaction]] = []
    entering: list[tuple[K, Transaction]] = []
    for old, old_lines, new, new_lines in moves:
        old_keys = keys_of(old, old_lines) if old else set()
        new_keys = keys_of(new, new_lines) if new else set()
        if old is new and old_keys == new_keys:
            continue
        if old:
            leaving.extend((key, old) for key in old_keys)
        if new:
            entering.extend((key, new) for key in new_keys)
    return update_index(index, leaving, entering, transaction_order)


def _build_indexes(
    transactions: PersistentMap[str, Transaction], subs_by_txn: PersistentMap[str, Lines]
) -> TransactionIndexes:
    """The four indexes from scratch: one sort, then each key's entries appended in order."""
    by_account: dict[str, list[Transaction]] = {}
    by_category: dict[str, list[Transaction]] = {}
    by_payee: dict[str, list[Transaction]] = {}
    by_month: dict[date, list[Transaction]] = {}
    for transaction in sorted(transactions.values(), key=transaction_order):
        lines = subs_by_txn.get(transaction.id, ())
        _file_under(by_account, _account_keys(transaction, lines), transaction)
        _file_under(by_category, _category_keys(transaction, lines), transaction)
        _file_under(by_payee, _payee_keys(transaction, lines), transaction)
        _file_under(by_month, _month_keys(transaction, lines), transaction)
    return TransactionIndexes(
        transactions_by_account=_frozen_index(by_account),
        transactions_by_category=_frozen_index(by_category),
        transactions_by_payee=_frozen_index(by_payee),
        transactions_by_month=_frozen_index(by_month),
    )


def _file_under(grouped: dict[K, list[Transaction]], keys: set[K], transaction: Transaction) -> None:
    for key in keys:
        grouped.setdefault(key, []).append(transaction)


def _frozen_index(grouped: dict[K, list[Transaction]]) -> PersistentMap[K, Transactions]:
    return PersistentMap({key: tuple(entries) for key, entries in grouped.items()})


# --- Ordered one-to-many indexes, updated copy-on-write ----------------------------------------
#
# An index is a `PersistentMap` from a key (an account id, a month…) to a tuple of entities
# kept sorted by an order function. `update_index` takes the entities leaving and entering
# each key and rewrites only those keys' tuples: a few bisections when a key changes a
# little (a refresh), one sort when it changes a lot (a cold load). Entities are matched by
# their `id`, so an updated entity replaces its old self.


class HasId(Protocol):
    @property
    def id(self) -> str: ...


K = TypeVar("K", bound=Hashable)
T = TypeVar("T", bound=HasId)
Order = Callable[[Any], Any]

# Past this share of a tuple changing, one rebuild beats many bisections.
_FEW_CHANGES = 16


def update_index(
    index: PersistentMap[K, tuple[T, ...]],
    leaving: Iterable[tuple[K, T]],
    entering: Iterable[tuple[K, T]],
    order: Order,
) -> PersistentMap[K, tuple[T, ...]]:
    """`index` with each (key, old entity) removed and each (key, new entity) added.

    Keys left empty disappear. An entity must appear at most once per key on each side.
    """
    grouped: dict[K, tuple[list[T], list[T]]] = {}
    for key, entity in leaving:
        grouped.setdefault(key, ([], []))[0].append(entity)
    for key, entity in entering:
        grouped.setdefault(key, ([], []))[1].append(entity)
    updates: dict[K, tuple[T, ...]] = {}
    emptied: list[K] = []
    for key, (gone, added) in grouped.items():
        entries = _rewrite_entries(index.get(key, ()), gone, added, order)
        if entries:
            updates[key] = entries
        else:
            emptied.append(key)
    return index.evolve(updates, emptied)


def _rewrite_entries(entries: tuple[T, ...], gone: list[T], added: list[T], order: Order) -> tuple[T, ...]:
    if len(gone) + len(added) > max(_FEW_CHANGES, len(entries) // 8):
        gone_ids = {entity.id for entity in gone}
        kept = [entity for entity in entries if entity.id not in gone_ids]
        return tuple(sorted(kept + added, key=order))
    working = list(entries)
    for entity in gone:
        _remove(working, entity, order)
    for entity in added:
        insort(working, entity, key=order)
    return tuple(working)


def _remove(working: list[T], entity: T, order: Order) -> None:
    """Remove the entry with `entity`'s id, found by bisection on its (old) order key: the index
    holds the very entity that leaves (its old version), and every order ends with the id."""
    at = bisect_left(working, order(entity), key=order)
    assert working[at].id == entity.id, f"{entity.id} is not where its order puts it in the index"
    del working[at]


def with_changes(entities: PersistentMap[str, T], changes: Changes[T]) -> PersistentMap[str, T]:
    """`entities` (by id) with a delta's upserts set and its deletions dropped."""
    return entities.evolve({entity.id: entity for entity in changes.upserts}, changes.deleted_ids)


def present(entities: PersistentMap[str, T], ids: Iterable[str]) -> Iterator[T]:
    """The entities among `ids` that `entities` holds, each once."""
    for entity_id in dict.fromkeys(ids):
        entity = entities.get(entity_id)
        if entity is not None:
            yield entity
