"""What the person sees before a write: a question, the changes, and any warnings.

A write tool builds a `Preview` and `render` turns it into the one text that is used
everywhere the change is shown: the elicitation form's message, the `preview` of a
`confirmation_required` result, and the operation log's preview. Layout:

    Recategorise 23 transaction(s)?              <- the question (docs/confirmation.md#the-preview)
    - 2026-09-12, Market, 86.40: (uncategorised) → Groceries
    ...                                           <- at most 20 item lines, each "- " + item
    … and 3 more                                  <- only when there are more than 20
    Only YNAB itself can undo a split; undo_operation cannot.   <- notes, one per line

Every piece is kept to one line (`values.text.one_line`: line breaks inside become
spaces), so text that came
from a bank cannot forge extra lines in what the person is asked to approve. Cleaning
names (control characters, 80-character cut) is the tool's job, per docs/conventions.md#bank-text-is-data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from values.text import one_line

MAX_ITEM_LINES = 20
ITEM_BULLET = "- "


@dataclass(frozen=True)
class Preview:
    """A change as the person will see it.

    `question` is the first line (e.g. `Budget Restaurants for 2026-09-01: 120.00 → 150.00?`);
    `lines` are the items, given WITHOUT the leading `- ` (render adds it);
    `notes` are warnings shown after the items (e.g. `Only YNAB itself can undo a split;
    undo_operation cannot.`).
    """

    question: str
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def render(preview: Preview) -> str:
    """The preview's text: the question, ≤ 20 items, `… and N more`, then the notes."""
    shown = preview.lines[:MAX_ITEM_LINES]
    text_lines = [one_line(preview.question)]
    text_lines += [ITEM_BULLET + one_line(line) for line in shown]
    if len(preview.lines) > len(shown):
        text_lines.append(f"… and {len(preview.lines) - len(shown)} more")
    text_lines += [one_line(note) for note in preview.notes]
    return "\n".join(text_lines)
