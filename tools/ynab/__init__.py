"""The only code that talks to YNAB: client, plan cache, pacing, errors.

What tools use:

- `await plan_snapshot(plan_id)` → `PlanSnapshot` (see `tools.ynab.snapshot` for its API):
  the plan, current as of the call, for one YNAB request when warm (the full export when
  cold). `plan_id` is an id from `list_plans`, or `last-used`; the snapshot carries the
  real id. Raises `IdError` (bad id, nothing sent) or `YnabError`.
- `await list_plans()` → `PlanList` (`plans`, `default_plan_id`): one request.
- `get_ynab_client()` → `YnabClient`: one method per endpoint, for writes and the reads the
  snapshot does not cover. Writes are never resent; see `tools.ynab.client`.
- Errors: `YnabError` (`status`, `error_id`, `name`, `detail`, `retryable`, `message`),
  `PacingRefused` (nothing sent; `retry_at`), `UnknownOutcome` (a write sent, no answer).
- For health and the admin: `plan_cache_state()`, `requests_last_hour()`, `pacing_state()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tools.ynab.cache import PlanCache, PlanCacheState
from tools.ynab.client import PlanList, YnabClient, get_ynab_client, token_tag
from tools.ynab.errors import PacingRefused, UnknownOutcome, YnabError
from tools.ynab.pacing import LIMIT, pacer_for
from tools.ynab.records import requests_last_hour as _requests_last_hour
from tools.ynab.snapshot import PlanSnapshot

__all__ = [
    "PacingRefused",
    "PacingState",
    "PlanCacheState",
    "PlanList",
    "PlanSnapshot",
    "UnknownOutcome",
    "YnabClient",
    "YnabError",
    "get_ynab_client",
    "list_plans",
    "pacing_state",
    "plan_cache",
    "plan_cache_state",
    "plan_snapshot",
    "requests_last_hour",
]

plan_cache = PlanCache()


async def plan_snapshot(plan_id: str, *, client: YnabClient | None = None) -> PlanSnapshot:
    """The plan, current as of this call: one delta request when warm, a full load when cold."""
    return await plan_cache.snapshot(client or get_ynab_client(), plan_id)


async def list_plans(*, client: YnabClient | None = None) -> PlanList:
    """The plans the token can see (one request)."""
    return await (client or get_ynab_client()).get_plans()


def plan_cache_state() -> list[PlanCacheState]:
    """Per cached plan: id, name, server_knowledge, loaded_at, last_refresh_at, counts."""
    return plan_cache.states()


def requests_last_hour(token: str | None = None) -> int:
    """Requests sent to YNAB in the last hour with `token` (default: the configured one).

    Counted from the `YnabRequest` rows (synchronous: for the admin and health views).
    """
    return _requests_last_hour(token_tag(token) if token else get_ynab_client().token_tag)


@dataclass(frozen=True, slots=True)
class PacingState:
    """The configured token's budget as this process sees it."""

    used: int
    limit: int
    paused_until: datetime | None


def pacing_state() -> PacingState:
    pacer = pacer_for(get_ynab_client().token_tag)
    return PacingState(used=pacer.used(), limit=LIMIT, paused_until=pacer.paused_until())
