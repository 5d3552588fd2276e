"""What the demo's parts share while they add rows: accounts, categories, the calendar."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from avenir_mcp.sandbox.budget_math.calendar import add_months
from avenir_mcp.sandbox.models import Account, Category, Transaction
from avenir_mcp.sandbox.seeding.builder import PlanBuilder
from avenir_mcp.sandbox.seeding.dates import on_day
from avenir_mcp.sandbox.seeding.labels import CREDIT_CARD, DEBIT_CARD, card_label

# Likely duplicates (docs/conventions.md#heuristics): same account, amount and merchant within 3 days.
DUPLICATE_WINDOW = timedelta(days=3)


@dataclass
class Household:
    """The demo plan being built: `months` runs from the first month to the current one."""

    build: PlanBuilder
    accounts: dict[str, Account]
    categories: dict[str, Category]
    months: list[date]
    today: date
    rng: random.Random
    # Dates already used by each (account, merchant, amount), to keep duplicates deliberate.
    _charges: dict[tuple[str, str, int], list[date]] = field(default_factory=lambda: defaultdict(list))

    @property
    def current_month(self) -> date:
        return self.months[-1]

    def day(self, month: date, day: int) -> date | None:
        """`day` of `month` (clamped to its end), or None when that is still in the future."""
        result = on_day(month, day)
        return result if result <= self.today else None

    def ago(self, days: int) -> date:
        return self.today - timedelta(days=days)

    def fresh_amount(self, account: str, merchant: str, day: date, amount: int) -> int:
        """`amount`, moved a cent away from any charge that would look like a duplicate."""
        step = -10 if amount < 0 else 10
        while any(abs(day - seen) <= DUPLICATE_WINDOW for seen in self._charges[(account, merchant, amount)]):
            amount += step
        self._charges[(account, merchant, amount)].append(day)
        return amount

    def spent(self, category: Category, month: date) -> int:
        """Activity so far of `category` in `month` (splits counted by their lines)."""
        build, total = self.build, 0
        for row in build.transactions:
            if row.category_id == category.id and (row.date.year, row.date.month) == (
                month.year,
                month.month,
            ):
                total += row.amount
        for line in build.subtransactions:
            parent = line.transaction
            if line.category_id == category.id and (parent.date.year, parent.date.month) == (
                month.year,
                month.month,
            ):
                total += line.amount
        return total

    def assigned(self, category: Category, month: date) -> int:
        row = self.build.budgets.get((category.id, month))
        return row.budgeted if row else 0

    def cleared(self, day: date, *, imported: bool, account: str = "checking") -> str:
        """Checking was reconciled through the month before last; imports arrive cleared;
        what the household typed in itself stays uncleared for its last few days."""
        if account == "checking" and day < add_months(self.current_month, -1):
            return "reconciled"
        if imported or (self.today - day).days > 3:
            return "cleared"
        return "uncleared"

    def card_purchase(
        self, account: str, merchant: str, day: date, amount: int, *, exact: bool = False, **fields
    ) -> Transaction:
        """A card payment as the bank imports it, its payee the bank's label (noise included).

        The amount moves by a cent if the same charge is within 3 days, unless `exact` (the
        one duplicate the demo means to have).
        """
        card, style = (DEBIT_CARD, self.rng.randrange(3)) if account == "checking" else (CREDIT_CARD, 1)
        label = card_label(merchant, day, card, style=style)
        if not exact:
            amount = self.fresh_amount(account, merchant, day, amount)
        fields.setdefault("cleared", self.cleared(day, imported=True, account=account))
        return self.build.transaction(self.accounts[account], day, amount, label, imported=True, **fields)
