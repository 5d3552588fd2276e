"""Plan lookup: the plan the agent means, what needs the plan, and plans by name for pages.

The order every read tool follows (docs/conventions.md#refusals-and-failures): check what the arguments alone
show (ids, months, dates, windows, duplicates) with the `*_arg` helpers of `mcp_surface.arguments`,
which raise `Refusal` before anything is sent; then `await open_plan(plan_id)` (at most one
YNAB request once warm, none within the freshness window); then check what needs the plan
(`require_account`, `require_month`, ...).

- `open_movements(plan_id, month)`: the plan's money movements (not in the plan export: a
  request of their own) and a snapshot as current as they are.
- `open_plan(plan_id)`: the snapshot of the plan the agent means (an id, `last-used`, or
  omitted: the default plan), YNAB's refusals and pacing as one-line `YnabError`s (YNAB's
  answer in words; no plan to default to, or an id not among the key's plans, is a `Refusal`
  and sends no request for the plan);
  `plan_listing(max_age)`: the plans the token sees, reused for `max_age` seconds;
  `real_plan_id(plan_id)`: only its real id, for what reads the log rather than the plan.
- `today()`: the server's local date (`settings.TIME_ZONE`), the only clock tools read.
- Plan lookups: `require_account`, `require_category`, `require_month`, each refusing with
  the documented wording (`No account 'a1x' in this plan; list_accounts gives the valid ids.`).
- For the pages people read (the admin, the confirmation pages): `plan_names()` and
  `plan_label(plan_id, names)`, a plan's name instead of a 36-character id, from what this
  process already knows (the plan cache, the embedded sandbox's plans), without a request.

The plan id is checked here, once, where it enters (the agent's `plan_id`, or
`AVENIR_MCP_DEFAULT_PLAN`): the plan cache and the YNAB client take it as checked.
"""

from __future__ import annotations

import threading
import time
from datetime import date
from typing import TypeVar

from django.conf import settings
from django.utils import timezone

from avenir_mcp import ynab_client
from avenir_mcp.mcp_surface.arguments import ID_SOURCES, id_arg
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.cache import plan_cache
from avenir_mcp.ynab_client.client import ALIASES
from avenir_mcp.ynab_client.errors import short_detail
from avenir_mcp.ynab_client.snapshot import Account, Category

PLAN_LISTING_SECONDS = 300.0
"""How long the plan listing behind an omitted `plan_id` is reused (plans rarely come and go)."""

SEVERAL_PLANS = "Several plans: pass plan_id (list_plans gives them)."
NO_PLANS = "This YNAB token sees no plan: create one in YNAB, then call list_plans."

_Entity = TypeVar("_Entity")


def today() -> date:
    """The server's local date in `settings.TIME_ZONE`: "today" for every tool."""
    return timezone.localdate()


# --- the plan ------------------------------------------------------------------------------


async def open_plan(
    plan_id: str | None, *, fresh: bool = False, exclusive: bool = False
) -> ynab_client.PlanSnapshot:
    """The plan the agent means, current as of this call; YNAB's failures as `YnabError`, a plan
    YNAB does not know (404) as a `Refusal`.

    `plan_id` is checked against the id pattern before anything is sent. Omitted, it is
    `AVENIR_MCP_DEFAULT_PLAN`, else the plan `list_plans` marks as default (YNAB's default,
    or the token's only plan), read from a plan listing reused for a few minutes; with no
    such plan: `Several plans: pass plan_id (list_plans gives them).` `last-used` is
    resolved by the plan cache: the snapshot's `plan_id` is always the real id, and results
    carry it, with the snapshot's `as_of` (when its sync was sent; older inside the freshness
    window) next to it (`presenting.PlanResult`). An id that is not among the key's plans is
    refused without a request for it (`_require_listed`). Costs no YNAB request within the
    freshness window, else one once warm (the delta), the full export when cold and not stored
    (and the plan listing, shared for minutes, the first time this process meets the plan).
    Inside the write flow (`request_kind(WRITE)`) and with `fresh` (a write's preview) it always
    reads fresh; `exclusive` (a write inside its plan's lock, `oplog.plan_lock`) sends a request
    of its own, started now.
    """
    chosen = await _choose_plan_id(plan_id)
    await _require_listed(chosen)
    try:
        return await ynab_client.plan_snapshot(chosen, fresh=fresh, exclusive=exclusive)
    except ynab_client.YnabError as error:
        if error.status == 404:
            raise _unknown_plan_refusal(error, chosen) from error
        raise


