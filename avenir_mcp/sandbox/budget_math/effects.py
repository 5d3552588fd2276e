"""What one transaction does to the plan's figures: account balances and category activity.

The ledger keeps `Account.cleared_balance` / `uncleared_balance` and `MonthCategory.activity`
materialised. Every write computes `transaction_effects` of the transaction as it was and as
it is, and applies the difference; `rebuild_derived` sums the effects of every transaction.
Because both paths use this one function they cannot disagree.

Rules (milliunits; a "line" is the transaction itself, or each subtransaction of a split):

- Balances: the whole amount counts on its account, in `cleared_balance` when the transaction
  is cleared or reconciled, else in `uncleared_balance`. Subtransactions never count twice.
- Off-budget (tracking) accounts move no category.
- A line that transfers to another on-budget account carries no category. On a credit card
  it is a payment (or a charge moved between cards): the card's payment category gets
  `-amount` as activity (a payment of 50 into the card is -50 of payment activity).
- A line categorised "Inflow: Ready to Assign" is income: activity of that category.
- An uncategorised line is activity of "Uncategorized", except a credit card's own
  "Starting Balance" debt, which is debt brought into the plan and moves no category.
- An ordinary category gets the amount as activity. On a credit card the same amount moves
  from the spending category into the card's payment category (`-amount` there): the money
  set aside for groceries now waits to pay the card. The whole amount moves, even when the
  category is overspent (the sandbox does not split credit overspending off).
- A credit-card payment category put on a line directly (only seed data can) is its activity.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

from avenir_mcp.sandbox.budget_math.calendar import month_of


@dataclass(frozen=True)
class Line:
    """What moves a category: the transaction itself, or one subtransaction of a split."""

    amount: int
    category_id: str | None
    transfer_account_id: str | None = None


@dataclass(frozen=True)
class TransactionView:
    """A (non-deleted) transaction as the arithmetic needs it."""

    account_id: str
    date: date
    amount: int
    cleared: str
    payee_id: str | None
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class AccountRules:
    on_budget: bool
    # Set for credit cards: the "Credit Card Payments" category that pays this card.
    payment_category_id: str | None = None


@dataclass(frozen=True)
class PlanRules:
    """The plan facts the arithmetic depends on, loaded once per write or rebuild."""

    accounts: Mapping[str, AccountRules]
    ready_to_assign_id: str
    uncategorized_id: str
    # Categories that are neither internal nor credit-card payment categories.
    ordinary_category_ids: frozenset[str]
    starting_balance_payee_id: str | None = None

    @cached_property
    def payment_category_ids(self) -> frozenset[str]:
        return frozenset(a.payment_category_id for a in self.accounts.values() if a.payment_category_id)


@dataclass
class Effects:
    """Balance changes per (account, cleared?) and activity changes per (category, month)."""

    balances: dict[tuple[str, bool], int] = field(default_factory=lambda: defaultdict(int))
    activity: dict[tuple[str, date], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, other: Effects, sign: int = 1) -> None:
        """Add `other` (or subtract it, with sign=-1) into these effects."""
        for key, amount in other.balances.items():
            self.balances[key] += sign * amount
        for key, amount in other.activity.items():
            self.activity[key] += sign * amount

    def nonzero(self) -> Effects:
        """The same effects without the entries that cancelled out."""
        result = Effects()
        result.balances.update({k: v for k, v in self.balances.items() if v})
        result.activity.update({k: v for k, v in self.activity.items() if v})
        return result


def transaction_effects(view: TransactionView | None, rules: PlanRules) -> Effects:
    """The balances and activity one transaction accounts for (nothing when deleted: None)."""
    effects = Effects()
    if view is None:
        return effects
    cleared = view.cleared in ("cleared", "reconciled")
    effects.balances[(view.account_id, cleared)] += view.amount
    account = rules.accounts.get(view.account_id)
    if account is None or not account.on_budget:
        return effects
    month = month_of(view.date)
    for line in view.lines:
        for category_id, amount in _line_activity(line, view, account, rules):
            effects.activity[(category_id, month)] += amount
    return effects


def total_effects(views: Iterable[TransactionView], rules: PlanRules) -> Effects:
    """The summed effects of many transactions (what `rebuild_derived` writes)."""
    total = Effects()
    for view in views:
        total.add(transaction_effects(view, rules))
    return total


def _line_activity(
    line: Line, view: TransactionView, account: AccountRules, rules: PlanRules
) -> list[tuple[str, int]]:
    card_payment = account.payment_category_id
    if line.transfer_account_id is not None:
        other = rules.accounts.get(line.transfer_account_id)
        if other is not None and other.on_budget:
            return [(card_payment, -line.amount)] if card_payment else []
    category_id = line.category_id
    if category_id in rules.ordinary_category_ids:
        if card_payment:
            return [(category_id, line.amount), (card_payment, -line.amount)]
        return [(category_id, line.amount)]
    if category_id == rules.ready_to_assign_id or category_id in rules.payment_category_ids:
        return [(category_id, line.amount)]
    # Uncategorised: no category, "Uncategorized" itself, or one no line may carry (split).
    if card_payment and view.payee_id and view.payee_id == rules.starting_balance_payee_id:
        return []
    return [(rules.uncategorized_id, line.amount)]
