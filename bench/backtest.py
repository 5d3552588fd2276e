"""Backtest of the balance forecast: each account's last three full months, forecast from the day before.

    .venv/bin/python bench/backtest.py [--transactions 50000] [--seed 0] [--plans demo,heavy]

Runs against a throwaway SQLite database (`bench/harness.py`): seeds the demo plan and the
heavy plan (`--transactions`, `--seed`), serves the real ASGI application in a child process
and reads each plan as the service would, through a `YnabClient` and a `PlanCache` over HTTP
from its sandbox (one full export). Then, for each target month M, each of the last three
full months before today's:

- the plan as it stood at the end of the day before M (`snapshot_as_of`, below);
- `tools.logic.forecast.project` from that day (today = the last day of M−1, until = M), for
  one account at a time, with no assumption given (the forecast's own income, variable
  spending and schedules); the projected change is M's `MonthForecast` end − start (the
  forecast's first month is M−1's last day alone, its second is M);
- the actual change: the sum of the account's transactions dated in M (transfers included:
  they move its balance).

Accounts: every open account of the plan, of every type (checking, savings, cash, cards,
loans, tracking assets; on and off budget), each forecast alone; closed ones are left out,
and so is an account with no transaction by the cut (it did not exist yet). Each account's
header line (`# plan name (type)`) is followed by one figure a line as `name: value unit`,
the name `<plan>_<account>_<YYYY-MM>_<what>`, amounts in the plan's currency, exact to the
milliunit (integers inside, never floats):

- `_projected`, `_actual`, `_error` (projected − actual), `_error_pct` (the error as a % of
  |actual|, one decimal, half away from zero; `n/a` when nothing moved);
- `<plan>_<account>_mean_projected`, `_mean_actual`, `_mean_error`, `_mean_error_pct`: the
  means of the three months, rounded to the plan's decimal digits, half away from zero, and
  the error of the means as a % of |mean actual| (from the exact sums);
- `_mean_abs_error`, `_mean_abs_error_pct`: the mean of the months' errors taken whole (an
  error of +200 one month and −200 the next is 200 a month, where the mean error says 0), and
  that as a % of the mean of |actual|: the figure to compare forecasts by;
- `<plan>_snapshot_time` (s: the full export, parsed), `<plan>_backtest_time` (s: the
  snapshots as of each cut and every forecast), `seed_time` (s: the heavy plan) and
  `total_time` (s: the whole run, seeding and serving included).

`snapshot_as_of(snapshot, day)`: the plan at the end of `day`, built by `apply_delta` (the
cache's own merge, which keeps every index right) from a delta that deletes every
transaction dated after `day` (their split lines go with them), takes what those moved off
each account's balance (and off its cleared or uncleared part, by their status), moves each
schedule's `date_next` back to its first occurrence after `day` (counted from `date_first`
at its frequency, `tools.logic.schedules.occurrence_dates`), and drops a schedule that began
after `day` or had no occurrence left. What the data cannot tell is left as it is now:
payees and categories, budgets, a schedule's amount or day changed since, a schedule or
transaction deleted since. The bench checks, for each cut, that no transaction after it
is left, that each account's balance is the sum of its transactions, and that no schedule
is due by it.

On the last day of M−1 the forecast still takes M−1 for the current month: its averages and
recurring flows come from the full months before M−1. So the demo's six months of history
give the first two target months one and two months of averages and no recurring flow (one
must be seen in 3 of the last 4 full months, `tools.logic.recurring`), where a forecast made
today has five full months behind it; the heavy plan's 36 months leave every cut its full history.

Target (issue 25): the error on heavy Main Checking within 15 % of the actual change, and no
account worse than before.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    arguments,
    figure,
    migrate,
    sandbox_token,
    seed_heavy,
    served,
    throwaway_database,
)

if TYPE_CHECKING:
    from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot, ScheduledTransaction

PLANS = ("demo", "heavy")
MONTHS = 3
SCHEDULE_HORIZON = timedelta(days=800)  # past the longest step (every other year) from any day


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--plans", default=",".join(PLANS), help="demo, heavy or both, comma-separated")
    options = parser.parse_args()
    plans = [name.strip() for name in options.plans.split(",") if name.strip()]
    unknown = sorted(set(plans) - set(PLANS))
    if unknown or not plans:
        parser.error(f"--plans takes {' and '.join(PLANS)}, not {options.plans!r}")
    started = time.perf_counter()
    with throwaway_database():
        migrate()
        plan_ids = {name: _seed(name, options) for name in plans}
        with served() as service:
            asyncio.run(_backtest_plans(service.sandbox_url, plan_ids))
    figure("total_time", time.perf_counter() - started, "s", 1)


def _seed(name: str, options: argparse.Namespace) -> str:
    if name == "heavy":
        return seed_heavy(options.transactions, options.seed)
    from avenir_mcp.sandbox.seeding import seed_demo_plan

    return seed_demo_plan(plan_id=str(uuid.uuid4())).id


async def _backtest_plans(sandbox_url: str, plan_ids: dict[str, str]) -> None:
    from django.utils import timezone

    from avenir_mcp.ynab_client.cache import PlanCache
    from avenir_mcp.ynab_client.client import YnabClient

    today = timezone.localdate()
    client = YnabClient(base_url=sandbox_url, token=sandbox_token())
    try:
        for name, plan_id in plan_ids.items():
            started = time.perf_counter()
            snapshot = await PlanCache().snapshot(client, plan_id)
            figure(f"{name}_snapshot_time", time.perf_counter() - started, "s", 2)
            started = time.perf_counter()
            backtest(name, snapshot, today)
            figure(f"{name}_backtest_time", time.perf_counter() - started, "s", 2)
    finally:
        await client.aclose()


# --- the plan as it stood on a past day ------------------------------------------------------


def snapshot_as_of(snapshot: PlanSnapshot, day: date) -> PlanSnapshot:
    """The plan at the end of `day`, as far as its data tells (see the module docstring)."""
    from avenir_mcp.ynab_client.cache import apply_delta
    from avenir_mcp.ynab_client.snapshot import Changes, PlanDelta

    later = list(snapshot.transactions_between(day + timedelta(days=1), date.max))
    cleared: dict[str, int] = defaultdict(int)
    uncleared: dict[str, int] = defaultdict(int)
    for transaction in later:
        moved = uncleared if transaction.cleared == "uncleared" else cleared
        moved[transaction.account_id] += transaction.amount
    accounts = tuple(
        replace(
            account,
            balance=account.balance - cleared[account.id] - uncleared[account.id],
            cleared_balance=account.cleared_balance - cleared[account.id],
            uncleared_balance=account.uncleared_balance - uncleared[account.id],
        )
        for account in snapshot.accounts.values()
        if account.id in cleared or account.id in uncleared
    )
    moved_back, not_yet = _schedules_as_of(snapshot, day)
    delta = PlanDelta(
        plan_id=snapshot.plan_id,
        name=snapshot.name,
        last_modified_on=snapshot.last_modified_on,
        first_month=snapshot.first_month,
        last_month=snapshot.last_month,
        settings=snapshot.settings,
        server_knowledge=snapshot.server_knowledge,
        accounts=Changes(accounts),
        category_groups=Changes(),
        categories=Changes(),
        months=(),
        payees=Changes(),
        payee_locations=Changes(),
        transactions=Changes(deleted_ids=tuple(transaction.id for transaction in later)),
        subtransactions=Changes(),
        scheduled_transactions=Changes(moved_back, not_yet),
        scheduled_subtransactions=Changes(),
    )
    return apply_delta(snapshot, delta)


def _schedules_as_of(
    snapshot: PlanSnapshot, day: date
) -> tuple[tuple[ScheduledTransaction, ...], tuple[str, ...]]:
    """Schedules whose next occurrence after `day` is not today's `date_next` (moved back to
    it), and the ids of those with none then (begun after `day`, or done by it)."""
    from avenir_mcp.tools.logic.schedules import occurrence_dates

    moved_back: list[ScheduledTransaction] = []
    not_yet: list[str] = []
    since = day + timedelta(days=1)
    for scheduled in snapshot.scheduled_transactions.values():
        dates: list[date] = []
        if scheduled.date_first <= day:
            first = scheduled.date_first
            dates = occurrence_dates(first, first, scheduled.frequency, since, since + SCHEDULE_HORIZON)
        if not dates:
            not_yet.append(scheduled.id)
        elif dates[0] != scheduled.date_next:
            moved_back.append(replace(scheduled, date_next=dates[0]))
    return tuple(moved_back), tuple(not_yet)


def _check_cut(cut: PlanSnapshot, day: date) -> None:
    """Nothing after `day` is left, and each account's balance is what its transactions add up to."""
    if any(transaction.date > day for transaction in cut.transactions.values()):
        raise SystemExit(f"The plan as of {day} still holds later transactions.")
    for account in cut.accounts.values():
        total = sum(transaction.amount for transaction in cut.transactions_in_account(account.id))
        if total != account.balance:
            raise SystemExit(f"{account.name} as of {day}: balance {account.balance}, transactions {total}.")
    if any(scheduled.date_next <= day for scheduled in cut.scheduled_transactions.values()):
        raise SystemExit(f"The plan as of {day} has a schedule due by then.")


