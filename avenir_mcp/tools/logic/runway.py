"""How long the money at hand would last: liquid money, and what a month usually costs.

- **Liquid** (`liquid`): the open on-budget checking, savings (unless left out) and cash
  accounts, minus what the open on-budget cards and lines of credit owe.
- **Spending** (`money_out`): money out of on-budget accounts in each complete month, line
  by line: refunds are not deducted; Starting Balances, transfers between on-budget
  accounts (a card payment: the purchase already counted) and transfers to tracking assets
  (saving) are left out; payments to tracking loans count. The essential part is the
  lines whose category is in the essential groups.
- **Runway** (`runway_tenths`): liquid ÷ average monthly spending, in tenths of a month.

Pure; milliunits, money out negative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.flows import CARD_TYPES, CASH_TYPES, is_debt, month_lines, plan_facts
from avenir_mcp.values.money import round_half_away_from_zero
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot


@dataclass(frozen=True, slots=True)
class MonthOut:
    month: date
    spending: int  # ≤ 0
    essential: int  # ≤ 0, the part in essential groups


@dataclass(frozen=True, slots=True)
class Liquid:
    counted: tuple[Account, ...]  # cash accounts and the cards that owe
    left_out: tuple[tuple[Account, str], ...]  # (account, why)
    cash: int
    owed_on_cards: int  # ≥ 0

    @property
    def total(self) -> int:
        return self.cash - self.owed_on_cards


def liquid(snapshot: PlanSnapshot, *, include_savings: bool) -> Liquid:
    counted, left_out = [], []
    cash = owed = 0
    for account in sorted(snapshot.accounts.values(), key=lambda a: (a.name.casefold(), a.id)):
        if account.closed:
            continue
        if not account.on_budget:
            left_out.append((account, "tracking account"))
        elif account.type == "savings" and not include_savings:
            left_out.append((account, "savings left out"))
        elif account.type in CASH_TYPES:
            counted.append(account)
            cash += account.balance
        elif account.type in CARD_TYPES:
            if account.balance < 0:
                counted.append(account)
                owed -= account.balance
        else:
            left_out.append((account, "not cash"))
    return Liquid(tuple(counted), tuple(left_out), cash, owed)


def money_out(
    snapshot: PlanSnapshot, months: Sequence[date], essential_categories: set[str]
) -> list[MonthOut]:
    """Each month's money out of on-budget accounts, and its essential part (module docstring)."""
    facts = plan_facts(snapshot)
    on_budget = {account_id for account_id, account in facts.accounts.items() if account.on_budget}
    counted_transfers = {
        account_id
        for account_id, account in facts.accounts.items()
        if not account.on_budget and is_debt(account)
    }
    found = []
    for month in months:
        spending = essential = 0
        for line in month_lines(snapshot, facts, month, on_budget):
            if line.amount >= 0:
                continue
            other = line.transfer_account_id
            if other is not None and other in facts.accounts and other not in counted_transfers:
                continue  # to an on-budget account, or saved in a tracking asset
            spending += line.amount
            if line.category_id in essential_categories:
                essential += line.amount
        found.append(MonthOut(month, spending, essential))
    return found


def runway_tenths(liquid_total: int, monthly_spending: int) -> int | None:
    """liquid ÷ −monthly_spending in tenths of a month, halves away from zero; 0 with nothing
    liquid; None when nothing is spent (no runway to measure)."""
    if monthly_spending >= 0:
        return None
    if liquid_total <= 0:
        return 0
    return round_half_away_from_zero(liquid_total * 10, -monthly_spending)
