"""Age of money: how many days a dollar sat in the plan before it was spent (YNAB's FIFO idea).

Rules:
- Cash flows are the lines of on-budget accounts that are not transfers between two
  on-budget accounts (moving money between your own accounts neither earns nor spends).
  A positive line is money in, a negative line money spent. Credit card spending counts
  when it happens.
- Money in forms buckets in date order; every outflow spends the oldest money first. An
  outflow's age is the average, weighted by milliunits, of (outflow date - bucket date) in
  days over the buckets it empties. The part of an outflow no money in can cover has no age.
- A month's age of money is the average age of the last 10 outflows (that had an age) dated
  on or before the month's last day, or today for the current and future months; integer
  days, rounded down. Null when no outflow could be aged yet.
- On one day, money in comes before money out (income spent the day it arrives is 0 days old).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from sandbox.budget_math.calendar import last_day

WINDOW = 10


@dataclass(frozen=True)
class CashFlow:
    date: date
    amount: int


class _Fifo:
    """Buckets of money in, spent oldest first."""

    def __init__(self) -> None:
        self.buckets: deque[list] = deque()  # [date, milliunits left]

    def put(self, flow: CashFlow) -> None:
        self.buckets.append([flow.date, flow.amount])

    def spend(self, flow: CashFlow) -> int | None:
        """Spend an outflow; its age in whole days, or None when no money in covered it."""
        wanted, weighted_days, covered = -flow.amount, 0, 0
        while wanted and self.buckets:
            bucket = self.buckets[0]
            taken = min(wanted, bucket[1])
            weighted_days += (flow.date - bucket[0]).days * taken
            covered += taken
            wanted -= taken
            bucket[1] -= taken
            if not bucket[1]:
                self.buckets.popleft()
        return weighted_days // covered if covered else None


def ages_of_money(flows: Iterable[CashFlow], months: Sequence[date], today: date) -> dict[date, int | None]:
    """Age of money at the end of each of `months` (sorted first days), as defined above."""
    ordered = sorted((f for f in flows if f.amount), key=lambda f: (f.date, f.amount < 0))
    fifo, recent = _Fifo(), deque(maxlen=WINDOW)
    position, result = 0, {}
    for month in months:
        cutoff = min(last_day(month), today)
        while position < len(ordered) and ordered[position].date <= cutoff:
            flow = ordered[position]
            if flow.amount > 0:
                fifo.put(flow)
            else:
                age = fifo.spend(flow)
                if age is not None:
                    recent.append(age)
            position += 1
        result[month] = sum(recent) // len(recent) if recent else None
    return result