# --- the backtest ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MonthResult:
    month: date
    projected: int
    actual: int


def backtest(name: str, snapshot: PlanSnapshot, today: date) -> None:
    """Print the figures of one plan (see the module docstring)."""
    from avenir_mcp.tools.logic.forecast import project
    from avenir_mcp.values.money import decimal_digits
    from avenir_mcp.values.months import add_months, month_start

    digits = decimal_digits(snapshot.settings.currency_format)
    targets = [add_months(month_start(today), -back) for back in range(MONTHS, 0, -1)]
    accounts = sorted(
        (account for account in snapshot.accounts.values() if not account.closed),
        key=lambda account: (account.name.casefold(), account.id),
    )
    results: dict[str, list[MonthResult]] = defaultdict(list)
    for month in targets:
        day = month - timedelta(days=1)
        cut = snapshot_as_of(snapshot, day)
        _check_cut(cut, day)
        actual: dict[str, int] = defaultdict(int)
        for transaction in snapshot.transactions_in_month(month):
            actual[transaction.account_id] += transaction.amount
        for account in accounts:
            if not cut.transactions_in_account(account.id):
                continue  # opened after the cut
            forecast = project(cut, today=day, until=month, account_ids=[account.id], decimal_digits=digits)
            projected = forecast.months[-1]
            if projected.month != month:
                raise SystemExit(f"The forecast from {day} until {month} ends in {projected.month}.")
            change = projected.end - projected.start
            results[account.id].append(MonthResult(month, change, actual[account.id]))
    _print(name, snapshot, accounts, results, digits)


