"""A day-by-day forecast of some accounts' combined balance, from today to a month's end.

What moves the balance, each day after today (`project`):
- **schedules** (YNAB's scheduled transactions) from tomorrow, as `tools.logic.schedules`
  expands them; a transfer counts only when it crosses the edge of the chosen accounts;
- **recurring** charges and income (docs/conventions.md#heuristics, `tools.logic.recurring`) of the chosen
  accounts, at their median amount on their median day, unless a schedule counted above is
  the same money (`tools.logic.schedule_match`): the schedule wins, the flow is not
  projected again. Only when they are the same money by the day alone, their amounts more
  than 20 % apart, does the history win: the schedule looks out of date (a salary scheduled
  at a twentieth of the pay), so the flow is projected and the schedule left out, and the
  pair is named in `schedules_off_history` for the person to check the schedule;
- **variable** money (forecast averages, docs/conventions.md#heuristics): every other move of the chosen
  accounts, averaged over the last `AVERAGE_MONTHS` full months (net: spending less non-recurring
  income), spread evenly over each month's days in whole units of the plan's currency; in
  the current month what already moved is deducted and the rest spread over the days left.
  Left out of it: the recurring merchants (matched to a schedule or not), the merchants
  named exactly as the payee of a schedule of the chosen accounts, and the transfers between
  the two accounts of a scheduled transfer that crosses the edge of the chosen accounts;
- `monthly_income`, when given, instead of recurring and scheduled income, on the day the
  largest recurring income came (the 1st when there is none);
- **one-offs** the person names, on their dates (today's too).

Pure: the snapshot, today and the person's assumptions in; milliunits out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from avenir_mcp.tools.logic.flows import PlanFacts, month_lines, plan_facts
from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.tools.logic.recurring import LOOKBACK_MONTHS, Recurring, charges_in, find_recurring
from avenir_mcp.tools.logic.schedule_match import amounts_close, match_schedules, scheduled_flows
from avenir_mcp.tools.logic.schedules import on_day, upcoming
from avenir_mcp.tools.logic.trends import full_months_before
from avenir_mcp.values.money import average, smallest_unit
from avenir_mcp.values.months import add_months, month_end, month_range, month_start
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, ScheduledTransaction

AVERAGE_MONTHS = 3
MAX_MONTHS_AHEAD = 24


@dataclass(frozen=True, slots=True)
class OneOff:
    date: date
    amount: int
    label: str


@dataclass(frozen=True, slots=True)
class ScheduledEffect:
    """A schedule and what each of its occurrences does to the chosen accounts' balance."""

    scheduled: ScheduledTransaction
    amount: int
    dates: tuple[date, ...]


@dataclass(frozen=True, slots=True)
class ScheduleOffHistory:
    """A schedule that is a recurring flow by its payee and day, but whose amount a month is
    more than 20 % off the flow's: it looks out of date, so the flow is counted instead;
    worth a word to the person."""

    scheduled: ScheduledTransaction
    recurring: Recurring


@dataclass(frozen=True, slots=True)
class MonthForecast:
    month: date
    start: int
    inflows: int
    outflows: int
    end: int
    lowest: int
    lowest_date: date


@dataclass(frozen=True, slots=True)
class Forecast:
    start_balance: int
    recurring: tuple[Recurring, ...]
    variable_monthly: int
    variable_months: tuple[date, ...]
    monthly_income: int | None
    income_day: int
    scheduled: tuple[ScheduledEffect, ...]
    one_offs: tuple[OneOff, ...]
    months: tuple[MonthForecast, ...]
    first_below_zero: date | None = None
    first_below_zero_balance: int | None = None
    variable_given: bool = field(default=False)
    schedules_off_history: tuple[ScheduleOffHistory, ...] = ()

    @property
    def first_shortfall(self) -> date | None:
        """The first month whose lowest daily balance is below zero."""
        return next((month.month for month in self.months if month.lowest < 0), None)


