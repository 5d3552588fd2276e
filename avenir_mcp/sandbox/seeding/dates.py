"""Calendar helpers for seeding: clamped days, schedule occurrences.

Plan months themselves (`month_of`, `add_months`, `months_between`) are `sandbox.budget_math.calendar`'s.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

from avenir_mcp.sandbox.budget_math.calendar import add_months

# Month steps of YNAB's schedule frequencies that repeat by calendar month.
_MONTH_STEPS = {
    "monthly": 1,
    "everyOtherMonth": 2,
    "every3Months": 3,
    "every4Months": 4,
    "twiceAYear": 6,
    "yearly": 12,
    "everyOtherYear": 24,
}
_DAY_STEPS = {"daily": 1, "weekly": 7, "everyOtherWeek": 14, "every4Weeks": 28}


def days_in_month(month: date) -> int:
    return calendar.monthrange(month.year, month.month)[1]


def on_day(month: date, day: int) -> date:
    """`day` of `month`, clamped to the month's last day (the 31st in April is the 30th)."""
    return month.replace(day=min(day, days_in_month(month)))


def next_occurrence(first: date, frequency: str, after: date) -> date:
    """The first date of a schedule starting on `first` that falls strictly after `after`."""
    if frequency in _DAY_STEPS:
        step = _DAY_STEPS[frequency]
        if first > after:
            return first
        periods = (after - first).days // step + 1
        return first + timedelta(days=periods * step)
    step = _MONTH_STEPS[frequency]
    count = 0
    while (occurrence := on_day(add_months(first, count), first.day)) <= after:
        count += step
    return occurrence
