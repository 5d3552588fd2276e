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

So that a write does not replay the plan's whole history, the computation can start from
the state the FIFO had at the start of a month (`FifoState`, kept per month by the ledger).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from avenir_mcp.sandbox.budget_math.calendar import add_months, last_day

WINDOW = 10


class CashFlow(NamedTuple):
    date: date
    amount: int


@dataclass
class FifoState:
    """Money not spent yet (oldest first) and the ages of the last outflows."""

    buckets: deque = field(default_factory=deque)  # [date, milliunits left]
    recent: deque = field(default_factory=lambda: deque(maxlen=WINDOW))

    def put(self, flow: CashFlow) -> None:
        self.buckets.append([flow.date, flow.amount])

    def spend(self, flow: CashFlow) -> None:
        """Spend an outflow from the oldest money; remember its age if anything covered it."""
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
        if covered:
            self.recent.append(weighted_days // covered)

    def age(self) -> int | None:
        return sum(self.recent) // len(self.recent) if self.recent else None

    def to_json(self) -> dict[str, Any]:
        return {"buckets": [[d.isoformat(), a] for d, a in self.buckets], "recent": list(self.recent)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> FifoState:
        state = cls()
        for day, amount in (data or {}).get("buckets", []):
            state.buckets.append([date.fromisoformat(day), amount])
        state.recent.extend((data or {}).get("recent", []))
        return state


def ages_of_money(
    flows: Iterable[CashFlow], months: Sequence[date], today: date, start: FifoState | None = None
) -> tuple[dict[date, int | None], dict[date, dict[str, Any]]]:
    """Age of money at the end of each of `months` (sorted, consecutive first days), and the
    FIFO state at the start of each, as JSON. `flows` are those from the first month on;
    `start` is the state at its start (empty: the plan's beginning)."""
    ordered = sorted((f for f in flows if f.amount), key=lambda f: (f.date, f.amount < 0))
    state = start or FifoState()
    position, ages, states = 0, {}, {}
    for month in months:
        states[month] = state.to_json()
        cutoff = min(last_day(month), today)
        position = _play(state, ordered, position, cutoff)
        ages[month] = state.age()
        # Flows after today but within the month (none: no future-dated transactions) still
        # belong to the month's end state.
        position = _play(state, ordered, position, add_months(month, 1), exclusive=True)
    return ages, states


def _play(
    state: FifoState, ordered: list[CashFlow], position: int, until: date, exclusive: bool = False
) -> int:
    while position < len(ordered):
        flow = ordered[position]
        if flow.date > until or (exclusive and flow.date >= until):
            break
        if flow.amount > 0:
            state.put(flow)
        else:
            state.spend(flow)
        position += 1
    return position
