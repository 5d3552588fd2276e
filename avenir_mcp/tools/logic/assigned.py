"""Assigned amounts of categories in a month: what set_category_budget and move_money change,
and what they say.

Pure functions over a `PlanSnapshot` (no I/O, no clock), in `int` milliunits. A month is
the first day of a month, already checked against the plan by the caller.

Which categories can be budgeted (`budgetable_category`): any category of the plan (hidden
ones and credit card payment categories included: YNAB lets the person assign to them)
except YNAB's internal ones (Ready to Assign, Uncategorized, the split category). Deleted
categories are not in a snapshot, so they are refused as unknown.

- `budget_setting(snapshot, month, category_id, amount)`: the category's assigned amount set
  to `amount` (absolute), as an `AssignedChange` (`unchanged` when it already is).
- `move_refusal(from_id, to_id, amount)`: what the arguments alone refuse (before any request).
- `money_move(snapshot, month, from_id, to_id, amount)`: `amount` taken from one category's
  assigned amount and added to another's, as two `AssignedChange`s. Leaving the source overspent
  is allowed; its `available_after` shows it.
- For undo: `assignments_now(snapshot, month, logged)` compares each category an operation
  logged (`Logged`; the row's record is `tools.writes.assigned_pair.AssignedUndo`) with the plan now.
- `AssignedWords`: what set_category_budget and move_money say (previews, undo questions).
  Amounts as docs/confirmation.md#the-preview shows them: the plan's decimal digits and
  separator, no symbol, no grouping, `-` when negative (`150.00`, `-12,50`). Category names
  made safe (one line, at most 80 characters): they come from YNAB and are data, never
  instructions. Each category changed gets a line with its assigned and available amounts
  before → after (`line_of`), and a category left overspent is named in a note
  (`overspent_note`, `tools.logic.available`'s words).

      Budget Restaurants for 2026-09-01: 120.00 → 50.00?
      - Restaurants: assigned 120.00 → 50.00; available 40.00 → -30.00
      This leaves Restaurants overspent by 30.00 for 2026-09-01.

      Move 30.00 from Tennis to Restaurants for 2026-09-01?
      - Tennis: assigned 80.00 → 50.00; available 32.00 → 2.00
      - Restaurants: assigned 120.00 → 150.00; available 40.00 → 70.00
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from avenir_mcp.tools.logic.available import AvailableShift, category_name, overspent_note
from avenir_mcp.tools.logic.budget import is_internal
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.money import DecimalFormat, shown_amount
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import listed, quoted
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot

CATEGORY_SOURCE = "get_category_balances"
READY_TO_ASSIGN_PREFIX = "Inflow:"  # "Inflow: Ready to Assign" (formerly "Inflow: To be Budgeted")


@dataclass(frozen=True)
class AssignedChange:
    """One category's assigned amount in a month, as it is and as it would be (milliunits).

    `available_before` is the category's available balance that month; a change of the
    assigned amount moves it by the same amount.
    """

    category: Category
    month: date
    before: int
    after: int
    available_before: int

    @property
    def category_id(self) -> str:
        return self.category.id

    @property
    def available_after(self) -> int:
        return self.available_before + (self.after - self.before)

    @property
    def unchanged(self) -> bool:
        return self.before == self.after

    @property
    def available(self) -> AvailableShift:
        """Its available amount that month, before → after."""
        return AvailableShift(self.category, self.month, self.available_before, self.available_after)

    def logged(self) -> Logged:
        """What the operation log keeps of it: the category, before and after."""
        return Logged(self.category.id, self.before, self.after)


@dataclass(frozen=True)
class MoneyMove:
    """`amount` moved from `source` to `destination` (their assigned amounts, in one month)."""

    month: date
    amount: int
    source: AssignedChange
    destination: AssignedChange


def budgetable_category(snapshot: PlanSnapshot, category_id: str) -> Category:
    """The category, when money can be assigned to it; else a `Refusal` saying what to give."""
    category = snapshot.categories.get(category_id)
    if category is None:
        raise not_in_plan("category", category_id, CATEGORY_SOURCE)
    if is_internal(snapshot, category):
        raise _internal_refusal(category)
    return category


def _internal_refusal(category: Category) -> Refusal:
    shown = quoted(category.name, 40)
    if category.name.startswith(READY_TO_ASSIGN_PREFIX):
        return Refusal(
            f"Category {shown} is Ready to Assign, which follows from what the categories are assigned: "
            "to give a category money from it, raise that category's amount with set_category_budget."
        )
    return Refusal(
        f"Category {shown} is one of YNAB's internal categories and takes no assigned money; "
        f"choose a category from {CATEGORY_SOURCE}."
    )


def assignment(
    snapshot: PlanSnapshot, month: date, category: Category, after: int | None = None
) -> AssignedChange:
    """`category`'s assigned and available amounts in `month` (zero when YNAB has none), to `after`."""
    figures = snapshot.month_category(month, category.id)
    before = figures.budgeted if figures is not None else 0
    available = figures.balance if figures is not None else 0
    return AssignedChange(category, month, before, before if after is None else after, available)


