"""Which schedule is which recurring flow: the one matcher used wherever schedules meet history.

A schedule (YNAB's scheduled transaction) and a recurring flow found in the history
(`tools.logic.recurring`) are the same money when (docs/conventions.md#heuristics):

- **their merchants match** (`same_merchant`): the normalised payees (`tools.logic.payees`)
  are cut into words at anything not a letter or digit, so `NETFLIX.COM` is the words
  `NETFLIX COM`; they match when one's words appear, whole and in order, in the other's
  (`NETFLIX` in `NETFLIX.COM`, `ACME SAS` in `ACME SAS SALAIRE`), or when both start with the
  same word of at least `STEM_LENGTH` characters, their stem (`AMAZON PRIME` and `AMAZON.FR`).
  A shared beginning of letters is not a word: `AMAZON` and `AMAZONIA`, `FREE` and
  `FREENOW` do not match;
- **the same direction**: both money out, or both money in;
- **the schedule comes at least monthly** (`monthly`, `twiceAMonth`, `every4Weeks`,
  `everyOtherWeek`, `weekly`, `daily`): a recurring flow is seen in 3 months out of 4, so a
  schedule once, every other month or rarer is never it; and the schedule is not a
  transfer (the history a recurring flow is found in leaves transfers out, so no transfer
  account can be equal);
- **and the amounts are within `AMOUNT_PERCENT` %, or the days within `DAY_GAP`**: the
  schedule's amount a month (one occurrence times its occurrences a year, ÷ 12) within 20 %
  of the recurring flow's monthly amount, compared in integers; or, for a monthly schedule,
  its day of the month (`tools.logic.schedules.schedule_day`) at most 3 days from the
  flow's, counted across the month's end as in a 31-day month (the 30th and the 2nd are 3
  days apart). Either is enough once the merchant and the direction agree: a salary whose
  schedule still says a twentieth of the real pay, on the pay's day, is the same salary.

Each schedule is matched to at most one flow and each flow to at most one schedule, the
closest pairs first (`match_schedules`). Where a schedule and a flow match, the flow is
shown as scheduled (`find_recurring_charges`) and the forecast counts them once
(`tools.logic.forecast`): the schedule wins, unless their amounts are more than 20 % apart
(matched by the day alone), where the schedule looks out of date and the history is
counted. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.tools.logic.recurring import Recurring
from avenir_mcp.tools.logic.schedules import schedule_day
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, ScheduledTransaction

AMOUNT_PERCENT = 20
DAY_GAP = 3
STEM_LENGTH = 4
MONTHLY = "monthly"
# How many times a year each frequency comes that can be a recurring flow (at least monthly).
TIMES_A_YEAR = {
    "daily": 365,
    "weekly": 52,
    "everyOtherWeek": 26,
    "twiceAMonth": 24,
    "every4Weeks": 13,
    MONTHLY: 12,
}
_DAYS_ROUND = 31  # days across a month's end are counted as in a 31-day month
_WORD = re.compile(r"[^\W_]+")


class NameMatch(IntEnum):
    """How two merchants match, the closest first."""

    SAME = 0
    CONTAINED = 1
    STEM = 2


@dataclass(frozen=True, slots=True)
class ScheduledFlow:
    """A schedule as the matcher sees it: `amount` is one occurrence, milliunits, signed."""

    scheduled_id: str
    merchant: str
    amount: int
    frequency: str
    day: int
    transfer_account_id: str | None


def scheduled_flows(snapshot: PlanSnapshot, schedules: Iterable[ScheduledTransaction]) -> list[ScheduledFlow]:
    """`schedules` as the matcher sees them: their payee normalised, transfers marked."""
    flows = []
    for scheduled in schedules:
        payee = snapshot.payees.get(scheduled.payee_id or "")
        transfer = scheduled.transfer_account_id or (payee.transfer_account_id if payee else None)
        flows.append(
            ScheduledFlow(
                scheduled_id=scheduled.id,
                merchant=normalise_payee(payee.name) if payee is not None else "",
                amount=scheduled.amount,
                frequency=scheduled.frequency,
                day=schedule_day(scheduled.date_first, scheduled.date_next),
                transfer_account_id=transfer,
            )
        )
    return flows


def same_merchant(first: str, second: str) -> NameMatch | None:
    """How two normalised payees match (module docstring), or None when they do not."""
    one, other = _WORD.findall(first), _WORD.findall(second)
    if not one or not other:
        return None
    if one == other:
        return NameMatch.SAME
    shorter, longer = sorted((one, other), key=len)
    width = len(shorter)
    if any(longer[start : start + width] == shorter for start in range(len(longer) - width + 1)):
        return NameMatch.CONTAINED
    if one[0] == other[0] and len(one[0]) >= STEM_LENGTH:
        return NameMatch.STEM
    return None


def amounts_close(flow: ScheduledFlow, recurring: Recurring) -> bool:
    """The schedule's amount a month within `AMOUNT_PERCENT` % of the flow's (integers only)."""
    times = TIMES_A_YEAR.get(flow.frequency)
    if times is None:
        return False
    yearly_flow = 12 * recurring.amount
    return abs(times * flow.amount - yearly_flow) * 100 <= abs(yearly_flow) * AMOUNT_PERCENT


def days_apart(first: int, second: int) -> int:
    """Days between two days of the month, across the month's end as in a 31-day month."""
    gap = abs(first - second)
    return min(gap, _DAYS_ROUND - gap)


def same_flow(flow: ScheduledFlow, recurring: Recurring) -> bool:
    """Whether a schedule and a recurring flow are the same money (module docstring)."""
    return _closeness(flow, recurring) is not None


def match_schedules(
    found: Sequence[Recurring], flows: Sequence[ScheduledFlow]
) -> dict[Recurring, ScheduledFlow]:
    """Each recurring flow that a schedule is, with that schedule; one schedule per flow.

    Pairs are taken closest first: the same name before one contained in the other before a
    shared stem, then amounts within 20 %, then the nearest day; ties by merchant, then
    schedule id, so the answer never depends on the order given.
    """
    candidates = sorted(
        (closeness, recurring.merchant, recurring.is_income, flow.scheduled_id, index, place)
        for index, flow in enumerate(flows)
        for place, recurring in enumerate(found)
        if (closeness := _closeness(flow, recurring)) is not None
    )
    matched: dict[Recurring, ScheduledFlow] = {}
    taken: set[int] = set()
    for *_key, index, place in candidates:
        recurring = found[place]
        if recurring not in matched and index not in taken:
            matched[recurring] = flows[index]
            taken.add(index)
    return matched


def _closeness(flow: ScheduledFlow, recurring: Recurring) -> tuple[int, bool, int] | None:
    """(name match, amounts not close, days apart) when they are the same money, else None."""
    if (
        flow.transfer_account_id is not None
        or flow.frequency not in TIMES_A_YEAR
        or flow.amount == 0
        or (flow.amount > 0) != recurring.is_income
    ):
        return None
    names = same_merchant(flow.merchant, recurring.merchant)
    if names is None:
        return None
    gap = days_apart(flow.day, recurring.day) if flow.frequency == MONTHLY else _DAYS_ROUND
    close = amounts_close(flow, recurring)
    if not close and gap > DAY_GAP:
        return None
    return (names, not close, gap)
