"""Age of money over the months: YNAB's own figure (never recomputed), and which way it goes.

YNAB gives each plan month an `age_of_money` in days (null when it has none). The change of
a month is its figure minus the previous month's (null when either is null); the overall
change is the latest figure minus the oldest one in the months looked at. The trend is
`up` or `down` when that change is more than `STEADY_DAYS` days either way, else `steady`.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from avenir_mcp.ynab_client.snapshot import PlanSnapshot

STEADY_DAYS = 2
Trend = Literal["up", "down", "steady"]


@dataclass(frozen=True, slots=True)
class MonthAge:
    month: date
    days: int | None
    change: int | None


def ages(snapshot: PlanSnapshot, months: Sequence[date]) -> list[MonthAge]:
    found = []
    previous: int | None = None
    for index, month in enumerate(months):
        held = snapshot.months.get(month)
        days = held.age_of_money if held is not None else None
        change = days - previous if index and days is not None and previous is not None else None
        found.append(MonthAge(month, days, change))
        previous = days
    return found


def overall_change(rows: Sequence[MonthAge]) -> int | None:
    known = [row.days for row in rows if row.days is not None]
    return known[-1] - known[0] if len(known) >= 2 else None


def trend(change: int | None) -> Trend | None:
    if change is None:
        return None
    if change > STEADY_DAYS:
        return "up"
    if change < -STEADY_DAYS:
        return "down"
    return "steady"
