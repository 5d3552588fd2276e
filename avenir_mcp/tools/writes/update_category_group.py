"""`update_category_group`: rename a category group, once the person agreed
(docs/tools.md#update_category_group), and its undo (docs/undo.md#update_category_group): the old
name back while the name is still the new one and the old one still free.

The checks are `tools.logic.category_groups`. One `PATCH /plans/{plan_id}/category_groups/{id}`
with `name`. The subject is the group and its new name (a group renamed in YNAB meanwhile does
not stop the yes; the log keeps the name it really replaced). The log keeps the group and its
name before and after (`GroupRename`; group names are the person's own labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import given_text, id_arg
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord, item_state
from avenir_mcp.tools.logic.category_groups import (
    GROUP_NAME_LIMIT,
    group_name_taken_refusal,
    group_named,
    renamable_group,
)
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the group's name with list_category_groups before trying again."


class GroupRenamedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category_group_id: str = Field(description="The group.")
    from_name: str = Field(description="Its name before (one line, at most 80 characters).")
    to_name: str = Field(description="Its name after.")


class GroupRenamed(GroupRenamedFields, WriteResult):
    pass


@dataclass(frozen=True)
class GroupRenaming:
    """update_category_group's arguments, checked: the group and its new name."""

    category_group_id: str
    name: str


class GroupRenameSubject(Subject):
    """The group and its new name: all stored."""

    category_group_id: str
    name: str


class GroupRename(Record):
    """update_category_group's undo data: the group and its name before and after."""

    category_group_id: str
    before: str
    after: str


@dataclass(frozen=True)
class GroupName:
    """What the undo puts back: the group and the name it had before the operation."""

    category_group_id: str
    name: str


class UpdateCategoryGroup(WriteTool[GroupRenaming, GroupRenameSubject, GroupRenamedFields, GroupRename]):
    """Renames one category group; undone while the name is still the new one and the old one is free."""

    name = "update_category_group"
    result = GroupRenamed

    def build(
        self, snapshot: PlanSnapshot, arguments: GroupRenaming
    ) -> Built[GroupRenameSubject, GroupRenamedFields, GroupRename]:
        group = renamable_group(snapshot, arguments.category_group_id)
        name = arguments.name
        fields = GroupRenamedFields(
            category_group_id=group.id, from_name=shown_name(group.name), to_name=shown_name(name)
        )
        if group.name == name:
            return Change.nothing(
                f"Nothing to change: the category group is already named {in_quotes(name)}.", fields
            )
        holder = group_named(snapshot, name, besides=group.id)
        if holder is not None:
            raise group_name_taken_refusal(holder)
        return Change(
            subject=GroupRenameSubject(category_group_id=group.id, name=name),
            preview=Preview(question=f"{_rename(group.name, name)}?"),
            fields=fields,
            undo_data=GroupRename(category_group_id=group.id, before=group.name, after=name),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[GroupRenameSubject, GroupRenamedFields, GroupRename],
    ) -> Applied[GroupRenamedFields]:
        logged = change.undo_data
        await client.patch_category_group(
            snapshot.plan_id, logged.category_group_id, logged.after, check_hint=CHECK
        )
        return Applied(
            lead=f"Renamed category group {in_quotes(logged.before)} to {in_quotes(logged.after)}."
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[GroupName]:
        logged = GroupRename.from_stored(op.undo_data)
        group_id, before, after = logged.category_group_id, logged.before, logged.after
        question = f"{_rename(after, before, undo=True)}?"
        group = snapshot.category_groups.get(group_id)
        if group is None:
            return Reversal(
                question=question, conflicts=(Conflict(group_id, shown_name(after), "it was deleted"),)
            )
        label = shown_name(group.name)
        state = item_state(group.name, before=before, after=after)
        if state == "already_as_before":
            return Reversal(question=question, already_as_before=1)
        if state == "conflict":
            reason = (
                f"its name is now {in_quotes(group.name)}, not {in_quotes(after)} as the operation left it"
            )
            return Reversal(question=question, conflicts=(Conflict(group_id, label, reason),))
        if group_named(snapshot, before, besides=group_id) is not None:
            reason = f"the name {in_quotes(before)} is now another group's"
            return Reversal(question=question, conflicts=(Conflict(group_id, label, reason),))
        return Reversal(question=question, restorable=(GroupName(group_id, before),))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[GroupName]
    ) -> UndoRecord:
        (item,) = reversal.restorable
        await client.patch_category_group(
            snapshot.plan_id, item.category_group_id, item.name, check_hint=CHECK
        )
        return UndoRecord(restored=({"category_group_id": item.category_group_id},))


def _rename(old: str, new: str, *, undo: bool = False) -> str:
    verb = "Undo: rename" if undo else "Rename"
    return f"{verb} category group {in_quotes(old)} to {in_quotes(new)}"


@write_tool(
    UpdateCategoryGroup(),
    title="Rename a category group",
    toolset="categories",
    destructive=True,
    idempotent=True,
)
def update_category_group(
    category_group_id: Annotated[
        str, Field(description="The group: an id from list_category_groups.", max_length=100)
    ],
    name: Annotated[
        str, Field(description=f"Its new name, 1-{GROUP_NAME_LIMIT} characters.", max_length=1000)
    ],
) -> GroupRenaming:
    """Rename a category group, after the person agreed.

    The name must be free (no other visible group has it; names are compared without case).
    The person is asked to confirm (`Rename category group ‘Fun’ to ‘Leisure’?`) in their
    client, or you get a confirmation code to return only once they agreed. Its categories
    stay in it. The same name changes nothing (nothing_to_do). Refused: hidden groups, YNAB's
    internal group and Credit Card Payments. undo_operation with the operation id puts the
    old name back while the name is still the new one and the old one still free.
    """
    return GroupRenaming(
        category_group_id=id_arg(category_group_id, what="category group"),
        name=given_text(name, field="name", max_length=GROUP_NAME_LIMIT) or "",
    )