async def open_movements(
    plan_id: str | None, month: date | None
) -> tuple[ynab_client.PlanSnapshot, ynab_client.MoneyMovements]:
    """The plan's money movements (`month`'s only when given) and a snapshot of the plan at
    least as current as they are, to name their categories; refusals as `open_plan`'s, and a
    month the plan does not have refused as `require_month` does, before the movements are asked.

    Movements are not in the plan export (`ynab_client.movements`): one request of their own,
    none within the freshness window. The plan is read only when this process holds none of
    it, or holds one older than the movements (their `server_knowledge` is higher): so a call
    costs one request once the plan is warm and unchanged, two when it changed since.
    """
    chosen = await _choose_plan_id(plan_id)
    await _require_listed(chosen)
    snapshot = ynab_client.held_plan(chosen)
    if snapshot is None or (month is not None and not _has_month(snapshot, month)):
        snapshot = await open_plan(chosen)
    if month is not None:
        require_month(snapshot, month)
    movements = await ynab_client.money_movements(snapshot.plan_id, month)
    if movements.server_knowledge > snapshot.server_knowledge:
        snapshot = await open_plan(snapshot.plan_id)
    return snapshot, movements


async def _require_listed(plan_id: str) -> None:
    """Refuse, without a request for it, a plan id that is not among the key's plans.

    A plan this process already holds needs no look-up (`last-used` neither: YNAB resolves it).
    Otherwise the plan listing decides (`plan_listing`, reused for minutes); an id it lacks
    may be a plan created since, so the listing is asked again, at most once per
    `PLAN_LISTING_SECONDS` for a YNAB and key, before refusing: unknown ids cost YNAB at most
    that one request, never one each (docs/ynab_budget.md).
    """
    if plan_id in ALIASES or plan_cache.holds(ynab_client.get_ynab_client(), plan_id):
        return
    listing, fetched = await _listing(PLAN_LISTING_SECONDS)
    if _listed(listing, plan_id):
        return
    if fetched:  # just asked: nothing newer to learn
        raise _not_listed(plan_id)
    client = ynab_client.get_ynab_client()
    key = (client.base_url, client.token_tag)
    now = time.monotonic()
    with _listings_lock:
        last = _relisted_at.get(key)
        relist = last is None or now - last >= PLAN_LISTING_SECONDS
        if relist:
            _relisted_at[key] = now
    if not (relist and _listed(await plan_listing(max_age=0), plan_id)):
        raise _not_listed(plan_id)


def _not_listed(plan_id: str) -> Refusal:
    return Refusal(f"No plan {quoted(plan_id, 40)} for this YNAB token; list_plans gives the valid ids.")


def _listed(listing: ynab_client.PlanList, plan_id: str) -> bool:
    return any(plan.id == plan_id for plan in listing.plans)


def _unknown_plan_refusal(error: ynab_client.YnabError, plan_id: str) -> Refusal:
    """YNAB does not know the plan (404): which ids to give instead, with YNAB's detail."""
    said = f" YNAB said: {short_detail(error.detail)}" if error.detail else ""
    shown = quoted(plan_id, 40)
    return Refusal(f"No plan {shown} for this YNAB token (404); list_plans gives the valid ids.{said}")


async def real_plan_id(plan_id: str | None) -> str:
    """The plan's real id (the operation log is kept by it), reading as little as possible.

    An id is checked and returned as given, and an omitted `plan_id` is the default plan's
    id (`open_plan`'s rule): neither reads the plan. Only an alias (`last-used`) is resolved
    by reading the plan, one delta request once warm. Refusals as `open_plan`'s.
    """
    chosen = await _choose_plan_id(plan_id)
    if chosen not in ALIASES:
        return chosen
    return (await open_plan(chosen)).plan_id


