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

from avenir_mcp.tools.logic.flows import is_debt, month_lines, plan_facts
from avenir_mcp.tools.logic.recategorise import is_ready_to_assign
from avenir_mcp.values.money import round_half_away_from_zero
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


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
    facts = plan_facts(snapshot)
    ready = {c.id for c in snapshot.categories.values() if is_ready_to_assign(snapshot, c)}
    on_budget = {account_id for account_id, account in facts.accounts.items() if account.on_budget}
    found = []
    for month in months:
        income = spending = moved = 0
        for line in month_lines(snapshot, facts, month, on_budget):
            other = facts.accounts.get(line.transfer_account_id) if line.transfer_account_id else None
            if other is None:
                if line.category_id in ready:
                    income += line.amount
                else:
                    spending += line.amount
            elif not other.on_budget and is_debt(other):
                spending += line.amount
            elif not other.on_budget:
                moved -= line.amount
        found.append(MonthSavings(month, income, spending, moved))
    return found
