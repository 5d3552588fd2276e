"""Scheduled transactions expanded into the dates they fall on, and what they add up to.

YNAB gives each schedule its `date_first`, its `date_next` and one of 13 frequencies.
Occurrences start at `date_next` (what YNAB says comes next) and repeat at the frequency:

- `never`: once, on `date_next`.
- `daily`, `weekly`, `everyOtherWeek`, `every4Weeks`: every 1, 7, 14, 28 days.
- `monthly`, `everyOtherMonth`, `every3Months`, `every4Months`, `twiceAYear`, `yearly`,
  `everyOtherYear`: every 1, 2, 3, 4, 6, 12, 24 months on the schedule's day, clamped to
  the month's end (a schedule on the 31st falls on 30 April and 28 February, and on the
  31st again in May). The day is `date_first`'s, unless `date_next` shows it was moved.
- `twiceAMonth`: two dates a month, the schedule's day and 15 days later, so a schedule on
  the 1st falls on the 1st and 16th, one on the 15th on the 15th and 30th (28th in
  February); from a day after the 15th the pair is the day and 15 days earlier (the 20th:
  the 5th and 20th). Each is clamped to the month's end like the monthly kinds.

A frequency YNAB adds later is taken as `never` (shown once, never guessed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from avenir_mcp.values.months import add_months_within_calendar, month_end, month_start
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, ScheduledTransaction

DAY_STEPS = {"daily": 1, "weekly": 7, "everyOtherWeek": 14, "every4Weeks": 28}
MONTH_STEPS = {
    "monthly": 1,
    "everyOtherMonth": 2,
    "every3Months": 3,
    "every4Months": 4,
    "twiceAYear": 6,
    "yearly": 12,
    "everyOtherYear": 24,
}
TWICE_A_MONTH = "twiceAMonth"
FREQUENCIES = ("never", *DAY_STEPS, TWICE_A_MONTH, *MONTH_STEPS)
_HALF_MONTH = 15


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One date a schedule falls on."""

    scheduled: ScheduledTransaction
    date: date


@dataclass(frozen=True, slots=True)
class WindowTotals:
    """Money in (≥ 0) and out (≤ 0) of the occurrences, in milliunits, transfers left out."""

    inflows: int
    outflows: int


def occurrence_dates(
    date_first: date, date_next: date, frequency: str, since: date, until: date
) -> list[date]:
    """The dates from `since` to `until` (inclusive) a schedule falls on (module docstring)."""
    if until < since or date_next > until:
        return []
    if frequency in DAY_STEPS:
        return _every_n_days(date_next, DAY_STEPS[frequency], since, until)
    if frequency in MONTH_STEPS:
        day = schedule_day(date_first, date_next)
        return _every_n_months(date_next, day, MONTH_STEPS[frequency], since, until)
    if frequency == TWICE_A_MONTH:
        return _twice_a_month(date_first, date_next, since, until)
    return [date_next] if since <= date_next else []


def _every_n_days(start: date, step: int, since: date, until: date) -> list[date]:
    skipped = max(0, -(-(since - start).days // step))  # whole steps before `since`, rounded up
    try:
        first = start + timedelta(days=skipped * step)
    except OverflowError:  # the next occurrence would fall after 9999-12-31: none in the calendar
        return []
    count = (until - first).days // step + 1 if first <= until else 0
    return [first + timedelta(days=step * n) for n in range(count)]


def schedule_day(date_first: date, date_next: date) -> int:
    """The day of the month the schedule keeps: `date_first`'s, unless `date_next` (which
    YNAB computed from it, clamped) shows the schedule was moved to another day."""
    if date_next == on_day(date_next, date_first.day):
        return date_first.day
    return date_next.day


def _every_n_months(start: date, day: int, step: int, since: date, until: date) -> list[date]:
    dates = [start] if since <= start else []
    month = add_months_within_calendar(month_start(start), step)
    if month is not None and since > month:  # jump the whole periods before `since` rather than walking them
        behind = (since.year - month.year) * 12 + since.month - month.month
        month = add_months_within_calendar(month, behind // step * step)
    while month is not None and month <= until:  # None: the calendar ends (9999-12)
        occurrence = on_day(month, day)
        if since <= occurrence <= until:
            dates.append(occurrence)
        month = add_months_within_calendar(month, step)
    return dates


def _twice_a_month(date_first: date, date_next: date, since: date, until: date) -> list[date]:
    first_day = date_first.day if date_first.day <= _HALF_MONTH else date_first.day - _HALF_MONTH
    dates = [date_next] if since <= date_next else []
    month: date | None = max(month_start(date_next), month_start(since))
    while month is not None and month <= until:  # None: the calendar ends (9999-12)
        for day in (first_day, first_day + _HALF_MONTH):
            occurrence = on_day(month, day)
            if occurrence > date_next and since <= occurrence <= until:
                dates.append(occurrence)
        month = add_months_within_calendar(month, 1)
    return dates


def on_day(month: date, day: int) -> date:
    """`day` of `month`'s month, or the month's last day when it has fewer days."""
    return month_start(month).replace(day=min(day, month_end(month).day))


def upcoming(
    snapshot: PlanSnapshot, since: date, until: date, account_ids: Iterable[str] | None = None
) -> list[Occurrence]:
    """Every occurrence of the plan's schedules from `since` to `until`, in date order (then
    by payee name case-folded, then schedule id), optionally only on `account_ids`."""
    accounts = set(account_ids) if account_ids is not None else None
    found = [
        Occurrence(scheduled, day)
        for scheduled in snapshot.scheduled_transactions.values()
        if accounts is None or scheduled.account_id in accounts
        for day in occurrence_dates(
            scheduled.date_first, scheduled.date_next, scheduled.frequency, since, until
        )
    ]
    return sorted(found, key=lambda occurrence: _occurrence_order(snapshot, occurrence))


def _occurrence_order(snapshot: PlanSnapshot, occurrence: Occurrence) -> tuple[date, str, str]:
    payee = snapshot.payees.get(occurrence.scheduled.payee_id or "")
    return (occurrence.date, payee.name.casefold() if payee else "", occurrence.scheduled.id)


def is_transfer(snapshot: PlanSnapshot, scheduled: ScheduledTransaction) -> bool:
    """A transfer between two of the plan's accounts."""
    return scheduled.transfer_account_id is not None and scheduled.transfer_account_id in snapshot.accounts


def totals(snapshot: PlanSnapshot, occurrences: Iterable[Occurrence]) -> WindowTotals:
    """Money in and out over `occurrences`, leaving out transfers between the plan's accounts.

    A split counts line by line: its transfer lines are left out, each other line counts as
    money in or out by its own sign.
    """
    inflows = outflows = 0
    for occurrence in occurrences:
        for amount in _counted_amounts(snapshot, occurrence.scheduled):
            if amount > 0:
                inflows += amount
            else:
                outflows += amount
    return WindowTotals(inflows=inflows, outflows=outflows)


def _counted_amounts(snapshot: PlanSnapshot, scheduled: ScheduledTransaction) -> Iterator[int]:
    lines = snapshot.scheduled_subtransactions_of(scheduled.id)
    if not lines:
        if not is_transfer(snapshot, scheduled):
            yield scheduled.amount
        return
    for line in lines:
        if line.transfer_account_id is None or line.transfer_account_id not in snapshot.accounts:
            yield line.amount