def default_plan_id(listing: ynab_client.PlanList) -> str | None:
    """The configured default plan, else YNAB's default plan, else the only plan there is.

    The rule behind an omitted `plan_id` and behind `list_plans`' `is_default`.
    """
    if settings.AVENIR_MCP_DEFAULT_PLAN:
        return settings.AVENIR_MCP_DEFAULT_PLAN
    if listing.default_plan_id is not None:
        return listing.default_plan_id
    return listing.plans[0].id if len(listing.plans) == 1 else None


async def _choose_plan_id(plan_id: str | None) -> str:
    """`plan_id` checked, or the default plan's id; an alias stays an alias."""
    if plan_id is not None:
        return id_arg(plan_id, what="plan")
    if settings.AVENIR_MCP_DEFAULT_PLAN:
        return id_arg(settings.AVENIR_MCP_DEFAULT_PLAN, what="plan")
    listing = await plan_listing()
    if not listing.plans:
        raise Refusal(NO_PLANS)
    chosen = default_plan_id(listing)
    if chosen is None:
        raise Refusal(SEVERAL_PLANS)
    return chosen


_listings: dict[tuple[str, str], tuple[float, ynab_client.PlanList]] = {}
_relisted_at: dict[tuple[str, str], float] = {}  # when an unknown plan id last had the listing asked again
_listings_lock = threading.Lock()


async def plan_listing(max_age: float = PLAN_LISTING_SECONDS) -> ynab_client.PlanList:
    """`GET /plans`, or the listing got less than `max_age` seconds ago (per YNAB and token).

    `list_plans` passes the freshness window (`AVENIR_MCP_FRESHNESS_SECONDS`); choosing the
    default plan reuses it for a few minutes. YNAB's failures as `YnabError`.
    """
    return (await _listing(max_age))[0]


async def _listing(max_age: float) -> tuple[ynab_client.PlanList, bool]:
    """`plan_listing`, and whether it was asked for just now (True) or reused (False)."""
    client = ynab_client.get_ynab_client()
    key = (client.base_url, client.token_tag)
    with _listings_lock:
        kept = _listings.get(key)
    if kept is not None and time.monotonic() - kept[0] < max_age:
        return kept[1], False
    listing = await ynab_client.list_plans(client=client)
    with _listings_lock:
        _listings[key] = (time.monotonic(), listing)
    return listing, True


def forget_plan_listing() -> None:
    """Drop the reused plan listings (the next omitted `plan_id` lists plans again)."""
    with _listings_lock:
        _listings.clear()
        _relisted_at.clear()


# --- what needs the plan ----------------------------------------------------------------------


def unknown(what: str, value: str) -> Refusal:
    """`No account 'a1x' in this plan; list_accounts gives the valid ids.`"""
    return not_in_plan(what, value, ID_SOURCES.get(what, "the list tools"))


def require_account(snapshot: ynab_client.PlanSnapshot, account_id: str) -> Account:
    """The account (closed ones included; deleted ones are not in the snapshot)."""
    return _require_found(snapshot.accounts.get(account_id), "account", account_id)


def require_category(snapshot: ynab_client.PlanSnapshot, category_id: str) -> Category:
    """The category (hidden and internal ones included; deleted ones are not in the snapshot)."""
    return _require_found(snapshot.categories.get(category_id), "category", category_id)


def _require_found(found: _Entity | None, what: str, value: str) -> _Entity:
    """`found`, or the refusal saying where valid ids of that kind come from."""
    if found is None:
        raise unknown(what, value)
    return found


def require_month(snapshot: ynab_client.PlanSnapshot, month: date) -> date:
    """`month` when the plan has it (from `first_month` to `last_month`), else a refusal
    giving the valid range."""
    if not _has_month(snapshot, month):
        span = f"{_month_text(snapshot.first_month)} to {_month_text(snapshot.last_month)}"
        raise Refusal(f"Month {month.isoformat()} is outside this plan: give a month from {span}.")
    return month


def _has_month(snapshot: ynab_client.PlanSnapshot, month: date) -> bool:
    first, last = snapshot.first_month, snapshot.last_month
    return (first is None or month >= first) and (last is None or month <= last)


def _month_text(month: date | None) -> str:
    return month.isoformat() if month is not None else "any month"
