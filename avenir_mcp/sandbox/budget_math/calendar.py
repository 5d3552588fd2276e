"""Plan months: YNAB names a month by its first day (`2026-09-01`)."""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from datetime import date


def month_of(day: date) -> date:
    """The plan month a date falls in."""
    return day.replace(day=1)


def add_months(month: date, count: int) -> date:
    """The first day of the month `count` months after (or before, if negative) `month`."""
    index = month.year * 12 + month.month - 1 + count
    return date(index // 12, index % 12 + 1, 1)


def months_between(first: date, last: date) -> Iterator[date]:
    """Every month from `first` through `last`, both included (first days)."""
    month = month_of(first)
    while month <= last:
        yield month
        month = add_months(month, 1)


def month_count(first: date, last: date) -> int:
    """How many months from `first` through `last`, both included; 0 when `last` is earlier."""
    return max(0, (last.year - first.year) * 12 + last.month - first.month + 1)


def last_day(month: date) -> date:
    """The last day of the month `month` is in."""
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


def add_years_clamped(day: date, years: int) -> date:
    """The same calendar day `years` later (29 February becomes 28 February)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)
