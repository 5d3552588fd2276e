"""The only code that talks to YNAB: client, plan cache, pacing, errors.

What tools use:

- `await plan_snapshot(plan_id)` → `PlanSnapshot` (its API: `ynab_client.snapshot`): the
  plan, current as of the call, for one YNAB request when warm (none within the freshness
  window; the stored snapshot and a delta, or the full export, when cold). Inside
  `with request_kind(RequestKind.WRITE)` (the write flow, undo) it always syncs, and its
  requests may use the hour's reserve (`ynab_client.pacing`); `exclusive=True` (a write inside
  its plan's lock, `oplog.plan_lock`) sends a request of its own, never sharing one that
  another call started earlier. Inside `spending_as(tag)` (the MCP layer, per caller) reads
  count against that caller's share of the hour. `plan_id` is an id from
  `list_plans`, or `last-used`, checked by the caller (`mcp_surface.plan_lookup`); the
  snapshot carries the real id, and its `as_of` the UTC time the sync it comes from was sent
  (older than the call inside the freshness window). Raises `YnabError`.
- `await list_plans()` → `PlanList` (`plans`, `default_plan_id`): one request.
- `await money_movements(plan_id, month=None)` → `MoneyMovements` (`movements`,
  `server_knowledge`, `as_of`; `ynab_client.movements`): assignments moved between
  categories, not in the plan export: one request, none within the freshness window.
  `plan_id` is a real id. `held_plan(plan_id)`: the snapshot this process has in memory,
  however old, with no request (None when none is loaded); `kept_plan(plan_id)`: that, else
  the plan store's copy restored from disk (the admin's pages, synchronous).
- `get_ynab_client()` → `YnabClient`: one method per endpoint, for writes and the reads the
  snapshot does not cover; a write is never resent (see `ynab_client.client`).
- Errors: `YnabError` (`status`, `error_id`, `name`, `detail`, `retryable`, `message`),
  `PacingRefused` (nothing sent; `retry_at`), `UnknownOutcome` (a write sent, no answer).
- For health and the admin (synchronous, no request sent to YNAB): `plan_cache_state()`,
  `ynab_status()` (the configured client's requests in the last hour, from the `YnabRequest`
  rows, its pacing, and the plans cached for its YNAB and token).
- A process's start and end: `warm_up()` lists the stored plans and loads the most recently
  used one in the background (any other loads when a call first needs it, so a plan stored
  but not used costs no memory), `store_changed_plans()` stores what changed since (see
  `ynab_client.cache` and `ynab_client.store`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings

from avenir_mcp.ynab_client import pacing
from avenir_mcp.ynab_client.cache import PlanCacheState, plan_cache
from avenir_mcp.ynab_client.client import PlanList, YnabClient, get_ynab_client, plan_names_seen
from avenir_mcp.ynab_client.errors import PacingRefused, UnknownOutcome, YnabError
from avenir_mcp.ynab_client.movements import MoneyMovement, MoneyMovements, movement_cache
from avenir_mcp.ynab_client.pacing import RequestKind, request_kind, reserve_of, spending_as
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

__all__ = [
    "MoneyMovement",
    "MoneyMovements",
    "PacingRefused",
    "PlanCacheState",
    "PlanList",
    "PlanSnapshot",
    "RequestKind",
    "UnknownOutcome",
    "YnabClient",
    "YnabError",
    "YnabStatus",
    "get_ynab_client",
    "held_plan",
    "kept_plan",
    "list_plans",
    "money_movements",
    "plan_cache_state",
    "plan_label",
    "plan_names",
    "plan_snapshot",
    "request_kind",
    "spending_as",
    "store_changed_plans",
    "warm_up",
    "ynab_status",
]


async def plan_snapshot(
    plan_id: str, *, client: YnabClient | None = None, fresh: bool = False, exclusive: bool = False
) -> PlanSnapshot:
    """The plan, current as of this call: one delta request when warm, a full load when cold.
    `fresh`: never from the freshness window; `exclusive`: a request of its own, sent now (a
    write reading inside its plan's lock)."""
    client = client or get_ynab_client()
    return await plan_cache.snapshot(client, plan_id, fresh=fresh, exclusive=exclusive)


async def list_plans(*, client: YnabClient | None = None) -> PlanList:
    """The plans the token can see (one request)."""
    return await (client or get_ynab_client()).get_plans()


async def money_movements(
    plan_id: str, month: date | None = None, *, client: YnabClient | None = None
) -> MoneyMovements:
    """The plan's money movements (`month`'s only when given), as YNAB lists them: one
    request, none within the freshness window (`ynab_client.movements`)."""
    return await movement_cache.movements(client or get_ynab_client(), plan_id, month)


def held_plan(plan_id: str, *, client: YnabClient | None = None) -> PlanSnapshot | None:
    """The plan's snapshot as this process holds it in memory, however old (no request)."""
    return plan_cache.held(client or get_ynab_client(), plan_id)


def kept_plan(plan_id: str) -> PlanSnapshot | None:
    """The plan's snapshot as this process holds it, else as the plan store keeps it on disk
    (restored into memory: right after a restart, before a tool call loads it); no request.
    Blocks while it restores: for synchronous code (the admin's pages), never an event loop."""
    return plan_cache.held_or_stored(get_ynab_client(), plan_id)


def plan_cache_state() -> list[PlanCacheState]:
    """Per cached plan: id, name, server_knowledge, loaded_at, last_refresh_at, counts."""
    return plan_cache.states()


def warm_up() -> list[str]:
    """List the plans stored for the configured YNAB and key and start loading, in the
    background, the most recently used one (the others load when first used)."""
    return plan_cache.warm_up(get_ynab_client())


def store_changed_plans() -> None:
    """Store every cached plan changed since its last save (at shutdown; blocks)."""
    plan_cache.flush()


@dataclass(frozen=True, slots=True)
class YnabStatus:
    """How the YNAB side stands, for `/api/health` and the admin."""

    base_url: str
    token: str  # "personal" (YNAB_API_KEY) or "sandbox"; never the token itself
    requests_last_hour: int
    limit: int | None  # None: not paced (a sandbox)
    read_limit: int | None  # where reads stop, keeping the rest of the hour for writes
    paused_until: datetime | None
    plans: list[PlanCacheState]


def ynab_status() -> YnabStatus:
    """The configured YNAB's budget and cache; call from synchronous code (it counts rows)."""
    client = get_ynab_client()
    plans = [
        state
        for state in plan_cache.states()
        if (state.base_url, state.token_tag) == (client.base_url, client.token_tag)
    ]
    limit = client.sender.pacer.limit
    return YnabStatus(
        base_url=client.base_url,
        token="personal" if settings.YNAB_API_KEY else "sandbox",
        requests_last_hour=pacing.request_log.requests_last_hour(client.token_tag),
        limit=limit,
        read_limit=None if limit is None else limit - reserve_of(limit),
        paused_until=client.sender.pacer.paused_until(),
        plans=sorted(plans, key=lambda state: (state.name.casefold(), state.plan_id)),
    )


SHORT_ID_LENGTH = 8


def plan_names() -> dict[str, str]:
    """Plan id → name for every plan this process has listed or cached (no YNAB request), for the
    pages people read."""
    names = plan_names_seen()
    names.update((state.plan_id, state.name) for state in plan_cache.states() if state.name)
    return names


def plan_label(plan_id: str, names: dict[str, str]) -> str:
    """The plan's name, else the start of its id (`de000000…`; the whole id stays in the page)."""
    if plan_id in names:
        return names[plan_id]
    return plan_id if len(plan_id) <= SHORT_ID_LENGTH else plan_id[:SHORT_ID_LENGTH] + "…"
