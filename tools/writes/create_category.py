"""`create_category`: a new category in a group, once the person agreed (docs/tools.md#create_category). Not
undoable: YNAB's API cannot delete a category, so the preview says it is permanent.

The checks are `tools.logic.category_edits`; the path is `tools.writes.flow`. One
`POST /plans/{plan_id}/categories` with `name` and `category_group_id`. The log keeps the
new category's id (`{"category_id", "group_id"}`), `undoable: false`. With no undo handler to
compare through, its own settler (below) judges a lost answer from the group's names. The subject is exactly
that of docs/confirmation.md#subjects-and-the-fingerprint (group, name): a group renamed in YNAB meanwhile
does not stop the yes.
"""

from __future__ import annotations

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
from oplog.settling.judge import PREFIX, Settlement, settler
from tools.logic.category_edits import destination_group, name_holder, name_taken_refusal
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.text import in_quotes
from ynab_client import PlanSnapshot, YnabClient

TOOL = "create_category"
CHECK = "Check with list_category_groups whether the category exists before trying again."
NAME_LIMIT = 100
PERMANENT = "Permanent: YNAB's API cannot delete categories; hiding it in YNAB is the only way back."


class CategoryCreated(WriteResult):
    category_id: str | None = Field(description="The new category's id; null until it is created.")
    name: str = Field(description="Its name (one line, at most 80 characters).")
    group: str = Field(description="The group it is in.")


@write_tool(title="Create a category", toolset="categories", destructive=False, idempotent=False)
async def create_category(
    category_group_id: Annotated[
        str, Field(description="The group to create it in: an id from list_category_groups.", max_length=100)
    ],
    name: Annotated[str, Field(description=f"Its name, 1-{NAME_LIMIT} characters.", max_length=1000)],
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, CategoryCreated] | InputRequiredResult:
    """Create a category in a category group, after the person agreed. It cannot be undone.

    The name must be free in the group (names are compared without case). The person is
    asked to confirm (`Create category ‘Pets’ in Everyday?`, with a warning that it is
    permanent: YNAB's API cannot delete categories, only hiding it in YNAB takes it away) in
    their client, or you get a confirmation code to return only once they agreed. Refused:
    hidden groups, YNAB's internal group and Credit Card Payments (list_category_groups lists
    the groups that can take one). Give it money with set_category_budget afterwards.
    """
    group = id_arg(category_group_id, what="category group")
    new_name = given_text(name, field="name", max_length=NAME_LIMIT) or ""
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=CategoryCreated,
        build=lambda snapshot: build_change(snapshot, group, new_name),
        apply=_apply,
    )


@dataclass(frozen=True)
class CategoryCreation:
    """What the log keeps of a creation (not undoable: settling reads it): the group, and the new
    category's id once YNAB named it. Stored as `{"category_id", "group_id"}`."""

    category_id: str | None
    group_id: str

    def to_json(self) -> dict[str, Any]:
        return {"category_id": self.category_id, "group_id": self.group_id}


def build_change(snapshot: PlanSnapshot, group_id: str, name: str) -> Change[CategoryCreation]:
    group = destination_group(snapshot, group_id, creating=True)
    if name_holder(snapshot, group.id, name) is not None:
        raise name_taken_refusal(name, group)
    subject = {"category_group_id": group.id, "name": name}
    return Change(
        subject=subject,
        stored_subject=subject,  # a category name: nothing the log must not keep
        preview=Preview(
            question=f"Create category {in_quotes(name)} in {shown_name(group.name)}?", notes=[PERMANENT]
        ),
        fields=_fields(None, name, group.name),
        undoable=False,
        undo_data=CategoryCreation(None, group.id),
        check=CHECK,
    )


def _fields(category_id: str | None, name: str, group: str) -> dict[str, Any]:
    return {"category_id": category_id, "name": shown_name(name), "group": shown_name(group)}


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change) -> Applied:
    sent = {"name": change.subject["name"], "category_group_id": change.subject["category_group_id"]}
    answer = await client.post_category(snapshot.plan_id, sent, check_hint=CHECK)
    created = answer.get("category") if isinstance(answer.get("category"), dict) else {}
    category_id = created.get("id") if isinstance(created.get("id"), str) else None
    return Applied(
        fields={"category_id": category_id},
        undo_data=CategoryCreation(category_id, change.subject["category_group_id"]),
        lead=f"Created category {in_quotes(change.subject['name'])} in {change.fields['group']}.",
    )


@settler(TOOL)
class CreateCategorySettler:
    """A creation whose answer was lost (or whose process stopped): the name was free in the group
    when asked, so a category of that name there now (any case) is the one created → `applied`,
    its id recorded; none → `failed`, nothing was created."""

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        group_id, name = op.subject["category_group_id"], op.subject["name"]  # as build_change logs it
        created = name_holder(snapshot, group_id, name)
        if created is None:
            said = f"{PREFIX} no category {in_quotes(name)} is in its group: nothing was created."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} category {in_quotes(name)} is in its group ({created.id}): it was created."
        recorded = CategoryCreation(created.id, group_id)
        return Settlement("applied", said, "all", undo_data=recorded)
