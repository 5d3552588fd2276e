"""`update_category`: rename a category and/or move it to another group, once the person agreed
(docs/tools.md#update_category), and its undo (docs/undo.md#update_category): name and group put back while
still as left.

The checks are `tools.logic.category_edits`; the path is `tools.writes.flow`. One
`PATCH /plans/{plan_id}/categories/{category_id}` with what changes of `name` and
`category_group_id`. The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: the
category, its new name and its new group (an omitted one resolved to the category's current name or group, as
the question shows it). The name and group now are not part of it: the same request is accepted
even if the category was renamed or moved in YNAB meanwhile, unless that changes the
resolved new name or group (then the answer is refused: the plan changed). The log keeps the
name and group it really had before and after:
`{"category_id", "before": {"name", "group_id", "group"}, "after": {...}}` (category and
group names are the person's own labels, not bank text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import Field

from confirmations.preview import Preview
from mcp_surface.arguments import PlanIdArg, given_text, id_arg
from mcp_surface.presenting import name as shown_name
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import Conflict, UndoPlan, UndoRecord, undo_handler
from tools.logic.category_edits import category_move, name_holder
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.refusal import Refusal
from values.text import in_quotes
from ynab_client import PlanSnapshot, YnabClient

TOOL = "update_category"
CHECK = "Check the category's name and group with get_category_balances before trying again."
NAME_LIMIT = 100


class CategoryUpdated(WriteResult):
    category_id: str = Field(description="The category.")
    from_name: str = Field(description="Its name before (one line, at most 80 characters).")
    to_name: str = Field(description="Its name after.")
    from_group: str = Field(description="Its group before.")
    to_group: str = Field(description="Its group after.")


@write_tool(title="Rename or move a category", toolset="categories", destructive=True, idempotent=True)
async def update_category(
    category_id: Annotated[
        str, Field(description="The category: an id from get_category_balances.", max_length=100)
    ],
    ctx: Context,
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
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, CategoryUpdated] | InputRequiredResult:
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
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=CategoryUpdated,
        build=lambda snapshot: build_change(snapshot, category, new_name, group),
        apply=_apply,
    )


@dataclass(frozen=True)
class CategoryPlace:
    """A category's name and group (`group` is the group's name, for the person)."""

    name: str
    group_id: str
    group: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "group_id": self.group_id, "group": self.group}

    @classmethod
    def from_json(cls, stored: Mapping[str, str]) -> CategoryPlace:
        return cls(stored["name"], stored["group_id"], stored["group"])


@dataclass(frozen=True)
class CategoryUpdate:
    """update_category's undo data: the category and its place before and after. Stored in the
    operation row as `{"category_id", "before": {"name", "group_id", "group"}, "after": {...}}`."""

    category_id: str
    before: CategoryPlace
    after: CategoryPlace

    def to_json(self) -> dict[str, Any]:
        return {
            "category_id": self.category_id,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> CategoryUpdate:
        before, after = CategoryPlace.from_json(stored["before"]), CategoryPlace.from_json(stored["after"])
        return cls(stored["category_id"], before, after)


@dataclass(frozen=True)
class CategoryPatch:
    """What the undo sends: the category and the fields that put it back."""

    category_id: str
    fields: dict[str, str]


def build_change(
    snapshot: PlanSnapshot, category_id: str, name: str | None, group_id: str | None
) -> Change[CategoryUpdate]:
    move = category_move(snapshot, category_id, name, group_id)
    before = CategoryPlace(
        move.from_name, move.from_group_id, move.from_group.name if move.from_group else ""
    )
    after = CategoryPlace(move.to_name, move.to_group_id, move.to_group.name if move.to_group else "")
    fields = _fields(move.category.id, before, after)
    if move.unchanged:
        shown = f"{in_quotes(before.name)} ({shown_name(before.group)})"
        return Change.nothing(f"Nothing to change: the category is already {shown}.", fields)
    subject = {"category_id": move.category.id, "name": after.name, "category_group_id": after.group_id}
    return Change(
        subject=subject,
        stored_subject=subject,  # category and group names: nothing the log must not keep
        preview=Preview(question=question(before, after)),
        fields=fields,
        undo_data=CategoryUpdate(move.category.id, before, after),
        check=CHECK,
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


def _fields(category_id: str, before: CategoryPlace, after: CategoryPlace) -> dict[str, Any]:
    return {
        "category_id": category_id,
        "from_name": shown_name(before.name),
        "to_name": shown_name(after.name),
        "from_group": shown_name(before.group),
        "to_group": shown_name(after.group),
    }


def sent_fields(now: CategoryPlace, wanted: CategoryPlace) -> dict[str, str]:
    """What a PATCH must carry to go from `now` to `wanted`: only what differs."""
    sent = {}
    if now.name != wanted.name:
        sent["name"] = wanted.name
    if now.group_id != wanted.group_id:
        sent["category_group_id"] = wanted.group_id
    return sent


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[CategoryUpdate]) -> Applied:
    logged = change.undo_data
    assert logged is not None  # build_change always sets it
    sent = sent_fields(logged.before, logged.after)
    await client.patch_category(snapshot.plan_id, logged.category_id, sent, check_hint=CHECK)
    return Applied(lead=f"Changed {_change_words(logged.before, logged.after)}.")


@undo_handler(TOOL)
class UpdateCategoryUndo:
    """Puts name and group back while both are as left and the old name is still free there."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan[CategoryPatch]:
        logged = CategoryUpdate.from_json(op.undo_data)
        before, after, category_id = logged.before, logged.after, logged.category_id
        undo_question = question(after, before, undo=True)
        category = snapshot.categories.get(category_id)
        label = shown_name(category.name if category is not None else after.name)
        if category is None:
            return UndoPlan(
                question=undo_question, conflicts=(Conflict(category_id, label, "it was deleted"),)
            )
        now = (category.name, category.category_group_id)
        if now == (before.name, before.group_id):
            return UndoPlan(question=undo_question, already_as_before=1)
        if now != (after.name, after.group_id):
            return UndoPlan(
                question=undo_question,
                conflicts=(Conflict(category_id, label, _group_move_line(snapshot, after, *now)),),
            )
        reason = _old_place_taken(snapshot, category_id, before)
        if reason is not None:
            return UndoPlan(question=undo_question, conflicts=(Conflict(category_id, label, reason),))
        return UndoPlan(
            question=undo_question, restorable=(CategoryPatch(category_id, sent_fields(after, before)),)
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan[CategoryPatch]
    ) -> UndoRecord:
        (item,) = plan.restorable
        await client.patch_category(snapshot.plan_id, item.category_id, item.fields, check_hint=CHECK)
        before = CategoryUpdate.from_json(op.undo_data).before
        return UndoRecord(
            restored=({"category_id": item.category_id, "name": before.name, "group_id": before.group_id},)
        )


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
