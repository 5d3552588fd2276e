"""What the log says about an operation, in words: summaries and the messages of write results.

Pure functions of a row: no database, no clock.
"""

from __future__ import annotations

from tools.models import Operation

SUMMARY_LENGTH = 200

# Why a tool's operations cannot be undone, in the words of docs/undo.md#what-undo-refuses.
NOT_UNDOABLE_REASONS = {
    "import_transactions": "imports are not reversed; the imported transactions stay in YNAB, "
    "unapproved, for review",
    "create_category": "YNAB's API cannot delete a category; hiding it in YNAB is the only way back",
    "split_transaction": "YNAB's API cannot edit a split; only YNAB itself can undo it",
    "set_category_target": "the previous target is a kind YNAB's API cannot set, so it cannot come back",
}
DEFAULT_NOT_UNDOABLE_REASON = "this kind of change has no undo"


def summary(op: Operation) -> str:
    """One line for lists: the preview's first line (its question), else a short description."""
    first_line = next((line for line in op.preview.splitlines() if line.strip()), "")
    return _one_line(first_line or _description(op), SUMMARY_LENGTH)


def _description(op: Operation) -> str:
    if op.undo_of_id is not None:
        return f"Undo of operation {op.undo_of_id}"
    return op.tool.replace("_", " ").capitalize()


def _one_line(text: str, length: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[: length - 1].rstrip() + "…"


def not_undoable_reason(tool: str) -> str:
    """Why operations of `tool` cannot be undone, as a clause."""
    return NOT_UNDOABLE_REASONS.get(tool, DEFAULT_NOT_UNDOABLE_REASON)


def applied_message(op: Operation) -> str:
    """The sentence an applied write returns: its operation id and how (or why not) to undo it."""
    if op.undo_of_id is not None:
        return f"Done as operation {op.pk}, undoing {op.undo_of_id}; an undo cannot itself be undone."
    if op.undoable:
        return f"Done as operation {op.pk}; undo_operation with that id reverses it."
    return f"Done as operation {op.pk}; it cannot be undone: {not_undoable_reason(op.tool)}."


def unknown_message(op: Operation, check: str) -> str:
    """The error for a write that got no answer: it may or may not be in YNAB, and is not resent.

    `check` names the read that will tell, e.g. "Check with find_transactions."
    """
    return (
        f"No answer came back from YNAB for operation {op.pk}: the change may or may not be "
        f"in YNAB, and it is not sent again. {check}"
    )
