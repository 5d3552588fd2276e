"""`rename_payee`: give a payee a clearer name, once the person agreed (docs/tools.md#rename_payee), and its
undo (docs/undo.md#rename_payee): the old name back while the name is still the new one and the old one still
free.

The checks are `tools.logic.payee_rename`; the path is `tools.writes.flow`. One
`PATCH /plans/{plan_id}/payees/{payee_id}` with `name`. The log keeps the payee id and the
old and new names (`{"payee_id", "before", "after"}`): the one undo data allowed payee text,
since undo needs it. The subject is that of docs/confirmation.md#subjects-and-the-fingerprint: the payee and
the new name (a payee renamed in YNAB meanwhile does not stop the yes; the log keeps the name it really
replaced); the stored subject keeps only the payee id (no payee text).
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
from oplog.undo import Conflict, UndoPlan, UndoRecord, item_state, undo_handler
from tools.logic.payee_rename import NAME_LIMIT, payee_holder, payee_renaming
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.text import in_quotes
from ynab_client import PlanSnapshot, YnabClient

TOOL = "rename_payee"
CHECK = "Check the payee's name with list_payees before trying again."


class PayeeRenamed(WriteResult):
    payee_id: str = Field(description="The payee.")
    from_name: str = Field(description="Its name before (bank data: one line, at most 80 characters).")
    to_name: str = Field(description="Its name after.")
    transactions: int = Field(description="How many transactions use it (as payee or on a split line).")


@write_tool(title="Rename a payee", toolset="payees", destructive=True, idempotent=True)
async def rename_payee(
    payee_id: Annotated[str, Field(description="The payee: an id from list_payees.", max_length=100)],
    name: Annotated[str, Field(description=f"Its new name, 1-{NAME_LIMIT} characters.", max_length=2000)],
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, PayeeRenamed] | InputRequiredResult:
    """Rename a payee (e.g. a bank label `CB MARKET FRESH 0509` to `Market Fresh`), after the person agreed.

    Every transaction using the payee shows the new name. The person is asked to confirm
    (`Rename payee ‘CB MARKET FRESH 0509’ to ‘Market Fresh’ (used by 14 transaction(s))?`)
    in their client, or you get a confirmation code to return only once they agreed. The
    same name changes nothing (nothing_to_do). Refused: transfer payees (they follow their
    account's name), a name another payee already has (any case: YNAB's API cannot merge
    payees; the person can merge them in YNAB). undo_operation with the operation id puts
    the old name back while the name is still the new one and the old one still free.
    """
    payee = id_arg(payee_id, what="payee")
    new_name = given_text(name, field="name", max_length=NAME_LIMIT) or ""
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=PayeeRenamed,
        build=lambda snapshot: build_change(snapshot, payee, new_name),
        apply=_apply,
    )


@dataclass(frozen=True)
class PayeeRename:
    """rename_payee's undo data: the payee and its name before and after. Stored in the operation
    row as `{"payee_id", "before", "after"}`."""

    payee_id: str
    before: str
    after: str

    def to_json(self) -> dict[str, Any]:
        return {"payee_id": self.payee_id, "before": self.before, "after": self.after}

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> PayeeRename:
        return cls(stored["payee_id"], stored["before"], stored["after"])


@dataclass(frozen=True)
class PayeeName:
    """What the undo puts back: the payee and the name it had before the operation."""

    payee_id: str
    name: str


def build_change(snapshot: PlanSnapshot, payee_id: str, name: str) -> Change[PayeeRename]:
    renaming = payee_renaming(snapshot, payee_id, name)
    fields = {
        "payee_id": renaming.payee.id,
        "from_name": shown_name(renaming.payee.name),
        "to_name": shown_name(name),
        "transactions": renaming.transactions,
    }
    if renaming.unchanged:
        return Change.nothing(f"Nothing to change: the payee is already named {in_quotes(name)}.", fields)
    used = f"used by {renaming.transactions} transaction(s)"
    return Change(
        subject={"payee_id": renaming.payee.id, "name": name},
        stored_subject={"payee_id": renaming.payee.id},  # payee text stays out of the stored subject
        preview=Preview(question=f"{_rename(renaming.payee.name, name)} ({used})?"),
        fields=fields,
        undo_data=PayeeRename(renaming.payee.id, renaming.payee.name, name),
        check=CHECK,
    )


def _rename(old: str, new: str, *, undo: bool = False) -> str:
    verb = "Undo: rename" if undo else "Rename"
    return f"{verb} payee {in_quotes(old)} to {in_quotes(new)}"


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[PayeeRename]) -> Applied:
    logged = change.undo_data
    assert logged is not None  # build_change always sets it
    await client.patch_payee(snapshot.plan_id, logged.payee_id, logged.after, check_hint=CHECK)
    return Applied(lead=f"Renamed payee {in_quotes(logged.before)} to {in_quotes(logged.after)}.")


@undo_handler(TOOL)
class RenamePayeeUndo:
    """Puts the old name back while the name is still the new one and the old one is free."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan[PayeeName]:
        logged = PayeeRename.from_json(op.undo_data)
        payee_id, before, after = logged.payee_id, logged.before, logged.after
        question = f"{_rename(after, before, undo=True)}?"
        payee = snapshot.payees.get(payee_id)
        label = shown_name(payee.name if payee is not None else after)
        if payee is None:
            return UndoPlan(question=question, conflicts=(Conflict(payee_id, label, "it was deleted"),))
        state = item_state(payee.name, before=before, after=after)
        if state == "already_as_before":
            return UndoPlan(question=question, already_as_before=1)
        if state == "conflict":
            reason = (
                f"its name is now {in_quotes(payee.name)}, not {in_quotes(after)} as the operation left it"
            )
            return UndoPlan(question=question, conflicts=(Conflict(payee_id, label, reason),))
        if payee_holder(snapshot, before, besides=payee_id) is not None:
            reason = (
                f"the name {in_quotes(before)} is now another payee's, and YNAB's API cannot merge payees"
            )
            return UndoPlan(question=question, conflicts=(Conflict(payee_id, label, reason),))
        return UndoPlan(question=question, restorable=(PayeeName(payee_id, before),))

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan[PayeeName]
    ) -> UndoRecord:
        (item,) = plan.restorable
        await client.patch_payee(snapshot.plan_id, item.payee_id, item.name, check_hint=CHECK)
        return UndoRecord(restored=({"payee_id": item.payee_id},))