def budget_setting(snapshot: PlanSnapshot, month: date, category_id: str, amount: int) -> AssignedChange:
    """The category's assigned amount in `month` set to `amount` (absolute, milliunits)."""
    return assignment(snapshot, month, budgetable_category(snapshot, category_id), amount)


def move_refusal(from_category_id: str, to_category_id: str, amount: int) -> Refusal | None:
    """Why these arguments cannot describe a move, before the plan is read, for the caller to
    raise; None when they can."""
    if from_category_id == to_category_id:
        return Refusal(
            f"from_category_id and to_category_id are the same category ({quoted(from_category_id, 40)}): "
            "give two different categories."
        )
    if amount <= 0:
        return Refusal(
            "amount must be above zero: it is what leaves from_category_id for to_category_id "
            "(to move money the other way, swap the two categories)."
        )
    return None


def money_move(
    snapshot: PlanSnapshot, month: date, from_category_id: str, to_category_id: str, amount: int
) -> MoneyMove:
    """`amount` (> 0) moved between two different categories' assigned amounts in `month`."""
    refusal = move_refusal(from_category_id, to_category_id, amount)
    if refusal is not None:
        raise refusal
    source = assignment(snapshot, month, budgetable_category(snapshot, from_category_id))
    destination = assignment(snapshot, month, budgetable_category(snapshot, to_category_id))
    return MoneyMove(
        month=month,
        amount=amount,
        source=_shifted(source, -amount),
        destination=_shifted(destination, amount),
    )


def _shifted(now: AssignedChange, by: int) -> AssignedChange:
    return AssignedChange(now.category, now.month, now.before, now.before + by, now.available_before)


# --- undo -------------------------------------------------------------------------------------

ItemState = Literal["restore", "already_as_before", "conflict"]


@dataclass(frozen=True)
class Logged:
    """One category's assigned amount as an operation logged it: before and after (milliunits)."""

    category_id: str
    before: int
    after: int


@dataclass(frozen=True)
class AssignedNow:
    """A logged assignment compared with the plan now.

    `category` is None when the category was deleted since; `assigned` and `available` are
    its figures in the month now; `state` is what undo may do with it (docs/undo.md):
    still as the operation left it → `restore`; back at its value before → `already_as_before`;
    anything else → `conflict`, never touched.
    """

    logged: Logged
    category: Category | None
    assigned: int | None
    available: int | None
    state: ItemState


PairOutcome = Literal["nothing_moved", "half_done", "unknown"]


def assignments_now(snapshot: PlanSnapshot, month: date, logged: Sequence[Logged]) -> tuple[AssignedNow, ...]:
    """Each logged assignment next to the plan now, with what undo may do with it."""
    return tuple(_now(snapshot, month, item) for item in logged)


