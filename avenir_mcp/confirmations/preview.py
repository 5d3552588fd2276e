"""What the person sees before a write: a question, the changes, what they leave, and warnings.

A write tool builds a `Preview` and `render` turns it into the one text that is used
everywhere the change is shown: the elicitation form's message, the `preview` of a
`confirmation_required` result, and the operation log's preview. Layout:

    Recategorise 23 transaction(s)?              <- the question (docs/confirmation.md#the-preview)
    - 2026-09-12; Market; 86.40: (uncategorised) → Groceries
    ...                                           <- at most 20 item lines, each "- " + item
    … and 3 more                                  <- only when there are more than 20
    Available, before → after:                    <- the consequences' heading, when there are some
    - Groceries for 2026-08-01: 5.00 → -2.00      <- at most 20 lines, then "… and N more" too
    - Groceries for 2026-09-01: 100.00 → 13.60
    This leaves Groceries overspent by 2.00 for 2026-08-01.     <- notes, one per line

Every piece is kept to one line (`values.text.one_line`: line breaks inside become
spaces), so text that came
from a bank cannot forge extra lines in what the person is asked to approve. Cleaning
names (control characters, 80-character cut) is the tool's job, per docs/conventions.md#bank-text-is-data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from avenir_mcp.values.text import one_line

MAX_ITEM_LINES = 20
ITEM_BULLET = "- "


@dataclass(frozen=True)
class Consequences:
    """What a change leaves, shown after its items: a heading (e.g. `Available, before → after:`)
    and one line per thing it moves, given WITHOUT the leading `- `, in the order to show
    (the most important first: only the first `MAX_ITEM_LINES` are shown)."""

    heading: str
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Preview:
    """A change as the person will see it.

    `question` is the first line (e.g. `Budget Restaurants for 2026-09-01: 120.00 → 150.00?`);
    `lines` are the items, given WITHOUT the leading `- ` (render adds it);
    `consequences` what the change leaves (docs/confirmation.md#what-a-change-leaves-available),
    None or without lines when there is nothing to say;
    `notes` are warnings shown after the items (e.g. `Only YNAB itself can undo a split;
    undo_operation cannot.`).
    """

    question: str
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    consequences: Consequences | None = None


def render(preview: Preview) -> str:
    """The preview's text: the question, ≤ 20 items, the consequences (≤ 20), then the notes."""
    text_lines = [one_line(preview.question), *_bulleted(preview.lines)]
    if preview.consequences is not None and preview.consequences.lines:
        text_lines.append(one_line(preview.consequences.heading))
        text_lines += _bulleted(preview.consequences.lines)
    text_lines += [one_line(note) for note in preview.notes]
    return "\n".join(text_lines)


def _bulleted(lines: list[str]) -> list[str]:
    """At most `MAX_ITEM_LINES` lines, each `- ` + one line, then `… and N more`."""
    shown = [ITEM_BULLET + one_line(line) for line in lines[:MAX_ITEM_LINES]]
    if len(lines) > MAX_ITEM_LINES:
        shown.append(f"… and {len(lines) - MAX_ITEM_LINES} more")
    return shown
