"""Months and dates as the tools take them: strict text in, `date` out, the clock passed in.

A plan month is always the first day of a month (`2026-09-01`), as YNAB names it. The agent
may say `current`, `next`, `2026-09` or `2026-09-01`; nothing else, so a month is never
guessed. "Today" is always an argument: these functions never read a clock.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted

MAX_WINDOW_DAYS = 366

_MONTH = re.compile(r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})(?:-(?P<day>[0-9]{2}))?")
_DATE = re.compile(r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})")
_MONTH_FORMS = "current, next, YYYY-MM or YYYY-MM-01 (e.g. 2026-09)"


class DateError(Refusal):
    """A date or date window the tools do not accept; the message says what to give."""


def resolve_month(text: str, today: date) -> date:
    """The first day of the month `text` names: `current` and `next` count from `today`.

    Accepted exactly as written: `current`, `next`, `YYYY-MM`, `YYYY-MM-01`. Anything else
    (`2026-09-15`, `2026-13`, `sept`, ` 2026-09`, `previous`, `Current`) is a `Refusal`.
    """
    if text == "current":
        return month_start(today)
    if text == "next":
        return add_months(month_start(today), 1)
    shown = quoted(text)
    match = _MONTH.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise Refusal(f"Month {shown} is not understood: give {_MONTH_FORMS}.")
    year, month = int(match["year"]), int(match["month"])
    if year == 0 or not 1 <= month <= 12:
        raise Refusal(f"Month {shown} is not a calendar month: give {_MONTH_FORMS}.")
    if match["day"] not in (None, "01"):
        raise Refusal(f"Month {shown} is not the first of a month: give {year:04d}-{month:02d}.")
    return date(year, month, 1)


def month_start(d: date) -> date:
    """The first day of `d`'s month (a plain `date`, even when `d` is a `datetime`)."""
    return date(d.year, d.month, 1)


def month_end(month: date) -> date:
    """The last day of `month`'s month: 2026-02-01 → 2026-02-28."""
    return date(month.year, month.month, calendar.monthrange(month.year, month.month)[1])


def add_months(month: date, n: int) -> date:
    """The first day of the month `n` months after `month`'s (before it when `n` < 0)."""
    index = month.year * 12 + (month.month - 1) + n
    year, month_index = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise Refusal(f"{n:+d} months from {month_start(month).isoformat()} is beyond the calendar.")
    return date(year, month_index + 1, 1)


def add_months_within_calendar(month: date, n: int) -> date | None:
    """`add_months`, or None when the month falls outside years 1-9999 (a walk past the calendar ends)."""
    index = month.year * 12 + (month.month - 1) + n
    return add_months(month, n) if 12 <= index < 10000 * 12 else None


def days_later(day: date, days: int) -> date:
    """`day` plus `days` days, held at 9999-12-31 (or 0001-01-01): the calendar's ends, never an overflow."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def years_earlier(day: date, years: int) -> date:
    """The same calendar day `years` years before `day` (29 February → 28 February).

    For "today" (a server clock is never within `years` of year 1), e.g. the oldest date YNAB
    takes on a transaction: `years_earlier(today, 5)`.
    """
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def month_range(first: date, last: date) -> list[date]:
    """Every first-of-month from `first`'s month to `last`'s, inclusive; [] when `last` is before."""
    start, end = month_start(first), month_start(last)
    count = (end.year - start.year) * 12 + (end.month - start.month) + 1
    return [add_months(start, offset) for offset in range(max(count, 0))]


def parse_date(text: str, *, field: str = "Date") -> date:
    """A strict `YYYY-MM-DD` date; anything else (`2026-9-1`, `20260901`, `2026-02-30`) is a
    `DateError` whose message starts with `field`."""
    match = _DATE.fullmatch(text) if isinstance(text, str) else None
    shown = quoted(text)
    if match is None:
        raise DateError(f"{field} {shown} is not a date: give YYYY-MM-DD, e.g. 2026-09-15.")
    try:
        return date(int(match["year"]), int(match["month"]), int(match["day"]))
    except ValueError:
        raise DateError(
            f"{field} {shown} is not a calendar date: give YYYY-MM-DD, e.g. 2026-09-15."
        ) from None


def check_window(since: date, until: date, max_days: int = MAX_WINDOW_DAYS) -> None:
    """Refuse (`DateError`) a window `since`…`until` that is backwards or too long.

    Both ends are inclusive; `until` may be at most `max_days` days after `since`
    (2026-01-01…2027-01-02 is 366 days apart and accepted; one more day is refused).
    """
    if until < since:
        raise DateError(
            f"since_date {since.isoformat()} is after until_date {until.isoformat()}: "
            "give since_date on or before until_date."
        )
    if (until - since).days > max_days:
        latest = since + timedelta(days=max_days)
        raise DateError(
            f"{since.isoformat()} to {until.isoformat()} is {(until - since).days} days apart: "
            f"give at most {max_days}, e.g. until_date {latest.isoformat()} or a later since_date."
        )
