"""Paying debts off: which debts, on what terms, and month by month under a strategy.

Debts are the open debt-type accounts that owe money, with YNAB's terms in force today
(the latest rate, minimum payment and escrow dated on or before today), unless the person
overrides them. Rates are YNAB's unit: thousandths of a percent a year (3.9 % = 3900).

Each month (`simulate`), for every debt still owed: interest = owed × rate ÷ 12, rounded
once to the plan's smallest unit, halves away from zero (`values.money.round_to_unit`,
docs/conventions.md#rounding); the escrow part of a payment is paid (it reduces nothing);
then each debt's minimum (less escrow) is paid; then what is left of the monthly budget
goes to the first debt in strategy order (avalanche: highest rate first; snowball: smallest
balance first, both fixed at the start), then the next.
A paid-off debt's minimum thus rolls over to the next one. Pure; milliunits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from avenir_mcp.tools.logic.flows import complete_months, is_debt, transactions_in_months
from avenir_mcp.values.money import round_to_unit
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot

Strategy = Literal["avalanche", "snowball"]
Source = Literal["ynab", "override", "missing"]
PAST_MONTHS = 3
_RATE_SCALE = 100_000 * 12  # thousandths of a percent a year → a fraction per month


@dataclass(frozen=True, slots=True)
class Debt:
    account: Account
    owed: int  # > 0, a magnitude
    rate: int | None  # thousandths of a percent a year
    rate_from: Source
    minimum: int | None
    minimum_from: Source
    escrow: int


@dataclass(frozen=True, slots=True)
class DebtPayoff:
    debt: Debt
    months: int | None  # the month it is paid off in, counted from 1; None: not within the limit
    interest: int
    paid: int


@dataclass(frozen=True, slots=True)
class PayoffPlan:
    strategy: Strategy
    debts: tuple[DebtPayoff, ...]
    months: int | None
    total_interest: int
    total_paid: int


def in_force(values: Sequence[tuple[date, int]], today: date) -> int | None:
    """The value dated latest on or before `today` (YNAB's periodic values), else None."""
    current = None
    for since, value in sorted(values):
        if since <= today:
            current = value
    return current


def debts_of(snapshot: PlanSnapshot, today: date) -> list[Debt]:
    """The open debt-type accounts that owe money, with YNAB's terms in force today, by name."""
    found = []
    for account in snapshot.accounts.values():
        if account.closed or not is_debt(account) or account.balance >= 0:
            continue
        rate = in_force(account.debt_interest_rates, today)
        minimum = in_force(account.debt_minimum_payments, today)
        found.append(
            Debt(
                account=account,
                owed=-account.balance,
                rate=rate,
                rate_from="ynab" if rate is not None else "missing",
                minimum=minimum,
                minimum_from="ynab" if minimum is not None else "missing",
                escrow=in_force(account.debt_escrow_amounts, today) or 0,
            )
        )
    return sorted(found, key=lambda debt: (debt.account.name.casefold(), debt.account.id))


def past_payments(snapshot: PlanSnapshot, debts: Sequence[Debt], today: date, decimal_digits: int) -> int:
    """The average paid into the debts a month over the last 3 complete months (≥ 0):
    money transferred into them, whatever came from where, rounded once to the plan's
    smallest unit (300.01 over 3 months is 100.00 a month, never 100.003)."""
    months = complete_months(today, PAST_MONTHS, date.min)
    ids = {debt.account.id for debt in debts}
    paid = sum(
        t.amount
        for t in transactions_in_months(snapshot, months)
        if t.account_id in ids and t.transfer_account_id is not None and t.amount > 0
    )
    return round_to_unit(paid, decimal_digits, divided_by=PAST_MONTHS)


def order(debts: Sequence[Debt], strategy: Strategy) -> list[Debt]:
    if strategy == "avalanche":
        return sorted(debts, key=lambda d: (-(d.rate or 0), d.owed, d.account.name.casefold(), d.account.id))
    return sorted(debts, key=lambda d: (d.owed, -(d.rate or 0), d.account.name.casefold(), d.account.id))


def monthly_interest(owed: int, rate: int | None, decimal_digits: int) -> int:
    """owed × rate ÷ 12 (rate in thousandths of a percent a year), rounded once to the plan's
    smallest unit."""
    if not rate or owed <= 0:
        return 0
    return round_to_unit(owed * rate, decimal_digits, divided_by=_RATE_SCALE)


def simulate(
    debts: Sequence[Debt], budget: int, strategy: Strategy, max_months: int, decimal_digits: int
) -> PayoffPlan:
    """Pay the debts with `budget` a month under `strategy` (module docstring)."""
    ranked = order(debts, strategy)
    owed = {d.account.id: d.owed for d in ranked}
    interest = dict.fromkeys(owed, 0)
    paid = dict.fromkeys(owed, 0)
    done: dict[str, int] = {}
    month = 0
    while len(done) < len(ranked) and month < max_months:
        month += 1
        left = budget
        active = [d for d in ranked if d.account.id not in done]
        for debt in active:
            charge = monthly_interest(owed[debt.account.id], debt.rate, decimal_digits)
            owed[debt.account.id] += charge
            interest[debt.account.id] += charge
        for debt in active:
            escrow = min(debt.escrow, left)
            left -= escrow
            paid[debt.account.id] += escrow
        for debt in active:
            due = max(0, (debt.minimum or 0) - debt.escrow)
            left -= _pay(debt, min(due, left), owed, paid)
        for debt in active:
            left -= _pay(debt, left, owed, paid)
        for debt in active:
            if owed[debt.account.id] == 0:
                done[debt.account.id] = month
    outcomes = tuple(
        DebtPayoff(d, done.get(d.account.id), interest[d.account.id], paid[d.account.id]) for d in ranked
    )
    return PayoffPlan(
        strategy=strategy,
        debts=outcomes,
        months=month if len(done) == len(ranked) else None,
        total_interest=sum(interest.values()),
        total_paid=sum(paid.values()),
    )


def _pay(debt: Debt, amount: int, owed: dict[str, int], paid: dict[str, int]) -> int:
    payment = max(0, min(amount, owed[debt.account.id]))
    owed[debt.account.id] -= payment
    paid[debt.account.id] += payment
    return payment