def project(
    snapshot: PlanSnapshot,
    *,
    today: date,
    until: date,
    account_ids: Sequence[str],
    decimal_digits: int,
    monthly_income: int | None = None,
    variable_monthly: int | None = None,
    one_offs: Sequence[OneOff] = (),
) -> Forecast:
    """The forecast from today through the end of `until`'s month (see the module docstring)."""
    chosen = frozenset(account_ids)
    facts = plan_facts(snapshot)
    last_day = month_end(until)
    tomorrow = today + timedelta(days=1)
    recent = [add_months(month_start(today), -back) for back in range(LOOKBACK_MONTHS, 0, -1)]
    everything = find_recurring(charges_in(snapshot, recent, chosen), recent, decimal_digits)
    scheduled = _scheduled_effects(
        snapshot, chosen, tomorrow, last_day, drop_income=monthly_income is not None
    )
    on_chosen = [effect.scheduled for effect in scheduled if effect.scheduled.account_id in chosen]
    matched = match_schedules(everything, scheduled_flows(snapshot, on_chosen))
    off_history = tuple(
        ScheduleOffHistory(snapshot.scheduled_transactions[flow.scheduled_id], item)
        for item, flow in sorted(matched.items(), key=lambda pair: (pair[0].merchant, pair[1].scheduled_id))
        if not amounts_close(flow, item)
    )
    out_of_date = {off.scheduled.id for off in off_history}
    scheduled = tuple(effect for effect in scheduled if effect.scheduled.id not in out_of_date)
    recurring = tuple(
        item
        for item in everything
        if (item not in matched or matched[item].scheduled_id in out_of_date)
        and not (monthly_income is not None and item.is_income)
    )
    incomes = [item for item in everything if item.is_income]
    income_day = max(incomes, key=lambda item: item.amount).day if incomes else 1
    # Recurring income replaced by monthly_income is still left out of the variable average.
    projected = {item.merchant for item in everything} | _scheduled_merchants(snapshot, chosen)
    transfers = _scheduled_transfers(snapshot, chosen)
    months_back = tuple(full_months_before(today, AVERAGE_MONTHS, snapshot.first_month))
    if variable_monthly is None:
        per_month = [
            _variable(snapshot, facts, chosen, projected, transfers, m, month_end(m)) for m in months_back
        ]
        variable = average(per_month, decimal_digits)
    else:
        variable = variable_monthly

    moves: dict[date, list[int]] = defaultdict(list)
    for effect in scheduled:
        for day in effect.dates:
            moves[day].append(effect.amount)
    for month in month_range(today, last_day):
        for item in recurring:
            day = on_day(month, item.day)
            if tomorrow <= day <= last_day:
                moves[day].append(item.amount)
        if monthly_income is not None:
            day = on_day(month, income_day)
            if tomorrow <= day <= last_day:
                moves[day].append(monthly_income)
    done = _variable(snapshot, facts, chosen, projected, transfers, month_start(today), today)
    for month in month_range(today, last_day):
        first = tomorrow if month == month_start(today) else month
        to_spread = _rest_of(variable, done) if month == month_start(today) else variable
        for day, amount in spread(to_spread, first, month_end(month), decimal_digits):
            moves[day].append(amount)
    for one_off in one_offs:
        moves[one_off.date].append(one_off.amount)

    start = sum(snapshot.accounts[account_id].balance for account_id in chosen)
    months, below, below_balance = _walk(moves, start, today, last_day)
    return Forecast(
        start_balance=start,
        recurring=recurring,
        variable_monthly=variable,
        variable_months=months_back,
        monthly_income=monthly_income,
        income_day=income_day,
        scheduled=scheduled,
        one_offs=tuple(one_offs),
        months=months,
        first_below_zero=below,
        first_below_zero_balance=below_balance,
        variable_given=variable_monthly is not None,
        schedules_off_history=off_history,
    )


def spread(amount: int, first: date, last: date, decimal_digits: int) -> list[tuple[date, int]]:
    """`amount` spread evenly over the days `first`…`last`, in whole units of the plan's currency.

    The amount is first rounded to that unit; each day gets the same number of units and the
    units left over go one each to the first days, so the days add up to it exactly.
    `spread(-100_000, 1 Jan, 3 Jan, 2)`: −33.34, −33.33, −33.33.
    """
    days = (last - first).days + 1
    if amount == 0 or days <= 0:
        return []
    unit = smallest_unit(decimal_digits)
    units = average([amount], decimal_digits) // unit
    sign = -1 if units < 0 else 1
    each, extra = divmod(abs(units), days)
    return [
        (first + timedelta(days=offset), sign * (each + (1 if offset < extra else 0)) * unit)
        for offset in range(days)
        if each or offset < extra
    ]


def _rest_of(monthly: int, done: int) -> int:
    """What is left of a month's average once `done` moved; never the other way round."""
    rest = monthly - done
    if monthly <= 0:
        return min(rest, 0)
    return max(rest, 0)


def _variable(
    snapshot: PlanSnapshot,
    facts: PlanFacts,
    chosen: frozenset[str],
    projected: set[str],
    transfers: frozenset[tuple[str, str]],
    first: date,
    last: date,
) -> int:
    """The net of the chosen accounts' moves dated `first`…`last` that nothing else projects."""
    merchants: dict[str | None, bool] = {}  # payee id → projected elsewhere
    total = 0
    for month in month_range(first, last):
        for line in month_lines(snapshot, facts, month, chosen):
            if line.transfer_account_id in chosen or not first <= line.transaction.date <= last:
                continue
            if (line.transaction.account_id, line.transfer_account_id) in transfers:
                continue  # a scheduled transfer between the same two accounts projects it
            skip = merchants.get(line.payee_id)
            if skip is None:
                skip = merchants[line.payee_id] = _merchant(snapshot, line.payee_id) in projected
            if not skip:
                total += line.amount
    return total


