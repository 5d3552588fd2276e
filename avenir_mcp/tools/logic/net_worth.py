"""Net worth at month ends: what the accounts held (assets) and owed (debts), month by month.

An account's balance at a month's end is its balance today minus every transaction dated
after that day (`balances_at_month_ends`), so a closed account shows what it held while it
held it, and tracking accounts count like the others. Debt-type accounts (cards, lines of
credit, loans, other liabilities) are debts: what they owe (≤ 0) is in `debts`; one that is
in credit adds to `assets`. Pure; milliunits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.flows import is_debt
from avenir_mcp.values.months import month_end
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


@dataclass(frozen=True, slots=True)
class MonthWorth:
    month: date
    assets: int
    debts: int

    @property
    def net_worth(self) -> int:
        return self.assets + self.debts


def balances_at_month_ends(snapshot: PlanSnapshot, months: Sequence[date]) -> dict[str, list[int]]:
    """Each account's balance at the end of each of `months` (oldest first), by account id."""
    ends = [month_end(month) for month in months]
    balances = {account_id: [0] * len(months) for account_id in snapshot.accounts}
    later: defaultdict[str, int] = defaultdict(int)  # moves after the end looked at, by account
    index = len(months) - 1
    for transaction in snapshot.transactions_newest_first():
        while index >= 0 and transaction.date <= ends[index]:
            _record(snapshot, balances, later, index)
            index -= 1
        if index < 0:
            return balances
        later[transaction.account_id] += transaction.amount
    while index >= 0:
        _record(snapshot, balances, later, index)
        index -= 1
    return balances


def _record(
    snapshot: PlanSnapshot, balances: dict[str, list[int]], later: dict[str, int], index: int
) -> None:
    for account_id, account in snapshot.accounts.items():
        balances[account_id][index] = account.balance - later[account_id]


def net_worth_by_month(snapshot: PlanSnapshot, months: Sequence[date]) -> tuple[list[MonthWorth], list[str]]:
    """Assets and debts at each month's end, and the accounts that count (closed ones only
    when they held something at one of those ends), in that order."""
    balances = balances_at_month_ends(snapshot, months)
    counted = [
        account_id
        for account_id, account in snapshot.accounts.items()
        if not account.closed or any(balances[account_id])
    ]
    worth = []
    for index, month in enumerate(months):
        assets = debts = 0
        for account_id in counted:
            balance = balances[account_id][index]
            if is_debt(snapshot.accounts[account_id]) and balance < 0:
                debts += balance
            else:
                assets += balance
        worth.append(MonthWorth(month, assets, debts))
    return worth, counted
