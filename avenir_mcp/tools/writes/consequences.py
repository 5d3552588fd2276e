"""The categories' available amounts a write moves, as its preview shows them
(docs/confirmation.md#what-a-change-leaves-available).

Shared by the writes that move activity (apply_categories, create_transactions,
split_transaction, and the undos of the first two): each gives the activity it moves
(`tools.logic.available.ActivityMove`), and gets the preview's `Consequences` (one line per
category and month moved, available before → after, the categories left overspent first;
`render` shows 20, then `… and N more`) and the note naming the categories left overspent.
The figures are the plan's as read for the preview; they are not part of the subject, so
activity elsewhere between the preview and the answer never makes the answer fail.
"""

from __future__ import annotations

from collections.abc import Iterable

from avenir_mcp.confirmations.preview import Consequences
from avenir_mcp.tools.logic.available import (
    AVAILABLE_HEADING,
    ActivityMove,
    available_shifts,
    overspent_note,
    shift_line,
)
from avenir_mcp.ynab_client import PlanSnapshot


def available_consequences(
    snapshot: PlanSnapshot, moves: Iterable[ActivityMove]
) -> tuple[Consequences | None, list[str]]:
    """The preview's consequences of `moves` (None when they move no category's available) and
    its notes (the overspent categories named, or none)."""
    shifts = available_shifts(snapshot, moves)
    if not shifts:
        return None, []
    currency = snapshot.settings.currency_format
    note = overspent_note(currency, shifts)
    return Consequences(AVAILABLE_HEADING, [shift_line(currency, shift) for shift in shifts]), (
        [note] if note else []
    )