def _merchant(snapshot: PlanSnapshot, payee_id: str | None) -> str | None:
    payee = snapshot.payees.get(payee_id) if payee_id else None
    return normalise_payee(payee.name) if payee is not None else None


def _scheduled_merchants(snapshot: PlanSnapshot, chosen: frozenset[str]) -> set[str]:
    """The payees (normalised) of the schedules that move the chosen accounts' money: their
    history is left out of the variable average whether or not it recurs."""
    merchants = set()
    for scheduled in snapshot.scheduled_transactions.values():
        touches = scheduled.account_id in chosen or scheduled.transfer_account_id in chosen
        payee = snapshot.payees.get(scheduled.payee_id or "")
        if touches and payee is not None:
            merchants.add(normalise_payee(payee.name))
    return merchants


def _scheduled_transfers(snapshot: PlanSnapshot, chosen: frozenset[str]) -> frozenset[tuple[str, str]]:
    """(chosen account, the other account) of every scheduled transfer that crosses the edge of
    the chosen accounts, a split's transfer lines included: history transfers between the same
    two accounts are what the schedule projects, so they are left out of the variable average
    (a transfer's two sides have different payees, so `_scheduled_merchants` cannot tell)."""
    pairs = set()
    for scheduled in snapshot.scheduled_transactions.values():
        lines = snapshot.scheduled_subtransactions_of(scheduled.id)
        others = [line.transfer_account_id for line in lines] or [scheduled.transfer_account_id]
        for other in others:
            if other is None or (scheduled.account_id in chosen) == (other in chosen):
                continue
            inside, outside = (
                (scheduled.account_id, other) if other not in chosen else (other, scheduled.account_id)
            )
            pairs.add((inside, outside))
    return frozenset(pairs)


def _scheduled_effects(
    snapshot: PlanSnapshot, chosen: frozenset[str], since: date, until: date, *, drop_income: bool
) -> tuple[ScheduledEffect, ...]:
    by_schedule: dict[str, list[date]] = defaultdict(list)
    for occurrence in upcoming(snapshot, since, until):
        by_schedule[occurrence.scheduled.id].append(occurrence.date)
    effects = []
    for scheduled_id, dates in by_schedule.items():
        scheduled = snapshot.scheduled_transactions[scheduled_id]
        amount = schedule_effect(snapshot, scheduled, chosen, drop_income=drop_income)
        if amount:
            effects.append(ScheduledEffect(scheduled, amount, tuple(dates)))
    return tuple(sorted(effects, key=lambda effect: (effect.dates[0], effect.scheduled.id)))


def schedule_effect(
    snapshot: PlanSnapshot, scheduled: ScheduledTransaction, chosen: frozenset[str], *, drop_income: bool
) -> int:
    """What one occurrence does to the chosen accounts' combined balance.

    On a chosen account a line counts by its amount, unless it is a transfer to another
    chosen account; a transfer from another account into a chosen one counts by the
    opposite amount. With `drop_income`, money coming in from outside (pay) is left out.
    """
    parts = snapshot.scheduled_subtransactions_of(scheduled.id)
    pairs = [(p.amount, p.transfer_account_id) for p in parts] or [
        (scheduled.amount, scheduled.transfer_account_id)
    ]
    total = 0
    for amount, transfer_to in pairs:
        inside_from = scheduled.account_id in chosen
        inside_to = transfer_to in chosen
        if inside_from and not inside_to:
            if not (drop_income and transfer_to is None and amount > 0):
                total += amount
        elif inside_to and not inside_from:
            total -= amount
    return total


def _walk(
    moves: dict[date, list[int]], start: int, today: date, last_day: date
) -> tuple[tuple[MonthForecast, ...], date | None, int | None]:
    months = []
    balance = start
    below: date | None = None
    below_balance: int | None = None
    for month in month_range(today, last_day):
        first = today if month == month_start(today) else month
        month_start_balance = balance
        inflows = outflows = 0
        lowest, lowest_date = balance, first
        first_day = True
        day = first
        while day <= month_end(month):
            for amount in moves.get(day, ()):
                if amount > 0:
                    inflows += amount
                else:
                    outflows += amount
                balance += amount
            if first_day or balance < lowest:
                lowest, lowest_date, first_day = balance, day, False
            if balance < 0 and below is None:
                below, below_balance = day, balance
            day += timedelta(days=1)
        months.append(
            MonthForecast(month, month_start_balance, inflows, outflows, balance, lowest, lowest_date)
        )
    return tuple(months), below, below_balance
