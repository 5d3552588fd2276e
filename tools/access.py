"""How a read tool gets at a plan and at the arguments the agent gave, with one-line refusals.

The order every read tool follows (TOOLS.md §1.3): check what the arguments alone show
(ids, months, dates, windows, duplicates) with the `*_arg` helpers, which raise
`ToolError` before anything is sent; then `await open_plan(plan_id)` (at most one YNAB
request once warm); then check what needs the plan (`require_account`, `require_month`, ...).

- `open_plan(plan_id)`: the snapshot of the plan the agent means (an id, `last-used`, or
  omitted: the default plan), YNAB's refusals and pacing as one-line `ToolError`s;
  `real_plan_id(plan_id)`: only its real id, for what reads the log rather than the plan.
- `today()`: the server's local date (`settings.TIME_ZONE`), the only clock tools read.
- Argument helpers: `month_arg`, `date_arg`, `window_args`, `amount_arg`, `check_ids`,
  `given_text`; `refusals()` turns the logic layer's errors into `ToolError`s.
- Plan lookups: `require_account`, `require_category`, `require_group`, `require_payee`,
  `require_month`, each refusing with the documented wording
  (`No account 'a1x' in this plan; list_accounts gives the valid ids.`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import TypeVar

from django.conf import settings
from django.utils import timezone
from mcp.server.mcpserver.exceptions import ToolError

from tools import ynab
from tools.logic.ids import IdError, check_id
from tools.logic.money import AmountError, parse_amount
from tools.logic.months import DateError, MonthError, check_window, parse_date, resolve_month
from tools.logic.text import TextError, clean_given_text, quoted
from tools.ynab.client import ALIASES
from tools.ynab.entities import Account, Category, CategoryGroup, Payee
from tools.ynab.errors import one_line

PLAN_LISTING_SECONDS = 300.0
"""How long the plan listing behind an omitted `plan_id` is reused (plans rarely come and go)."""

SEVERAL_PLANS = "Several plans: pass plan_id (list_plans gives them)."
NO_PLANS = "This YNAB token sees no plan: create one in YNAB, then call list_plans."

# Where the agent finds valid ids of each kind (named in refusals).
ID_SOURCES = {
    "plan": "list_plans",
    "account": "list_accounts",
    "category": "get_category_balances",
    "category group": "list_category_groups",
    "payee": "list_payees",
    "transaction": "find_transactions",
    "scheduled transaction": "list_scheduled_transactions",
}

_LOGIC_ERRORS = (IdError, MonthError, DateError, AmountError, TextError)
_Entity = TypeVar("_Entity")


@contextmanager
def refusals() -> Iterator[None]:
    """Inside it, the logic layer's argument errors become one-line `ToolError`s.

    They already say what to give instead; this only changes their kind, so the SDK
    reports them to the agent as a tool error (`isError`) rather than as a crash.
    """
    try:
        yield
    except _LOGIC_ERRORS as refusal:
        raise ToolError(str(refusal)) from None


def today() -> date:
    """The server's local date in `settings.TIME_ZONE`: "today" for every tool."""
    return timezone.localdate()


# --- the plan ------------------------------------------------------------------------------


async def open_plan(plan_id: str | None) -> ynab.PlanSnapshot:
    """The plan the agent means, current as of this call; refusals as `ToolError`.

    `plan_id` is checked against the id pattern before anything is sent. Omitted, it is
    `AVENIR_MCP_DEFAULT_PLAN`, else the plan `list_plans` marks as default (YNAB's default,
    or the token's only plan), read from a plan listing reused for a few minutes; with no
    such plan: `Several plans: pass plan_id (list_plans gives them).` `last-used` is
    resolved by the plan cache: the snapshot's `plan_id` is always the real id, and results
    should carry it. Costs one YNAB request once warm (the delta), the full export when cold.
    """
    chosen = await _chosen_plan_id(plan_id)
    try:
        return await ynab.plan_snapshot(chosen)
    except IdError as refusal:
        raise ToolError(str(refusal)) from None
    except ynab.YnabError as error:
        raise ToolError(_ynab_refusal(error, chosen)) from error


def _ynab_refusal(error: ynab.YnabError, plan_id: str) -> str:
    """YNAB's refusal in one line, keeping its status and detail (`message` quotes both)."""
    if error.status == 404:
        said = f" YNAB said: {one_line(error.detail)}" if error.detail else ""
        shown = quoted(plan_id, 40)
        return f"No plan {shown} for this YNAB token (404); list_plans gives the valid ids.{said}"
    return error.message


