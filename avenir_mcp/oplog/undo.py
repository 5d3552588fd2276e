"""Undo: what undoing an operation would do now, and what it says (docs/undo.md).

An undoable write tool plans and sends its own undo, in its `WriteKind` (`oplog.kinds`; the
tool's object in `avenir_mcp/tools/writes/<tool>.py`):

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal:
        ...   # pure: compare op.undo_data with the fresh snapshot, item by item

    async def undo(self, client, snapshot, op, reversal: Reversal) -> UndoRecord:
        ...   # the YNAB request(s) restoring reversal.restorable; returns the undo row's undo data

`undo_operation` (and the admin's Undo button) calls `reversal` on a fresh snapshot to build
the preview, asks the person, claims the operation (`log.claim_for_undo`: of two concurrent
undos one proceeds), then calls `undo` with that same reversal (computed once per snapshot).
Everything around it (asking, the log rows, the claim and its release) is `oplog.undo_write`'s;
a tool only decides and writes.

The rule every tool's `reversal` follows, item by item (docs/undo.md#the-rule):

- still exactly as the operation left it → restorable (in `restorable`, with a preview line);
- already at its value before the operation → counted in `already_as_before` (this also
  covers an `unknown` operation whose write never landed);
- anything else (changed since, deleted, now a split, ...) → a `Conflict`: never touched,
  reported by name with the reason. Where docs/undo.md#the-rule says items stand or fall together
  (`move_money`: both categories), a conflict on one makes every item a conflict.

`item_state(current, before=, after=)` is that comparison for one value; `ReversalItems` gathers
the sorted items into the `Reversal`. `reversal` must be pure
(no I/O, no clock): it is called once per snapshot read, for the preview and then `undo`
(after a long question the plan is read again and `reversal` called on the fresh snapshot; the two
must agree whenever the plan did not change).

`undo` contract:
- send only what `reversal.restorable` lists, through `client` (never resend a write);
- return the undo row's undo data, an `UndoRecord` (ids and before values, no payee names,
  memos or transaction amounts), e.g. `UndoRecord(restored=({"transaction_id": ..., ...},))`;
- on failure raise the client's errors as they come: `UnknownOutcome` (no answer: the undo
  row becomes `unknown`), `YnabError` (refused: the undo row becomes `failed`). When several
  writes are needed and a later one fails, first put back what already landed (the same
  rollback as the tool's own, e.g. move_money); if even that fails, raise
  `WriteFailed` (`tools.writes.flow`) saying exactly what landed and what to set in YNAB by hand.
  In every failure case the operation's claim is released, so the person can try the undo
  again: it re-reads the plan and restores only what is still as the operation left it.

What the undo relies on in the original row: `op.undo_data`, written by the tool as its undo needs
(docs/undo.md#per-tool). It must be recorded for an `unknown` outcome too (the values are known before the
request is sent), or an unknown operation cannot be undone.

What an undo says (`undo_preview`, `nothing_to_restore_message`) is a pure function of the
`Reversal`: Preview (docs/undo.md#the-preview): `Undo: ` + the original question reversed (the tool's
`question`), one line per item that will be restored, then the items changed since, by
name, which the undo leaves alone:

    Undo: recategorise 2 transaction(s)?
    - 2026-09-12; Market; 86.40: Groceries → (uncategorised)
    - 2026-09-13; Bakery; 4.20: Groceries → (uncategorised)
    Left as they are, changed since: 2026-09-14, Cinema (its category is now Leisure).
    Already as before, nothing to do: 1 item(s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from avenir_mcp.confirmations.preview import MAX_ITEM_LINES, Consequences, Preview
from avenir_mcp.oplog.records import Record
from avenir_mcp.values.text import listed

if TYPE_CHECKING:
    from avenir_mcp.oplog.models import Operation


@dataclass(frozen=True)
class Conflict:
    """An item the undo leaves alone because it changed since the operation.

    `id` is the item's YNAB id (transaction, category, payee); `name` how the person knows
    it (already cleaned: one line, at most 80 characters, e.g. `2026-09-12, Market` or
    `Restaurants`); `reason` a clause saying what it is now, e.g. `its category is now
    Dining out` or `it was deleted`.
    """

    id: str
    name: str
    reason: str


class UndoRecord(Record):
    """An undo row's own undo data: the typed value of the JSON the log keeps on an
    `undo_operation` row (`stored()` / `from_stored` at the log's edge).

    Begun (and kept when the answer is lost): `undo_of` (the operation undone) and `restoring`
    (how many items the undo set out to restore, which settling compares with YNAB). Once YNAB
    answered, the tool's report replaces it: what was put back (`restored`: one JSON item
    per item, e.g. `{"transaction_id", "category_id"}`; with `month` for assigned amounts), the
    transactions cleared again (`cleared_ids`), marked unapproved again (`unapproved_ids`) or
    deleted (`deleted_ids`); a failure half way
    reports what landed before it. Only the fields set are stored.
    """

    undo_of: str | None = None
    restoring: int | None = None
    month: str | None = None
    restored: tuple[Any, ...] | None = None
    cleared_ids: tuple[str, ...] | None = None
    unapproved_ids: tuple[str, ...] | None = None
    deleted_ids: tuple[str, ...] | None = None

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


ItemT = TypeVar("ItemT")
"""A tool's own restorable item: what its `undo` needs to put one item back (e.g. a `Step`)."""


