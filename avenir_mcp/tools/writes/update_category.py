"""`update_category`: rename a category and/or move it to another group, once the person agreed
(docs/tools.md#update_category), and its undo (docs/undo.md#update_category): name and group put
back while still as left.

The checks are `tools.logic.category_edits`. One `PATCH /plans/{plan_id}/categories/{category_id}`
with what changes of `name` and `category_group_id`. The subject is that of
docs/confirmation.md#subjects-and-the-fingerprint: the category, its new name and its new group
(an omitted one resolved to the current one, as the question shows it). The log keeps the name
and group it really had before and after (`CategoryUpdate`; category and group names are the
person's own labels, not bank text).

With `note` (docs/tools.md#update_category) the same PATCH carries the category's new note ("" removes it:
null); the question adds `, note ‘…’ → ‘…’`, the subject the new note (fingerprinted, not stored:
a note is the person's text, like a memo), the log the note before and after (`NoteChange`, which
undo needs), and undo puts it back with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import given_text, id_arg
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.category_edits import category_move, name_holder
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import clean_given_note, in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the category's name and group with get_category_balances before trying again."
NAME_LIMIT = 100
NOTE_LIMIT = 500


class CategoryUpdatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category_id: str = Field(description="The category.")
    from_name: str = Field(description="Its name before (one line, at most 80 characters).")
    to_name: str = Field(description="Its name after.")
    from_group: str = Field(description="Its group before.")
    to_group: str = Field(description="Its group after.")


class CategoryUpdated(CategoryUpdatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class CategoryEdit:
    """update_category's arguments, checked: the category, and its new name and/or group."""

    category_id: str
    name: str | None
    category_group_id: str | None
    note: str | None = None  # None: kept; "": removed


class CategoryUpdateSubject(Subject):
    """The category, its name and group as they will be (stored), and its new note when the call
    changes it ("" for none; fingerprinted, not stored; left out of both when not changed)."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"note"})

    category_id: str
    name: str
    category_group_id: str
    note: str | None = None

    def fingerprinted(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"note"} if self.note is None else None)


class CategoryPlace(Record):
    """A category's name and group (`group` is the group's name, for the person)."""

    name: str
    group_id: str
    group: str


class NoteChange(Record):
    """A category's note before and after (None: no note)."""

    before: str | None
    after: str | None


class CategoryUpdate(Record):
    """update_category's undo data: the category and its place before and after, and its note
    before and after when the operation changed it (left out of the stored form otherwise)."""

    category_id: str
    before: CategoryPlace
    after: CategoryPlace
    note: NoteChange | None = None

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"note"} if self.note is None else None)


@dataclass(frozen=True)
class CategoryPatch:
    """What the undo sends: the category and the fields that put it back."""

    category_id: str
    fields: dict[str, str | None]


