"""What set_category_budget and move_money say: previews and undo questions. Pure.

Amounts as CONFIRMATION.md shows them: the plan's decimal digits and separator, no symbol,
no grouping, `-` when negative (`150.00`, `-12,50`). Category names made safe (one line, at
most 80 characters): they come from YNAB and are data, never instructions.

    Budget Restaurants for 2026-09-01: 120.00 → 150.00?
    Move 30.00 from Tennis to Restaurants for 2026-09-01?
    - Tennis: assigned 80.00 → 50.00, available 32.00 → 2.00
    - Restaurants: assigned 120.00 → 150.00, available 40.00 → 70.00
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from tools.logic.assigned import Assignment
from tools.logic.money import format_amount
from tools.logic.text import safe_text
from tools.logic.transaction_lines import currency_format
from tools.ynab.snapshot import Category, PlanSnapshot

NAME_LIMIT = 80


@dataclass(frozen=True)
class AssignedWords:
    """Amounts and names as one plan shows them."""

    currency_format: dict[str, Any] | None

    @classmethod
    def of(cls, snapshot: PlanSnapshot) -> AssignedWords:
        return cls(currency_format(snapshot))

    def amount(self, milliunits: int) -> str:
        """`150.00`, `-12.50`: the plan's digits and separator, no symbol, no grouping."""
        return format_amount(milliunits, self.currency_format)

    @staticmethod
    def name(category: Category | None, fallback_id: str = "") -> str:
        """The category's name, safe to show; `category <id>` for one that is gone."""
        if category is None:
            return f"category {fallback_id}"
        return safe_text(category.name, NAME_LIMIT) or f"category {category.id}"

    # --- set_category_budget -------------------------------------------------------------

    def budget_question(self, name: str, month: date, before: int, after: int, *, undo: bool = False) -> str:
        """`Budget Restaurants for 2026-09-01: 120.00 → 150.00?`; with `undo`,
        `Undo: budget Restaurants for 2026-09-01: 150.00 → 120.00?` (before and after as undo sets them)."""
        verb = "Undo: budget" if undo else "Budget"
        return f"{verb} {name} for {month.isoformat()}: {self.amount(before)} → {self.amount(after)}?"

    # --- move_money ------------------------------------------------------------------------

    def move_question(
        self, amount: int, from_name: str, to_name: str, month: date, *, undo: bool = False
    ) -> str:
        """`Move 30.00 from Tennis to Restaurants for 2026-09-01?`; with `undo`,
        `Undo: move 30.00 from Restaurants to Tennis for 2026-09-01?` (the names as undo moves)."""
        verb = "Undo: move" if undo else "Move"
        return f"{verb} {self.amount(amount)} from {from_name} to {to_name} for {month.isoformat()}?"

    def assigned_line(
        self, name: str, before: int, after: int, available_before: int, available_after: int
    ) -> str:
        """`Tennis: assigned 80.00 → 50.00, available 32.00 → 2.00` (without the `- `)."""
        return (
            f"{name}: assigned {self.amount(before)} → {self.amount(after)}, "
            f"available {self.amount(available_before)} → {self.amount(available_after)}"
        )

    def line_of(self, change: Assignment) -> str:
        return self.assigned_line(
            self.name(change.category),
            change.before,
            change.after,
            change.available_before,
            change.available_after,
        )

    def overspent_note(self, change: Assignment) -> str | None:
        """A warning when the move leaves the source overspent (allowed, but the person should see it)."""
        if change.available_after >= 0:
            return None
        return (
            f"This leaves {self.name(change.category)} overspent by {self.amount(-change.available_after)} "
            f"for {change.month.isoformat()}."
        )
