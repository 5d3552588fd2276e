"""What a change does to the categories' available amounts, and how a preview says it
(docs/confirmation.md#what-a-change-leaves-available): pure, `int` milliunits.

YNAB's arithmetic for one category in one month: available = what the month before carried
over + assigned + activity. So a change of the assigned amount by `d` moves that month's
available by `d`, and a transaction (or a split's line) of `amount` in a category, dated in a
month, moves that category's activity, and so its available, in that month by `amount`.
The available amount before is YNAB's own figure for that month (`month_category`), never
recomputed; after is before plus what the change moves. Later months move too, through
what is carried over; a preview names the month the change is in.

- `ActivityMove`: an amount added to a category's activity on a day (a transaction line
  given a category: `+amount`; taken from one: `-amount`). `transaction_moves` gives a
  transaction's, line by line, as the plan holds it now.
- `available_shifts(snapshot, moves)`: the moves summed per category and month, as
  `AvailableShift`s (available before → after). Left out: moves that cancel out, lines with
  no category, YNAB's internal categories (Ready to Assign, Uncategorized: not a category's
  available), categories no longer in the plan, and months the plan holds no figures for.
  Credit card spending also moves the card's payment category in YNAB, by the part of it the
  spending category had funded: YNAB works that part out, and it is not shown.
- Order (`available_shifts`, and so the preview): the categories left overspent first, the
  most overspent first; then the others, the largest move first; ties by name, then month.
- Words: `shift_line` (`Dining Out for 2026-09-01: 39.00 → -11.00`), under `AVAILABLE_HEADING`,
  and `overspent_note`, naming every category left with available below zero (at most
  `MAX_OVERSPENT_NAMED`, then how many more). Amounts as docs/confirmation.md#the-preview
  shows them (`values.money.shown_amount`); names made safe (`values.text.shown_name`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.budget import is_internal
from avenir_mcp.values.money import DecimalFormat, shown_amount
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot, Transaction

AVAILABLE_HEADING = "Available, before → after:"
MAX_OVERSPENT_NAMED = 10


@dataclass(frozen=True)
class ActivityMove:
    """`amount` (milliunits, signed as YNAB's activity: money out negative) added to the activity
    of `category_id` in the month of `day`; `category_id` None for a line with no category."""

    category_id: str | None
    day: date
    amount: int


@dataclass(frozen=True)
class AvailableShift:
    """One category's available amount in a month, before and after a change (milliunits)."""

    category: Category
    month: date
    before: int
    after: int

    @property
    def overspent(self) -> bool:
        """Left with available below zero."""
        return self.after < 0


def transaction_moves(snapshot: PlanSnapshot, transaction: Transaction, *, sign: int) -> list[ActivityMove]:
    """The activity `transaction` adds as the plan holds it now (`sign` 1), or takes away (-1):
    each line of a split, else the transaction itself, in its category on its date."""
    lines = snapshot.subtransactions_of(transaction.id)
    if lines:
        return [ActivityMove(line.category_id, transaction.date, sign * line.amount) for line in lines]
    return [ActivityMove(transaction.category_id, transaction.date, sign * transaction.amount)]


def available_shifts(snapshot: PlanSnapshot, moves: Iterable[ActivityMove]) -> tuple[AvailableShift, ...]:
    """Each category and month the moves change, available before → after, in preview order."""
    moved: defaultdict[tuple[str, date], int] = defaultdict(int)
    for move in moves:
        if move.category_id is not None:
            moved[(move.category_id, move.day.replace(day=1))] += move.amount
    shifts = []
    for (category_id, month), amount in moved.items():
        category = snapshot.categories.get(category_id)
        figures = snapshot.month_category(month, category_id)
        if amount == 0 or category is None or figures is None or is_internal(snapshot, category):
            continue
        shifts.append(AvailableShift(category, month, figures.balance, figures.balance + amount))
    return tuple(sorted(shifts, key=_preview_order))


def _preview_order(shift: AvailableShift) -> tuple[bool, int, str, str, date]:
    size = shift.after if shift.overspent else -abs(shift.after - shift.before)
    return (not shift.overspent, size, shift.category.name.casefold(), shift.category.id, shift.month)


# --- what is said -------------------------------------------------------------------------------


def category_name(category: Category) -> str:
    """The category's name, safe to show; `category <id>` when nothing of it is visible."""
    return shown_name(category.name, f"category {category.id}")


def shift_line(currency: DecimalFormat | None, shift: AvailableShift) -> str:
    """`Dining Out for 2026-09-01: 39.00 → -11.00` (without the `- `)."""
    before, after = shown_amount(currency, shift.before), shown_amount(currency, shift.after)
    return f"{category_name(shift.category)} for {shift.month.isoformat()}: {before} → {after}"


def overspent_note(currency: DecimalFormat | None, shifts: Sequence[AvailableShift]) -> str | None:
    """Every category the change leaves overspent, by name, in the order given; None for none.

    `This leaves Tennis overspent by 12.00 for 2026-09-01.`, or for several `This leaves 3
    categories overspent: Tennis by 12.00 for 2026-09-01; …` (at most `MAX_OVERSPENT_NAMED`
    named, then `and N more`; `values.text.listed`).
    """
    overspent = [shift for shift in shifts if shift.overspent]
    if not overspent:
        return None
    if len(overspent) == 1:
        (shift,) = overspent
        return f"This leaves {category_name(shift.category)} overspent by {_short_of(currency, shift)}."
    named = [f"{category_name(s.category)} by {_short_of(currency, s)}" for s in overspent]
    named = named[:MAX_OVERSPENT_NAMED]
    hidden = len(overspent) - len(named)
    if hidden:
        named.append(f"and {hidden} more")
    return f"This leaves {len(overspent)} categories overspent: {listed(named)}."


def _short_of(currency: DecimalFormat | None, shift: AvailableShift) -> str:
    """`12.00 for 2026-09-01`: how far below zero it is left, and when."""
    return f"{shown_amount(currency, -shift.after)} for {shift.month.isoformat()}"