class UpdateCategory(WriteTool[CategoryEdit, CategoryUpdateSubject, CategoryUpdatedFields, CategoryUpdate]):
    """Renames and/or moves one category; undone while name and group are still as left and the
    old name is still free in the old group."""

    name = "update_category"
    result = CategoryUpdated

    def build(
        self, snapshot: PlanSnapshot, arguments: CategoryEdit
    ) -> Built[CategoryUpdateSubject, CategoryUpdatedFields, CategoryUpdate]:
        move = category_move(snapshot, arguments.category_id, arguments.name, arguments.category_group_id)
        before = CategoryPlace(
            name=move.from_name,
            group_id=move.from_group_id,
            group=move.from_group.name if move.from_group else "",
        )
        after = CategoryPlace(
            name=move.to_name, group_id=move.to_group_id, group=move.to_group.name if move.to_group else ""
        )
        fields = CategoryUpdatedFields(
            category_id=move.category.id,
            from_name=shown_name(before.name),
            to_name=shown_name(after.name),
            from_group=shown_name(before.group),
            to_group=shown_name(after.group),
        )
        note = _note_change(move.category.note, arguments.note)
        if move.unchanged and note is None:
            shown = f"{in_quotes(before.name)} ({shown_name(before.group)})"
            kept = "" if arguments.note is None else ", with that note"
            return Change.nothing(f"Nothing to change: the category is already {shown}{kept}.", fields)
        return Change(
            subject=CategoryUpdateSubject(
                category_id=move.category.id,
                name=after.name,
                category_group_id=after.group_id,
                note=None if note is None else note.after or "",
            ),
            preview=Preview(question=question(before, after, note)),
            fields=fields,
            undo_data=CategoryUpdate(category_id=move.category.id, before=before, after=after, note=note),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[CategoryUpdateSubject, CategoryUpdatedFields, CategoryUpdate],
    ) -> Applied[CategoryUpdatedFields]:
        logged = change.undo_data
        sent = sent_fields(logged.before, logged.after, logged.note)
        await client.patch_category(snapshot.plan_id, logged.category_id, sent, check_hint=CHECK)
        return Applied(lead=f"Changed {_change_words(logged.before, logged.after, logged.note)}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[CategoryPatch]:
        logged = CategoryUpdate.from_stored(op.undo_data)
        before, after, category_id = logged.before, logged.after, logged.category_id
        note_back = NoteChange(before=logged.note.after, after=logged.note.before) if logged.note else None
        undo_question = question(after, before, note_back, undo=True)
        category = snapshot.categories.get(category_id)
        label = shown_name(category.name if category is not None else after.name)
        if category is None:
            return Reversal(
                question=undo_question, conflicts=(Conflict(category_id, label, "it was deleted"),)
            )
        now = (category.name, category.category_group_id)
        note_now = category.note or None
        notes = (logged.note.before, logged.note.after) if logged.note else (note_now, note_now)
        if now == (before.name, before.group_id) and note_now == notes[0]:
            return Reversal(question=undo_question, already_as_before=1)
        if now != (after.name, after.group_id):
            return Reversal(
                question=undo_question,
                conflicts=(Conflict(category_id, label, _group_move_line(snapshot, after, *now)),),
            )
        if note_now != notes[1]:
            changed = "its note was changed since the operation"
            return Reversal(question=undo_question, conflicts=(Conflict(category_id, label, changed),))
        reason = _old_place_taken(snapshot, category_id, before)
        if reason is not None:
            return Reversal(question=undo_question, conflicts=(Conflict(category_id, label, reason),))
        return Reversal(
            question=undo_question,
            restorable=(CategoryPatch(category_id, sent_fields(after, before, note_back)),),
        )

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[CategoryPatch]
    ) -> UndoRecord:
        (item,) = reversal.restorable
        await client.patch_category(snapshot.plan_id, item.category_id, item.fields, check_hint=CHECK)
        before = CategoryUpdate.from_stored(op.undo_data).before
        return UndoRecord(
            restored=({"category_id": item.category_id, "name": before.name, "group_id": before.group_id},)
        )


def question(
    before: CategoryPlace, after: CategoryPlace, note: NoteChange | None = None, *, undo: bool = False
) -> str:
    """`Change category ‘Tennis’ (Leisure) to ‘Sport’ (Leisure)?`, with `, note ‘…’ → ‘…’` when the
    note changes (`Undo: change …` with `undo`)."""
    verb = "Undo: change" if undo else "Change"
    return f"{verb} {_change_words(before, after, note)}?"


def _change_words(before: CategoryPlace, after: CategoryPlace, note: NoteChange | None = None) -> str:
    words = (
        f"category {in_quotes(before.name)} ({shown_name(before.group)}) "
        f"to {in_quotes(after.name)} ({shown_name(after.group)})"
    )
    if note is not None:
        words += f", note {_shown_note(note.before)} → {_shown_note(note.after)}"
    return words


def _shown_note(note: str | None) -> str:
    """A note as the question quotes it (one line, cut to 80 characters), `none` for no note."""
    return in_quotes(note) if note else "none"


