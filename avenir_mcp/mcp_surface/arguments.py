"""The arguments tools share: their types, with the descriptions the agent reads, and the
checks that turn what the agent gave into values before anything is sent.

Each type is an `Annotated` type to use in a tool's signature with the tool's own default:

    async def find_transactions(
        since_date: DateArg, plan_id: PlanIdArg = None, limit: LimitArg = 50, cursor: CursorArg = None
    ) -> ...

The schema checks types and ranges (`limit` 1-200, list lengths, text lengths); ids,
months, dates and amounts are plain strings there and are checked in the tool body by the
helpers below (`id_arg`, `check_ids`, `month_arg`, `date_arg`, `window_args`, `amount_arg`,
`given_text`), so a bad one gets a one-line `Refusal` that says what to give, rather than
a schema error (`mcp_surface.answers` turns it into the tool's error result).
What needs the plan itself (an account that must exist, a month it must have) is
`mcp_surface.plan_lookup`'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date
from typing import Annotated

from pydantic import Field, StrictFloat, StrictInt, StrictStr

from avenir_mcp.values.ids import check_id
from avenir_mcp.values.money import parse_amount
from avenir_mcp.values.months import check_window, days_later, parse_date, resolve_month
from avenir_mcp.values.paging import MAX_PAGE
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import clean_given_text, quoted

MAX_IDS = 200

PlanIdArg = Annotated[
    str | None,
    Field(
        description="The plan: an id from list_plans, or last-used (the plan last opened in YNAB). "
        "Omitted: the default plan (is_default in list_plans)."
    ),
]

MonthArg = Annotated[
    str,
    Field(
        description="A month: current, next, YYYY-MM or YYYY-MM-01 (e.g. 2026-09), in the server's "
        "time zone. Results give it as YYYY-MM-01.",
        max_length=40,
    ),
]

DateArg = Annotated[str, Field(description="A date, YYYY-MM-DD.", max_length=40)]

OptionalDateArg = Annotated[str | None, Field(description="A date, YYYY-MM-DD.", max_length=40)]

LimitArg = Annotated[int, Field(ge=1, le=MAX_PAGE, description=f"Items per page, 1-{MAX_PAGE}.")]

CursorArg = Annotated[
    str | None,
    Field(
        description="next_cursor from the previous page of the same call (same filters); "
        "omit for the first page.",
        max_length=500,
    ),
]

AccountIdsArg = Annotated[
    list[str] | None,
    Field(
        description=f"Only these accounts: ids from list_accounts, at most {MAX_IDS} "
        "(an id given twice counts once). Omitted: every account.",
        max_length=MAX_IDS,
    ),
]

CategoryIdsArg = Annotated[
    list[str] | None,
    Field(
        description=f"Only these categories: ids from get_category_balances, at most {MAX_IDS} "
        "(an id given twice counts once). Omitted: every category.",
        max_length=MAX_IDS,
    ),
]

# Strict, so `true` is refused by the schema instead of becoming an amount of 1. Use
# `Annotated[AmountValue | None, Field(description=...)]` for an optional amount.
AmountValue = StrictStr | StrictInt | StrictFloat
AmountArg = Annotated[
    AmountValue,
    Field(
        description='An amount in currency units (not milliunits), as a decimal string like "-42.50" '
        "or a number; at most 3 decimals. Money out is negative, money in positive.",
    ),
]


# --- checks, before any request ------------------------------------------------------------

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


def id_arg(value: str, *, what: str) -> str:
    """`value` when it fits the id pattern, else a refusal pointing to where ids come from."""
    return check_id(value, what=what, source=ID_SOURCES.get(what))


def check_ids(
    values: Iterable[str] | None, *, what: str, merge_duplicates: bool = True
) -> tuple[str, ...] | None:
    """Ids the agent listed, each checked, in the order given; None stays None.

    Duplicates are merged (`account_ids`, `category_ids`: docs/conventions.md#arguments) or, with
    `merge_duplicates=False`, refused: `Transaction 't9' is listed twice; give it once.`
    """
    if values is None:
        return None
    checked: dict[str, None] = {}
    for value in values:
        value = id_arg(value, what=what)
        if value in checked and not merge_duplicates:
            raise Refusal(f"{what.capitalize()} {quoted(value, 40)} is listed twice; give it once.")
        checked[value] = None
    return tuple(checked)


def month_arg(text: str, today: date) -> date:
    """The month `text` names (`current`, `next`, `YYYY-MM`, `YYYY-MM-01`) as its first day.

    Checks the form only; `require_month` checks it against the plan once it is read.
    """
    return resolve_month(text, today)


def date_arg(text: str, *, field: str) -> date:
    """A strict `YYYY-MM-DD` date; the refusal names `field`."""
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
    check_window(since, until)
    return since, until


def _date_or_default(text: str | None, field: str, default: date | None) -> date:
    if text is not None:
        return date_arg(text, field=field)
    if default is None:
        raise Refusal(f"{field} is required: give a date as YYYY-MM-DD.")
    return default


def days_after(day: date, days: int) -> date:
    """`day` plus `days` days (a window's default end, e.g. since + 30), held at 9999-12-31."""
    return days_later(day, days)


def amount_arg(value: str | int | float, *, field: str = "amount") -> int:
    """A decimal amount in currency units as milliunits (docs/conventions.md#arguments), refusals one line.

    A JSON number arrives as an int or a float. A float is read from its shortest decimal
    text (`repr`), which for any amount within ±1,000,000,000 with ≤ 3 decimals is exactly
    the decimal the agent wrote (`-42.5` → `"-42.5"`): no float arithmetic is done on it.
    Exponents, NaN and infinities are refused.
    """
    if isinstance(value, float):
        text = repr(value)
        if not math.isfinite(value) or "e" in text or "E" in text:
            raise Refusal(f'{field} {quoted(value)} is not a plain decimal number: give it like "-42.50".')
        value = text
    return parse_amount(value, field=field)


def given_text(value: str | None, *, field: str, max_length: int) -> str | None:
    """Text the agent gives (a search, a name), trimmed and checked; None stays None."""
    if value is None:
        return None
    return clean_given_text(value, field=field, max_length=max_length)