async def real_plan_id(plan_id: str | None) -> str:
    """The plan's real id (the operation log is kept by it), reading as little as possible.

    An id is checked and returned as given, and an omitted `plan_id` is the default plan's
    id (`open_plan`'s rule): neither reads the plan. Only an alias (`last-used`) is resolved
    by reading the plan, one delta request once warm. Refusals as `open_plan`'s.
    """
    chosen = await _chosen_plan_id(plan_id)
    if chosen not in ALIASES:
        return chosen
    return (await open_plan(chosen)).plan_id


def default_plan_id(listing: ynab.PlanList) -> str | None:
    """The configured default plan, else YNAB's default plan, else the only plan there is.

    The rule behind an omitted `plan_id` and behind `list_plans`' `is_default`.
    """
    if settings.AVENIR_MCP_DEFAULT_PLAN:
        return settings.AVENIR_MCP_DEFAULT_PLAN
    if listing.default_plan_id is not None:
        return listing.default_plan_id
    return listing.plans[0].id if len(listing.plans) == 1 else None


async def _chosen_plan_id(plan_id: str | None) -> str:
    """`plan_id` checked, or the default plan's id; an alias stays an alias."""
    if plan_id is not None:
        return id_arg(plan_id, what="plan")
    if settings.AVENIR_MCP_DEFAULT_PLAN:
        return id_arg(settings.AVENIR_MCP_DEFAULT_PLAN, what="plan")
    listing = await _plan_listing()
    if not listing.plans:
        raise ToolError(NO_PLANS)
    chosen = default_plan_id(listing)
    if chosen is None:
        raise ToolError(SEVERAL_PLANS)
    return chosen


_listings: dict[tuple[str, str], tuple[float, ynab.PlanList]] = {}
_listings_lock = threading.Lock()


async def _plan_listing() -> ynab.PlanList:
    """`GET /plans`, reused for `PLAN_LISTING_SECONDS` per YNAB and token."""
    client = ynab.get_ynab_client()
    key = (client.base_url, client.token_tag)
    with _listings_lock:
        kept = _listings.get(key)
    if kept is not None and time.monotonic() - kept[0] < PLAN_LISTING_SECONDS:
        return kept[1]
    try:
        listing = await ynab.list_plans(client=client)
    except ynab.YnabError as error:
        raise ToolError(error.message) from error
    with _listings_lock:
        _listings[key] = (time.monotonic(), listing)
    return listing


def forget_plan_listing() -> None:
    """Drop the reused plan listings (the next omitted `plan_id` lists plans again)."""
    with _listings_lock:
        _listings.clear()


# --- arguments, before any request -----------------------------------------------------------


def id_arg(value: str, *, what: str) -> str:
    """`value` when it fits the id pattern, else a refusal pointing to where ids come from."""
    with refusals():
        return check_id(value, what=what, source=ID_SOURCES.get(what))


def check_ids(
    values: Iterable[str] | None, *, what: str, merge_duplicates: bool = True
) -> tuple[str, ...] | None:
    """Ids the agent listed, each checked, in the order given; None stays None.

    Duplicates are merged (`account_ids`, `category_ids`: TOOLS.md §1.1) or, with
    `merge_duplicates=False`, refused: `Transaction 't9' is listed twice; give it once.`
    """
    if values is None:
        return None
    checked: dict[str, None] = {}
    for value in values:
        value = id_arg(value, what=what)
        if value in checked and not merge_duplicates:
            raise ToolError(f"{what.capitalize()} {quoted(value, 40)} is listed twice; give it once.")
        checked[value] = None
    return tuple(checked)


def month_arg(text: str, today: date) -> date:
    """The month `text` names (`current`, `next`, `YYYY-MM`, `YYYY-MM-01`) as its first day.

    Checks the form only; `require_month` checks it against the plan once it is read.
    """
    with refusals():
        return resolve_month(text, today)


def date_arg(text: str, *, field: str) -> date:
    """A strict `YYYY-MM-DD` date; the refusal names `field`."""
    with refusals():
        return parse_date(text, field=field)