def _now(snapshot: PlanSnapshot, month: date, item: Logged) -> AssignedNow:
    category = snapshot.categories.get(item.category_id)
    if category is None:
        return AssignedNow(item, None, None, None, "conflict")
    now = assignment(snapshot, month, category)
    return AssignedNow(item, category, now.before, now.available_before, _state(now.before, item))


def _state(assigned: int, item: Logged) -> ItemState:
    if assigned == item.before:
        return "already_as_before"
    if assigned == item.after:
        return "restore"
    return "conflict"


def standing_together(items: Sequence[AssignedNow]) -> tuple[AssignedNow, ...]:
    """move_money's rule: the two categories are restored together or not at all.

    Restoring one alone while the other changed since would shift Ready to Assign, so a
    conflict on either makes both conflicts. A category already back at its value before
    is no conflict: putting the other back alone returns both to where the move found them
    (this is also how the half of a move that landed is undone).
    """
    if any(item.state == "conflict" for item in items):
        return tuple(AssignedNow(i.logged, i.category, i.assigned, i.available, "conflict") for i in items)
    return tuple(items)


# --- what is said ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignedWords:
    """Amounts and names as one plan shows them: amounts are `values.money.shown_amount` in
    the plan's currency format (`150.00`, `-12,50`)."""

    currency: DecimalFormat | None

    @classmethod
    def of(cls, snapshot: PlanSnapshot) -> AssignedWords:
        return cls(snapshot.settings.currency_format)

    @staticmethod
    def name(category: Category | None, fallback_id: str = "") -> str:
        """The category's name, safe to show; `category <id>` for one that is gone."""
        if category is None:
            return f"category {fallback_id}"
        return category_name(category)

    def shift(self, before: int, after: int) -> str:
        """`120.00 → 150.00`."""
        return f"{shown_amount(self.currency, before)} → {shown_amount(self.currency, after)}"

    # --- set_category_budget -------------------------------------------------------------

    def budget_question(self, name: str, month: date, before: int, after: int, *, undo: bool = False) -> str:
        """`Budget Restaurants for 2026-09-01: 120.00 → 150.00?`; with `undo`,
        `Undo: budget Restaurants for 2026-09-01: 150.00 → 120.00?` (before and after as undo sets them)."""
        verb = "Undo: budget" if undo else "Budget"
        return f"{verb} {name} for {month.isoformat()}: {self.shift(before, after)}?"

    # --- move_money ------------------------------------------------------------------------

    def move_question(
        self, amount: int, from_name: str, to_name: str, month: date, *, undo: bool = False
    ) -> str:
        """`Move 30.00 from Tennis to Restaurants for 2026-09-01?`; with `undo`,
        `Undo: move 30.00 from Restaurants to Tennis for 2026-09-01?` (the names as undo moves)."""
        verb = "Undo: move" if undo else "Move"
        moved = shown_amount(self.currency, amount)
        return f"{verb} {moved} from {from_name} to {to_name} for {month.isoformat()}?"

    def assigned_line(
        self, name: str, before: int, after: int, available_before: int, available_after: int
    ) -> str:
        """`Tennis: assigned 80.00 → 50.00; available 32.00 → 2.00` (without the `- `)."""
        shifts = [
            f"assigned {self.shift(before, after)}",
            f"available {self.shift(available_before, available_after)}",
        ]
        return f"{name}: {listed(shifts)}"

    def line_of(self, change: AssignedChange) -> str:
        return self.assigned_line(
            self.name(change.category),
            change.before,
            change.after,
            change.available_before,
            change.available_after,
        )

    def overspent_note(self, *changes: AssignedChange) -> str | None:
        """A warning naming each category the change leaves overspent (allowed, but the person
        should see it), in the order given: `This leaves Tennis overspent by 12.00 for 2026-09-01.`"""
        return overspent_note(self.currency, [change.available for change in changes])
