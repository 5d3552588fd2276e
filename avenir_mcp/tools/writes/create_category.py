"""`create_category`: a new category in a group, once the person agreed (docs/tools.md#create_category).
Not undoable: YNAB's API cannot delete a category, so the preview says it is permanent.

The checks are `tools.logic.category_edits`. One `POST /plans/{plan_id}/categories` with `name`
and `category_group_id`, the subject of docs/confirmation.md#subjects-and-the-fingerprint (a
group renamed in YNAB meanwhile does not stop the yes). The log keeps the group and the new
category's id (`CategoryCreation`). With no reversal to compare through, a lost answer is
settled from the group's names (`settle`, docs/confirmation.md#when-ynabs-answer-is-lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import given_text, id_arg
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tools.logic.category_edits import destination_group, name_holder, name_taken_refusal
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with list_category_groups whether the category exists before trying again."
NAME_LIMIT = 100
PERMANENT = "Permanent: YNAB's API cannot delete categories; hiding it in YNAB is the only way back."


class CategoryCreatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category_id: str | None = Field(description="The new category's id; null until it is created.")
    name: str = Field(description="Its name (one line, at most 80 characters).")
    group: str = Field(description="The group it is in.")


class CategoryCreated(CategoryCreatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class NewCategory:
    """create_category's arguments, checked: the group and the new category's name."""

    category_group_id: str
    name: str


class CategoryCreationSubject(Subject):
    """The group and the new category's name: all stored."""

    category_group_id: str
    name: str


class CategoryCreation(Record):
    """What the log keeps of a creation (not undoable: settling reads it): the group, and the new
    category's id once YNAB named it (None until then, stored as null)."""

    category_id: str | None
    group_id: str


class CreateCategory(
    WriteTool[NewCategory, CategoryCreationSubject, CategoryCreatedFields, CategoryCreation]
):
    """Creates one category; never undone; a lost answer settled from the group's names."""

    name = "create_category"
    result = CategoryCreated

    def build(
        self, snapshot: PlanSnapshot, arguments: NewCategory
    ) -> Built[CategoryCreationSubject, CategoryCreatedFields, CategoryCreation]:
        group = destination_group(snapshot, arguments.category_group_id, creating=True)
        name = arguments.name
        if name_holder(snapshot, group.id, name) is not None:
            raise name_taken_refusal(name, group)
        return Change(
            subject=CategoryCreationSubject(category_group_id=group.id, name=name),
            preview=Preview(
                question=f"Create category {in_quotes(name)} in {shown_name(group.name)}?", notes=[PERMANENT]
            ),
            fields=CategoryCreatedFields(
                category_id=None, name=shown_name(name), group=shown_name(group.name)
            ),
            undoable=False,
            undo_data=CategoryCreation(category_id=None, group_id=group.id),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[CategoryCreationSubject, CategoryCreatedFields, CategoryCreation],
    ) -> Applied[CategoryCreatedFields]:
        subject = change.subject
        sent = {"name": subject.name, "category_group_id": subject.category_group_id}
        answer = await client.post_category(snapshot.plan_id, sent, check_hint=CHECK)
        created = answer.get("category")
        found = created.get("id") if isinstance(created, dict) else None
        category_id = found if isinstance(found, str) else None
        return Applied(
            fields=change.fields.model_copy(update={"category_id": category_id}),
            undo_data=CategoryCreation(category_id=category_id, group_id=subject.category_group_id),
            lead=f"Created category {in_quotes(subject.name)} in {change.fields.group}.",
        )

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """The name was free in the group when asked, so a category of that name there now (any
        case) is the one created → `applied`, its id recorded; none → `failed`, nothing created."""
        asked = CategoryCreationSubject.from_stored(op.subject)
        created = name_holder(snapshot, asked.category_group_id, asked.name)
        if created is None:
            said = f"{PREFIX} no category {in_quotes(asked.name)} is in its group: nothing was created."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} category {in_quotes(asked.name)} is in its group ({created.id}): it was created."
        recorded = CategoryCreation(category_id=created.id, group_id=asked.category_group_id)
        return Settlement("applied", said, "all", undo_data=recorded)


@write_tool(
    CreateCategory(), title="Create a category", toolset="categories", destructive=False, idempotent=False
)
def create_category(
    category_group_id: Annotated[
        str, Field(description="The group to create it in: an id from list_category_groups.", max_length=100)
    ],
    name: Annotated[str, Field(description=f"Its name, 1-{NAME_LIMIT} characters.", max_length=1000)],
) -> NewCategory:
    """Create a category in a category group, after the person agreed. It cannot be undone.

    The name must be free in the group (names are compared without case). The person is
    asked to confirm (`Create category ‘Pets’ in Everyday?`, with a warning that it is
    permanent: YNAB's API cannot delete categories, only hiding it in YNAB takes it away) in
    their client, or you get a confirmation code to return only once they agreed. Refused:
    hidden groups, YNAB's internal group and Credit Card Payments (list_category_groups lists
    the groups that can take one). Give it money with set_category_budget afterwards.
    """
    return NewCategory(
        category_group_id=id_arg(category_group_id, what="category group"),
        name=given_text(name, field="name", max_length=NAME_LIMIT) or "",
    )
