"""`create_category_group`: a new category group, once the person agreed
(docs/tools.md#create_category_group). Not undoable: YNAB's API cannot delete a group, so the
preview says it is permanent.

The checks are `tools.logic.category_groups`. One `POST /plans/{plan_id}/category_groups` with
`name`; the subject is the name. The log keeps the new group's id (`GroupCreation`). With no
reversal to compare through, a lost answer is settled from the groups' names (`settle`,
docs/confirmation.md#when-ynabs-answer-is-lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import given_text
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tools.logic.category_groups import GROUP_NAME_LIMIT, group_name_taken_refusal, group_named
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with list_category_groups whether the group exists before trying again."
PERMANENT = "Permanent: YNAB's API cannot delete category groups; hiding it in YNAB is the only way back."


class GroupCreatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category_group_id: str | None = Field(description="The new group's id; null until it is created.")
    name: str = Field(description="Its name (one line, at most 80 characters).")


class GroupCreated(GroupCreatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class NewGroup:
    """create_category_group's argument, checked: the new group's name."""

    name: str


class GroupCreationSubject(Subject):
    """The new group's name: stored."""

    name: str


class GroupCreation(Record):
    """What the log keeps of a group created (not undoable: settling reads it): its id once YNAB
    named it (None until then, stored as null)."""

    category_group_id: str | None


class CreateCategoryGroup(WriteTool[NewGroup, GroupCreationSubject, GroupCreatedFields, GroupCreation]):
    """Creates one category group; never undone; a lost answer settled from the groups' names."""

    name = "create_category_group"
    result = GroupCreated

    def build(
        self, snapshot: PlanSnapshot, arguments: NewGroup
    ) -> Built[GroupCreationSubject, GroupCreatedFields, GroupCreation]:
        holder = group_named(snapshot, arguments.name)
        if holder is not None:
            raise group_name_taken_refusal(holder)
        return Change(
            subject=GroupCreationSubject(name=arguments.name),
            preview=Preview(
                question=f"Create category group {in_quotes(arguments.name)}?", notes=[PERMANENT]
            ),
            fields=GroupCreatedFields(category_group_id=None, name=shown_name(arguments.name)),
            undoable=False,
            undo_data=GroupCreation(category_group_id=None),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[GroupCreationSubject, GroupCreatedFields, GroupCreation],
    ) -> Applied[GroupCreatedFields]:
        name = change.subject.name
        answer = await client.post_category_group(snapshot.plan_id, name, check_hint=CHECK)
        created = answer.get("category_group")
        found = created.get("id") if isinstance(created, dict) else None
        group_id = found if isinstance(found, str) else None
        return Applied(
            fields=change.fields.model_copy(update={"category_group_id": group_id}),
            undo_data=GroupCreation(category_group_id=group_id),
            lead=f"Created category group {in_quotes(name)}.",
        )

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """The name was free when asked, so a group of that name (any case) now is the one created
        → `applied`, its id recorded; none → `failed`, nothing created."""
        asked = GroupCreationSubject.from_stored(op.subject)
        created = group_named(snapshot, asked.name)
        if created is None:
            said = f"{PREFIX} no category group is named {in_quotes(asked.name)}: nothing was created."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} category group {in_quotes(asked.name)} exists ({created.id}): it was created."
        return Settlement("applied", said, "all", undo_data=GroupCreation(category_group_id=created.id))


@write_tool(
    CreateCategoryGroup(),
    title="Create a category group",
    toolset="categories",
    destructive=False,
    idempotent=False,
)
def create_category_group(
    name: Annotated[str, Field(description=f"Its name, 1-{GROUP_NAME_LIMIT} characters.", max_length=1000)],
) -> NewGroup:
    """Create a category group, after the person agreed. It cannot be undone.

    The name must be free (no visible group has it; names are compared without case). The
    person is asked to confirm (`Create category group ‘Kids’?`, with a warning that it is
    permanent: YNAB's API cannot delete category groups, only hiding it in YNAB takes it
    away) in their client, or you get a confirmation code to return only once they agreed.
    Then create_category adds categories to it, and update_category moves some in.
    """
    return NewGroup(name=given_text(name, field="name", max_length=GROUP_NAME_LIMIT) or "")
