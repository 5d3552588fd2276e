"""What an undo says: its preview, and its messages. Pure functions of an `UndoPlan`.

Preview (docs/undo.md#the-preview): `Undo: ` + the original question reversed (the handler's
`question`), one line per item that will be restored, then the items changed since, by
name, which the undo leaves alone:

    Undo: recategorise 2 transaction(s)?
    - 2026-09-12, Market, 86.40: Groceries → (uncategorised)
    - 2026-09-13, Bakery, 4.20: Groceries → (uncategorised)
    Left as they are, changed since: 2026-09-14, Cinema (its category is now Leisure).
    Already as before, nothing to do: 1 item(s).
"""

from __future__ import annotations

from confirmations.preview import MAX_ITEM_LINES, Preview
from tools.models import Operation
from tools.undo.registry import Conflict, UndoPlan

LEFT_ALONE = "Left as it is, changed since"


def undo_preview(plan: UndoPlan) -> Preview:
    """The question, the items to restore, then the conflicts by name and the handler's notes."""
    notes = [*conflict_lines(plan.conflicts), *plan.notes]
    if plan.already_as_before:
        notes.append(f"Already as before, nothing to do: {plan.already_as_before} item(s).")
    return Preview(question=plan.question, lines=list(plan.lines), notes=notes)


def conflict_lines(conflicts: tuple[Conflict, ...]) -> list[str]:
    """One line per conflict (at most 20, then how many more), each naming the item and why."""
    shown = [f"{LEFT_ALONE}: {conflict.name} ({conflict.reason})." for conflict in conflicts[:MAX_ITEM_LINES]]
    hidden = len(conflicts) - len(shown)
    if hidden > 0:
        shown.append(f"… and {hidden} more left as they are, changed since.")
    return shown


def nothing_to_restore_message(op: Operation, plan: UndoPlan) -> str:
    """Why undoing `op` writes nothing: every item is already as before, or changed since."""
    parts = []
    if plan.already_as_before:
        parts.append(f"{plan.already_as_before} item(s) already as before")
    if plan.conflicts:
        names = ", ".join(conflict.name for conflict in plan.conflicts[:3])
        more = f" and {len(plan.conflicts) - 3} more" if len(plan.conflicts) > 3 else ""
        parts.append(f"{len(plan.conflicts)} changed since and left as they are ({names}{more})")
    found = "; ".join(parts) if parts else "nothing of it is left in YNAB"
    return (
        f"Nothing to undo in operation {op.pk}: {found}. Nothing was written, "
        f"and {op.pk} keeps its status ({op.status})."
    )