def _note_change(current: str | None, given: str | None) -> NoteChange | None:
    """The note before and after (None: no note), or None when the call does not change it."""
    before, after = current or None, given or None
    if given is None or before == after:
        return None
    return NoteChange(before=before, after=after)


def sent_fields(
    now: CategoryPlace, wanted: CategoryPlace, note: NoteChange | None = None
) -> dict[str, str | None]:
    """What a PATCH must carry to go from `now` to `wanted` (and the note to `note.after`): only
    what differs; no note is sent as null."""
    sent: dict[str, str | None] = {}
    if now.name != wanted.name:
        sent["name"] = wanted.name
    if now.group_id != wanted.group_id:
        sent["category_group_id"] = wanted.group_id
    if note is not None:
        sent["note"] = note.after
    return sent


def _group_move_line(snapshot: PlanSnapshot, after: CategoryPlace, name: str, group_id: str) -> str:
    group = snapshot.category_groups.get(group_id)
    place = f"{in_quotes(name)} ({shown_name(group.name if group else group_id)})"
    left = f"{in_quotes(after.name)} ({shown_name(after.group)})"
    return f"it is now {place}, not {left} as the operation left it"


def _old_place_taken(snapshot: PlanSnapshot, category_id: str, before: CategoryPlace) -> str | None:
    """Why the name and group before cannot be had again (taken, or the group gone), or None."""
    group = snapshot.category_groups.get(before.group_id)
    if group is None:
        return f"its group before, {shown_name(before.group)}, was deleted"
    holder = name_holder(snapshot, before.group_id, before.name, besides=category_id)
    if holder is not None:
        taken = in_quotes(before.name)
        return f"the name {taken} is now taken by another category in {shown_name(group.name)}"
    return None


@write_tool(
    UpdateCategory(),
    title="Rename, move or annotate a category",
    toolset="categories",
    destructive=True,
    idempotent=True,
)
def update_category(
    category_id: Annotated[
        str, Field(description="The category: an id from get_category_balances.", max_length=100)
    ],
    name: Annotated[
        str | None,
        Field(description=f"Its new name, 1-{NAME_LIMIT} characters. Omitted: kept.", max_length=1000),
    ] = None,
    category_group_id: Annotated[
        str | None,
        Field(
            description="The group to move it to: an id from list_category_groups. Omitted: kept.",
            max_length=100,
        ),
    ] = None,
    note: Annotated[
        str | None,
        Field(
            description=f'Its new note, at most {NOTE_LIMIT} characters (line breaks kept); "" removes '
            "the note. Omitted: kept.",
            max_length=5000,
        ),
    ] = None,
) -> CategoryEdit:
    """Rename a category, move it to another category group and/or change its note, after the person agreed.

    Give name, category_group_id, note, or several. The name must be free in the group it
    ends up in (names are compared without case). A note is the person's own text: write
    only what they asked for. The person is asked to confirm (`Change category ‘Tennis’
    (Leisure) to ‘Sport’ (Leisure)?`, adding `, note ‘…’ → ‘…’` when the note changes) in
    their client, or you get a confirmation code to return only once they agreed. Its
    transactions and amounts stay with it. No change: nothing_to_do. Refused: YNAB's internal
    categories, moving a credit card payment category, moving into YNAB's internal group or
    Credit Card Payments. undo_operation with the operation id puts name, group and note
    back while they are still as left.
    """
    category = id_arg(category_id, what="category")
    new_name = given_text(name, field="name", max_length=NAME_LIMIT)
    group = id_arg(category_group_id, what="category group") if category_group_id is not None else None
    new_note = clean_given_note(note, field="note", max_length=NOTE_LIMIT) if note is not None else None
    if new_name is None and group is None and new_note is None:
        raise Refusal(
            "Give name, category_group_id or note: the new name, the group to move it to, or its new note."
        )
    return CategoryEdit(category_id=category, name=new_name, category_group_id=group, note=new_note)