def _print(
    name: str,
    snapshot: PlanSnapshot,
    accounts: list[Account],
    results: dict[str, list[MonthResult]],
    digits: int,
) -> None:
    from avenir_mcp.values.money import amount_text

    currency = snapshot.settings.currency_format
    unit = currency.iso_code if currency is not None else ""
    slugs: set[str] = set()
    for account in accounts:
        months = results.get(account.id)
        if not months:
            print(f"# {name} {account.name} ({account.type}): no transaction by the last cut", flush=True)
            continue
        slug = _slug(account.name, slugs)
        print(f"# {name} {account.name} ({account.type})", flush=True)
        for result in months:
            key = f"{name}_{slug}_{result.month:%Y-%m}"
            _amount(f"{key}_projected", amount_text(currency, result.projected), unit)
            _amount(f"{key}_actual", amount_text(currency, result.actual), unit)
            _amount(f"{key}_error", amount_text(currency, result.projected - result.actual), unit)
            _amount(f"{key}_error_pct", _percent(result.projected - result.actual, result.actual), "%")
        projected = sum(result.projected for result in months)
        actual = sum(result.actual for result in months)
        count = len(months)
        key = f"{name}_{slug}_mean"
        _amount(f"{key}_projected", _mean(projected, count, digits), unit)
        _amount(f"{key}_actual", _mean(actual, count, digits), unit)
        _amount(f"{key}_error", _mean(projected - actual, count, digits), unit)
        _amount(f"{key}_error_pct", _percent(projected - actual, actual), "%")
        missed = sum(abs(result.projected - result.actual) for result in months)
        moved = sum(abs(result.actual) for result in months)
        _amount(f"{key}_abs_error", _mean(missed, count, digits), unit)
        _amount(f"{key}_abs_error_pct", _percent(missed, moved), "%")


def _amount(name: str, text: str, unit: str) -> None:
    shown = text if text == "n/a" else f"{text} {unit}".rstrip()
    print(f"{name}: {shown}", flush=True)


def _slug(account_name: str, taken: set[str]) -> str:
    """`Main Checking` → `main_checking`, made unique within the plan."""
    base = re.sub(r"[^a-z0-9]+", "_", account_name.casefold()).strip("_") or "account"
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}_{number}", number + 1
    taken.add(slug)
    return slug


def _mean(total: int, count: int, digits: int) -> str:
    """`total` milliunits ÷ `count`, in currency units rounded to `digits`, half away from zero."""
    units = Decimal(total) / count / 1000
    return str(units.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _percent(error: int, actual: int) -> str:
    """`error` as a % of |`actual`|, one decimal, half away from zero; `n/a` when `actual` is 0."""
    if actual == 0:
        return "n/a"
    return str((Decimal(error) * 100 / abs(actual)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


if __name__ == "__main__":
    main()