def window_args(
    since_text: str | None,
    until_text: str | None,
    *,
    default_since: date | None = None,
    default_until: date | None = None,
) -> tuple[date, date]:
    """`since_date`…`until_date` (inclusive): parsed, defaulted, in order and ≤ 366 days.

    A missing end takes its default; with no default it is refused as required.
    """
    since = _date_or_default(since_text, "since_date", default_since)
    until = _date_or_default(until_text, "until_date", default_until)
    return check_window_dates(since, until)


def check_window_dates(since: date, until: date) -> tuple[date, date]:
    """`(since, until)` when in order and at most 366 days apart, else a one-line refusal."""
    with refusals():
        check_window(since, until)
    return since, until


def _date_or_default(text: str | None, field: str, default: date | None) -> date:
    if text is not None:
        return date_arg(text, field=field)
    if default is None:
        raise ToolError(f"{field} is required: give a date as YYYY-MM-DD.")
    return default


def days_after(day: date, days: int) -> date:
    """`day` plus `days` days (a window's default end, e.g. since + 30)."""
    return day + timedelta(days=days)


def amount_arg(value: str | int | float, *, field: str = "amount") -> int:
    """A decimal amount in currency units as milliunits (TOOLS.md §1.1), refusals one line.

    A JSON number arrives as an int or a float. A float is read from its shortest decimal
    text (`repr`), which for any amount within ±1,000,000,000 with ≤ 3 decimals is exactly
    the decimal the agent wrote (`-42.5` → `"-42.5"`): no float arithmetic is done on it.
    Exponents, NaN and infinities are refused.
    """
    if isinstance(value, float):
        text = repr(value)
        if not math.isfinite(value) or "e" in text or "E" in text:
            raise ToolError(f'{field} {quoted(value)} is not a plain decimal number: give it like "-42.50".')
        value = text
    with refusals():
        return parse_amount(value, field=field)


def given_text(value: str | None, *, field: str, max_length: int) -> str | None:
    """Text the agent gives (a search, a name), trimmed and checked; None stays None."""
    if value is None:
        return None
    with refusals():
        return clean_given_text(value, field=field, max_length=max_length)


# --- what needs the plan ----------------------------------------------------------------------


def unknown(what: str, value: str) -> ToolError:
    """`No account 'a1x' in this plan; list_accounts gives the valid ids.`"""
    source = ID_SOURCES.get(what, "the list tools")
    return ToolError(f"No {what} {quoted(value, 40)} in this plan; {source} gives the valid ids.")


def require_account(snapshot: ynab.PlanSnapshot, account_id: str) -> Account:
    """The account (closed ones included; deleted ones are not in the snapshot)."""
    return _known(snapshot.accounts.get(account_id), "account", account_id)


def require_category(snapshot: ynab.PlanSnapshot, category_id: str) -> Category:
    """The category (hidden and internal ones included; deleted ones are not in the snapshot)."""
    return _known(snapshot.categories.get(category_id), "category", category_id)


def require_group(snapshot: ynab.PlanSnapshot, group_id: str) -> CategoryGroup:
    return _known(snapshot.category_groups.get(group_id), "category group", group_id)


def require_payee(snapshot: ynab.PlanSnapshot, payee_id: str) -> Payee:
    return _known(snapshot.payees.get(payee_id), "payee", payee_id)


def _known(found: _Entity | None, what: str, value: str) -> _Entity:
    """`found`, or the refusal saying where valid ids of that kind come from."""
    if found is None:
        raise unknown(what, value)
    return found


def require_month(snapshot: ynab.PlanSnapshot, month: date) -> date:
    """`month` when the plan has it (from `first_month` to `last_month`), else a refusal
    giving the valid range."""
    first, last = snapshot.first_month, snapshot.last_month
    if (first is not None and month < first) or (last is not None and month > last):
        span = f"{_month_text(first)} to {_month_text(last)}"
        raise ToolError(f"Month {month.isoformat()} is outside this plan: give a month from {span}.")
    return month


def resolve_month_arg(snapshot: ynab.PlanSnapshot, text: str, today: date) -> date:
    """`month_arg` then `require_month`, for a tool that has its snapshot already.

    Prefer calling `month_arg` before `open_plan` (a bad form then costs no request) and
    `require_month` after; this is the two in one.
    """
    return require_month(snapshot, month_arg(text, today))


def _month_text(month: date | None) -> str:
    return month.isoformat() if month is not None else "any month"
