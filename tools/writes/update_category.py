"""`update_category`: rename a category and/or move it to another group, once the person agreed
(docs/tools.md#update_category), and its undo (docs/undo.md#update_category): name and group put
back while still as left.

The checks are `tools.logic.category_edits`. One `PATCH /plans/{plan_id}/categories/{category_id}`
with what changes of `name` and `category_group_id`. The subject is that of
docs/confirmation.md#subjects-and-the-fingerprint: the category, its new name and its new group
(an omitted one resolved to the current one, as the question shows it). The log keeps the name
and group it really had before and after (`CategoryUpdate`; category and group names are the
person's own labels, not bank text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from confirmations.preview import Preview
from mcp_surface.arguments import given_text, id_arg
from oplog.changes import Applied, Built, Change
from oplog.models import Operation
from oplog.records import Record, Subject
from oplog.undo import Conflict, Reversal, UndoRecord
from tools.logic.category_edits import category_move, name_holder
from tools.writes.flow import WriteResult, WriteTool, write_tool
from values.refusal import Refusal
from values.text import in_quotes, shown_name
from ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the category's name and group with get_category_balances before trying again."
NAME_LIMIT = 100


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


class CategoryUpdateSubject(Subject):
    """The category, its name and group as they will be: all stored."""

    category_id: str
    name: str
    category_group_id: str


class CategoryPlace(Record):
    """A category's name and group (`group` is the group's name, for the person)."""

    name: str
    group_id: str
    group: str


class CategoryUpdate(Record):
    """update_category's undo data: the category and its place before and after."""

    category_id: str
    before: CategoryPlace
    after: CategoryPlace


@dataclass(frozen=True)
class CategoryPatch:
    """What the undo sends: the category and the fields that put it back."""

    category_id: str
    fields: dict[str, str]


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
        if move.unchanged:
            shown = f"{in_quotes(before.name)} ({shown_name(before.group)})"
            return Change.nothing(f"Nothing to change: the category is already {shown}.", fields)
        return Change(
            subject=CategoryUpdateSubject(
                category_id=move.category.id, name=after.name, category_group_id=after.group_id
            ),
            preview=Preview(question=question(before, after)),
            fields=fields,
            undo_data=CategoryUpdate(category_id=move.category.id, before=before, after=after),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[CategoryUpdateSubject, CategoryUpdatedFields, CategoryUpdate],
    ) -> Applied[CategoryUpdatedFields]:
        logged = change.undo_data
        sent = sent_fields(logged.before, logged.after)
        await client.patch_category(snapshot.plan_id, logged.category_id, sent, check_hint=CHECK)
        return Applied(lead=f"Changed {_change_words(logged.before, logged.after)}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[CategoryPatch]:
        logged = CategoryUpdate.from_stored(op.undo_data)
        before, after, category_id = logged.before, logged.after, logged.category_id
        undo_question = question(after, before, undo=True)
        category = snapshot.categories.get(category_id)
        label = shown_name(category.name if category is not None else after.name)
        if category is None:
            return Reversal(
                question=undo_question, conflicts=(Conflict(category_id, label, "it was deleted"),)
            )
        now = (category.name, category.category_group_id)
        if now == (before.name, before.group_id):
            return Reversal(question=undo_question, already_as_before=1)
        if now != (after.name, after.group_id):
            return Reversal(
                question=undo_question,
                conflicts=(Conflict(category_id, label, _group_move_line(snapshot, after, *now)),),
            )
        reason = _old_place_taken(snapshot, category_id, before)
        if reason is not None:
            return Reversal(question=undo_question, conflicts=(Conflict(category_id, label, reason),))
        return Reversal(
            question=undo_question, restorable=(CategoryPatch(category_id, sent_fields(after, before)),)
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


def question(before: CategoryPlace, after: CategoryPlace, *, undo: bool = False) -> str:
    """`Change category ‘Tennis’ (Leisure) to ‘Sport’ (Leisure)?` (`Undo: change …` with `undo`)."""
    verb = "Undo: change" if undo else "Change"
    return f"{verb} {_change_words(before, after)}?"


def _change_words(before: CategoryPlace, after: CategoryPlace) -> str:
    return (
        f"category {in_quotes(before.name)} ({shown_name(before.group)}) "
        f"to {in_quotes(after.name)} ({shown_name(after.group)})"
    )


def sent_fields(now: CategoryPlace, wanted: CategoryPlace) -> dict[str, str]:
    """What a PATCH must carry to go from `now` to `wanted`: only what differs."""
    sent = {}
    if now.name != wanted.name:
        sent["name"] = wanted.name
    if now.group_id != wanted.group_id:
        sent["category_group_id"] = wanted.group_id
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
    title="Rename or move a category",
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
) -> CategoryEdit:
    """Rename a category and/or move it to another category group, after the person agreed.

    Give name, category_group_id or both. The name must be free in the group it ends up in
    (names are compared without case). The person is asked to confirm (`Change category
    ‘Tennis’ (Leisure) to ‘Sport’ (Leisure)?`) in their client, or you get a confirmation
    code to return only once they agreed. Its transactions and amounts stay with it. No
    change: nothing_to_do. Refused: YNAB's internal categories, moving a credit card payment
    category, moving into YNAB's internal group or Credit Card Payments. undo_operation with
    the operation id puts name and group back while they are still as left.
    """
    category = id_arg(category_id, what="category")
    new_name = given_text(name, field="name", max_length=NAME_LIMIT)
    group = id_arg(category_group_id, what="category group") if category_group_id is not None else None
    if new_name is None and group is None:
        raise Refusal("Give name, category_group_id or both: the new name and/or the group to move it to.")
    return CategoryEdit(category_id=category, name=new_name, category_group_id=group)
