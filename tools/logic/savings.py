"""The savings rate: how much of the income was not spent, month by month.

Over on-budget accounts, line by line (Starting Balances left out):
- **income**: lines categorised to Ready to Assign that are not transfers (pay, benefits);
- **spending**: every other line that is not a transfer, net (refunds deducted), plus money
  sent to tracking loans (a loan payment is spent);
- money sent to **tracking assets** (a retirement fund) is saved, not spent
  (`moved_to_tracking`, positive when money went there);
- transfers between on-budget accounts are left out (a card payment: the purchase counted).

saved = income + spending; rate = saved ÷ income × 100, in tenths of a percent, None
without income. Pure; milliunits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from tools.logic.budget import round_half_away_from_zero
from tools.logic.flows import is_debt, lines, transactions_in_months
from tools.logic.recategorise import is_ready_to_assign
from tools.ynab.snapshot import PlanSnapshot


@dataclass(frozen=True, slots=True)
class MonthSavings:
    month: date
    income: int
    spending: int
    moved_to_tracking: int

    @property
    def saved(self) -> int:
        return self.income + self.spending

    @property
    def rate_tenths(self) -> int | None:
        return rate_tenths(self.saved, self.income)


def rate_tenths(saved: int, income: int) -> int | None:
    """saved ÷ income × 100 in tenths of a percent, halves away from zero; None without income."""
    if income <= 0:
        return None
    return round_half_away_from_zero(saved * 1000, income)


def savings_by_month(snapshot: PlanSnapshot, months: Sequence[date]) -> list[MonthSavings]:
    ready = {c.id for c in snapshot.categories.values() if is_ready_to_assign(snapshot, c)}
    income = dict.fromkeys(months, 0)
    spending = dict.fromkeys(months, 0)
    moved = dict.fromkeys(months, 0)
    for transaction in transactions_in_months(snapshot, months):
        account = snapshot.accounts.get(transaction.account_id)
        if account is None or not account.on_budget:
            continue
        month = transaction.date.replace(day=1)
        for line in lines(snapshot, transaction):
            other = snapshot.accounts.get(line.transfer_account_id or "")
            if other is None:
                if line.category_id in ready:
                    income[month] += line.amount
                else:
                    spending[month] += line.amount
            elif not other.on_budget and is_debt(other):
                spending[month] += line.amount
            elif not other.on_budget:
                moved[month] -= line.amount
    return [MonthSavings(month, income[month], spending[month], moved[month]) for month in months]
