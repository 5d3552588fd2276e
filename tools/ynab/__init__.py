"""The only code that talks to YNAB: client, plan cache, pacing, errors.

What tools use:

- `await plan_snapshot(plan_id)` → `PlanSnapshot` (its API: `tools.ynab.snapshot`): the
  plan, current as of the call, for one YNAB request when warm (none within the freshness
  window; the stored snapshot and a delta, or the full export, when cold). Inside
  `with request_kind(RequestKind.WRITE)` (the write flow, undo) it always syncs, and its
  requests may use the hour's reserve (`tools.ynab.pacing`). `plan_id` is an id from
  `list_plans`, or `last-used`; the snapshot carries the real id. Raises `IdError` (a
  malformed id, nothing sent) or `YnabError`.
- `await list_plans()` → `PlanList` (`plans`, `default_plan_id`): one request.
- `get_ynab_client()` → `YnabClient`: one method per endpoint, for writes and the reads the
  snapshot does not cover; a write is never resent (see `tools.ynab.client`).
- Errors: `YnabError` (`status`, `error_id`, `name`, `detail`, `retryable`, `message`),
  `PacingRefused` (nothing sent; `retry_at`), `UnknownOutcome` (a write sent, no answer).
- For health and the admin (synchronous): `plan_cache_state()`, `requests_last_hour()`,
  `ynab_status()`.
- A process's start and end: `warm_up()` loads the stored plans in the background,
  `store_changed_plans()` stores what changed since (see `tools.ynab.store`).
"""

from __future__ import annotations

from tools.ynab.cache import PlanCacheState, plan_cache
from tools.ynab.client import PlanList, YnabClient, get_ynab_client
from tools.ynab.errors import PacingRefused, UnknownOutcome, YnabError
from tools.ynab.pacing import RequestKind, request_kind
from tools.ynab.records import requests_last_hour as _requests_last_hour
from tools.ynab.snapshot import PlanSnapshot
from tools.ynab.status import YnabStatus, ynab_status

__all__ = [
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
    "list_plans",
    "plan_cache_state",
    "plan_snapshot",
    "request_kind",
    "requests_last_hour",
    "store_changed_plans",
    "warm_up",
    "ynab_status",
]


async def plan_snapshot(plan_id: str, *, client: YnabClient | None = None) -> PlanSnapshot:
    """The plan, current as of this call: one delta request when warm, a full load when cold."""
    return await plan_cache.snapshot(client or get_ynab_client(), plan_id)


async def list_plans(*, client: YnabClient | None = None) -> PlanList:
    """The plans the token can see (one request)."""
    return await (client or get_ynab_client()).get_plans()


def plan_cache_state() -> list[PlanCacheState]:
    """Per cached plan: id, name, server_knowledge, loaded_at, last_refresh_at, counts."""
    return plan_cache.states()


def requests_last_hour() -> int:
    """Requests sent to YNAB in the last hour with the configured token (counted from rows)."""
    return _requests_last_hour(get_ynab_client().token_tag)


def warm_up() -> list[str]:
    """Start loading, in the background, the plans stored for the configured YNAB and key."""
    return plan_cache.warm_up(get_ynab_client())


def store_changed_plans() -> None:
    """Store every cached plan changed since its last save (at shutdown; blocks)."""
    plan_cache.flush()