@dataclass(frozen=True)
class Reversal(Generic[ItemT]):
    """What reversing one operation would do now, as a tool's `reversal` found it on a
    snapshot: the items to restore, the conflicts left alone, the items already as before.

    `question`: the preview's first line, the wording of docs/undo.md#the-preview counting only what will be
    restored, e.g. `Undo: recategorise 2 transaction(s)?`.
    `restorable`: the tool's own typed items (`ItemT`), whatever its `undo` needs, one per
    item to restore.
    `lines`: the preview lines of those items, in the same order, WITHOUT the leading `- `
    (e.g. `2026-09-12; Market; 86.40: Groceries → (uncategorised)`); empty when the question
    says it all (rename_payee).
    `already_as_before`: items already at their value before the operation.
    `conflicts`: items changed since, left alone (the undo lists them after the lines).
    `notes`: extra warnings for the preview, one line each.
    `consequences`: what restoring them leaves (docs/confirmation.md#what-a-change-leaves-available),
    shown after the lines; None when there is nothing to say.
    """

    question: str
    restorable: tuple[ItemT, ...] = ()
    lines: tuple[str, ...] = ()
    already_as_before: int = 0
    conflicts: tuple[Conflict, ...] = ()
    notes: tuple[str, ...] = ()
    consequences: Consequences | None = None

    def __post_init__(self) -> None:
        if self.lines and len(self.lines) != len(self.restorable):
            raise ValueError("A Reversal has one preview line per restorable item, or none at all.")
        if self.already_as_before < 0:
            raise ValueError("already_as_before counts items: it cannot be negative.")

    @property
    def restored(self) -> int:
        """How many items the undo would restore."""
        return len(self.restorable)

    @property
    def nothing_to_restore(self) -> bool:
        """Nothing still as the operation left it: the undo writes nothing (`nothing_to_do`)."""
        return not self.restorable


ItemState = Literal["restore", "already_as_before", "conflict"]


def item_state(current: object, *, before: object, after: object) -> ItemState:
    """One item's fate: still as the operation left it, already back as before, or changed.

    When `before == after` (nothing changed on that item) it counts as already as before.
    """
    if current == before:
        return "already_as_before"
    if current == after:
        return "restore"
    return "conflict"


class ReversalItems(Generic[ItemT]):
    """A `Reversal` gathered item by item, as a tool's `reversal` sorts them by the rule above.

    items = ReversalItems()
    for item in logged:
        state = ...
        if state == "restore":
            items.restore(item_to_send, preview_line)
        elif state == "already_as_before":
            items.already_as_before()
        else:
            items.conflict(Conflict(item_id, name, reason))
    return items.reversal(f"Undo: recategorise {items.restored} transaction(s)?")
    """

    def __init__(self) -> None:
        self._restorable: list[ItemT] = []
        self._lines: list[str] = []
        self._already_as_before = 0
        self._conflicts: list[Conflict] = []

    @property
    def restored(self) -> int:
        """How many items the undo would restore so far (for the question)."""
        return len(self._restorable)

    def restore(self, item: ItemT, line: str) -> None:
        """An item still as the operation left it: `item` for `undo`, `line` for the preview."""
        self._restorable.append(item)
        self._lines.append(line)

    def already_as_before(self) -> None:
        self._already_as_before += 1

    def conflict(self, conflict: Conflict) -> None:
        self._conflicts.append(conflict)

    def reversal(
        self, question: str, notes: tuple[str, ...] = (), consequences: Consequences | None = None
    ) -> Reversal[ItemT]:
        return Reversal(
            question=question,
            restorable=tuple(self._restorable),
            lines=tuple(self._lines),
            already_as_before=self._already_as_before,
            conflicts=tuple(self._conflicts),
            notes=notes,
            consequences=consequences,
        )


# --- what an undo says ---


LEFT_ALONE = "Left as it is, changed since"


def undo_preview(reversal: Reversal) -> Preview:
    """The question, the items to restore, what restoring them leaves, then the conflicts by name
    and the tool's notes."""
    notes = [*conflict_lines(reversal.conflicts), *reversal.notes]
    if reversal.already_as_before:
        notes.append(f"Already as before, nothing to do: {reversal.already_as_before} item(s).")
    return Preview(
        question=reversal.question,
        lines=list(reversal.lines),
        notes=notes,
        consequences=reversal.consequences,
    )


def conflict_lines(conflicts: tuple[Conflict, ...]) -> list[str]:
    """One line per conflict (at most 20, then how many more), each naming the item and why."""
    shown = [f"{LEFT_ALONE}: {conflict.name} ({conflict.reason})." for conflict in conflicts[:MAX_ITEM_LINES]]
    hidden = len(conflicts) - len(shown)
    if hidden > 0:
        shown.append(f"… and {hidden} more left as they are, changed since.")
    return shown


def nothing_to_restore_message(op: Operation, reversal: Reversal) -> str:
    """Why undoing `op` writes nothing: every item is already as before, or changed since; with no
    item at all, the tool's notes say what it looked for (e.g. transactions whose ids were
    never learnt), and only a tool with nothing to say leaves "nothing of it is left"."""
    parts = []
    if reversal.already_as_before:
        parts.append(f"{reversal.already_as_before} item(s) already as before")
    if reversal.conflicts:
        # a name may be a list itself (`2026-09-12; Market; 86,40`): quoted, the names stay apart
        names = listed(f"‘{conflict.name}’" for conflict in reversal.conflicts[:3])
        more = f" and {len(reversal.conflicts) - 3} more" if len(reversal.conflicts) > 3 else ""
        parts.append(f"{len(reversal.conflicts)} changed since and left as they are ({names}{more})")
    found = "; ".join(parts or reversal.notes) or "nothing of it is left in YNAB"
    return (
        f"Nothing to undo in operation {op.pk}: {found}. Nothing was written, "
        f"and {op.pk} keeps its status ({op.status})."
    )
