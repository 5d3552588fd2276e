"""Recurring charges and income: the heuristic of docs/conventions.md#heuristics, with its fixed thresholds.

A merchant (the normalised payee, `tools.logic.payees`) recurs in one direction (money out
or money in) when, over the last `LOOKBACK_MONTHS` full months, it was seen in at least
`MIN_MONTHS_SEEN` of them and each of those months' totals is within `TOLERANCE_PERCENT` of
their median. It is then projected at the median amount (rounded once to the plan's
smallest unit) on its median day (`median_day`: each month's median charge day, then the
median of those; clamped to the month's end where it is projected).

`find_recurring` is a pure function of plain observations (`Charge`s), so the rule is
tested on its own; `charges_in` reads them from a snapshot: non-transfer transactions of
the chosen accounts, Starting Balances left out, a split as one charge of its whole amount.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from statistics import median_low
from typing import NamedTuple

from avenir_mcp.tools.logic.flows import plan_facts
from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.values.money import average
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

LOOKBACK_MONTHS = 4
MIN_MONTHS_SEEN = 3
TOLERANCE_PERCENT = 20


class Charge(NamedTuple):
    """One transaction as the heuristic sees it: whose, when, how much (milliunits, signed).

    A named tuple: a plan's four months hold thousands of them, made on every call.
    """

    merchant: str
    date: date
    amount: int
    category_id: str | None = None


@dataclass(frozen=True, slots=True)
class Recurring:
    """A merchant that recurs in one direction: `amount` < 0 a charge, > 0 income."""

    merchant: str
    amount: int
    day: int
    months_seen: int
    category_id: str | None

    @property
    def is_income(self) -> bool:
        return self.amount > 0


def find_recurring(charges: Iterable[Charge], months: Sequence[date], decimal_digits: int) -> list[Recurring]:
    """The recurring merchants among `charges` dated in `months` (firsts of the months looked at).

    Charges first, the costliest first, then income, the largest first; then by merchant.
    """
    wanted = {(month.year, month.month) for month in months}
    grouped: dict[tuple[str, bool], list[Charge]] = defaultdict(list)
    for charge in charges:
        day = charge.date
        if charge.amount and charge.merchant and (day.year, day.month) in wanted:
            grouped[(charge.merchant, charge.amount > 0)].append(charge)
    found = [
        recurring
        for (merchant, _income), seen in grouped.items()
        if len(seen) >= MIN_MONTHS_SEEN
        and (recurring := _recurring(merchant, seen, decimal_digits)) is not None
    ]
    return sorted(found, key=lambda r: (r.is_income, -abs(r.amount), r.merchant))


def _recurring(merchant: str, charges: list[Charge], decimal_digits: int) -> Recurring | None:
    totals: dict[tuple[int, int], int] = defaultdict(int)
    days: dict[tuple[int, int], list[int]] = defaultdict(list)
    for charge in charges:
        day = charge.date
        month = (day.year, day.month)
        totals[month] += charge.amount
        days[month].append(day.day)
    if len(totals) < MIN_MONTHS_SEEN or not all_within_tolerance(list(totals.values())):
        return None
    return Recurring(
        merchant=merchant,
        amount=median_amount(list(totals.values()), decimal_digits),
        day=median_day(days.values()),
        months_seen=len(totals),
        category_id=_most_used(charge.category_id for charge in charges),
    )


def median_day(days_by_month: Iterable[Sequence[int]]) -> int:
    """The day a merchant comes: the median of each month's median charge day.

    Medians of an even count take the lower middle, so the day is always one it came on.
    A merchant charged on the 1st, 10th, 20th and 28th of every month comes on the 10th,
    not the 1st; one whose months' medians are the 5th, the 7th and the 6th comes on the 6th.
    """
    return median_low([median_low(days) for days in days_by_month])


def all_within_tolerance(totals: Sequence[int]) -> bool:
    """Every total within `TOLERANCE_PERCENT` % of their median (exact: integers only)."""
    twice_median = _twice_median(totals)
    return all(
        abs(2 * total - twice_median) * 100 <= abs(twice_median) * TOLERANCE_PERCENT for total in totals
    )


def median_amount(totals: Sequence[int], decimal_digits: int) -> int:
    """The median (the mean of the middle two for an even count), rounded once to the plan's unit."""
    ordered = sorted(totals)
    middle = len(ordered) // 2
    pair = ordered[middle - 1 : middle + 1] if len(ordered) % 2 == 0 else ordered[middle : middle + 1]
    return average(pair, decimal_digits)


def _twice_median(totals: Sequence[int]) -> int:
    ordered = sorted(totals)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return 2 * ordered[middle]
    return ordered[middle - 1] + ordered[middle]


def _most_used(category_ids: Iterable[str | None]) -> str | None:
    counts = Counter(category_id for category_id in category_ids if category_id is not None)
    if not counts:
        return None
    return min(counts, key=lambda category_id: (-counts[category_id], category_id))


def charges_in(snapshot: PlanSnapshot, months: Sequence[date], account_ids: Iterable[str]) -> list[Charge]:
    """The non-transfer transactions of `account_ids` in `months`, as `Charge`s.

    A split is one charge of its whole amount, with no category (its lines have theirs).
    """
    accounts = set(account_ids)
    facts = plan_facts(snapshot)
    names, starting, splits = facts.payee_names, facts.starting_payees, facts.split_ids
    merchants = {
        payee_id: normalise_payee(name) for payee_id, name in names.items() if payee_id not in starting
    }
    found = []
    for month in months:
        for t in snapshot.transactions_in_month(month):
            if t.account_id not in accounts or t.transfer_account_id is not None or t.payee_id is None:
                continue
            merchant = merchants.get(t.payee_id)
            if merchant is not None:
                found.append(Charge(merchant, t.date, t.amount, None if t.id in splits else t.category_id))
    return found
