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

from dataclasses import dataclass
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import given_text, id_arg
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord, item_state
from avenir_mcp.tools.logic.payee_rename import NAME_LIMIT, payee_holder, payee_renaming
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the payee's name with list_payees before trying again."


class PayeeRenamedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    payee_id: str = Field(description="The payee.")
    from_name: str = Field(description="Its name before (bank data: one line, at most 80 characters).")
    to_name: str = Field(description="Its name after.")
    transactions: int = Field(description="How many transactions use it (as payee or on a split line).")


class PayeeRenamed(PayeeRenamedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Renaming:
    """rename_payee's arguments, checked: the payee and its new name."""

    payee_id: str
    name: str


class PayeeRenameSubject(Subject):
    """The payee and its new name; the log keeps only the payee id (no payee text)."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"name"})

    payee_id: str
    name: str


class PayeeRename(Record):
    """rename_payee's undo data: the payee and its name before and after (the one undo data
    allowed payee text, since undo needs it)."""

    payee_id: str
    before: str
    after: str


@dataclass(frozen=True)
class PayeeName:
    """What the undo puts back: the payee and the name it had before the operation."""

    payee_id: str
    name: str


class RenamePayee(WriteTool[Renaming, PayeeRenameSubject, PayeeRenamedFields, PayeeRename]):
    """Renames one payee; undone while the name is still the new one and the old one is free."""

    name = "rename_payee"
    result = PayeeRenamed

    def build(
        self, snapshot: PlanSnapshot, arguments: Renaming
    ) -> Built[PayeeRenameSubject, PayeeRenamedFields, PayeeRename]:
        renaming = payee_renaming(snapshot, arguments.payee_id, arguments.name)
        fields = PayeeRenamedFields(
            payee_id=renaming.payee.id,
            from_name=shown_name(renaming.payee.name),
            to_name=shown_name(arguments.name),
            transactions=renaming.transactions,
        )
        if renaming.unchanged:
            return Change.nothing(
                f"Nothing to change: the payee is already named {in_quotes(arguments.name)}.", fields
            )
        used, payee = f"used by {renaming.transactions} transaction(s)", renaming.payee
        return Change(
            subject=PayeeRenameSubject(payee_id=renaming.payee.id, name=arguments.name),
            preview=Preview(question=f"{_rename(renaming.payee.name, arguments.name)} ({used})?"),
            fields=fields,
            undo_data=PayeeRename(payee_id=payee.id, before=payee.name, after=arguments.name),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[PayeeRenameSubject, PayeeRenamedFields, PayeeRename],
    ) -> Applied[PayeeRenamedFields]:
        logged = change.undo_data
        await client.patch_payee(snapshot.plan_id, logged.payee_id, logged.after, check_hint=CHECK)
        return Applied(lead=f"Renamed payee {in_quotes(logged.before)} to {in_quotes(logged.after)}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[PayeeName]:
        logged = PayeeRename.from_stored(op.undo_data)
        payee_id, before, after = logged.payee_id, logged.before, logged.after
        question = f"{_rename(after, before, undo=True)}?"
        payee = snapshot.payees.get(payee_id)
        label = shown_name(payee.name if payee is not None else after)
        if payee is None:
            return Reversal(question=question, conflicts=(Conflict(payee_id, label, "it was deleted"),))
        state = item_state(payee.name, before=before, after=after)
        if state == "already_as_before":
            return Reversal(question=question, already_as_before=1)
        if state == "conflict":
            reason = (
                f"its name is now {in_quotes(payee.name)}, not {in_quotes(after)} as the operation left it"
            )
            return Reversal(question=question, conflicts=(Conflict(payee_id, label, reason),))
        if payee_holder(snapshot, before, besides=payee_id) is not None:
            reason = (
                f"the name {in_quotes(before)} is now another payee's, and YNAB's API cannot merge payees"
            )
            return Reversal(question=question, conflicts=(Conflict(payee_id, label, reason),))
        return Reversal(question=question, restorable=(PayeeName(payee_id, before),))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[PayeeName]
    ) -> UndoRecord:
        (item,) = reversal.restorable
        await client.patch_payee(snapshot.plan_id, item.payee_id, item.name, check_hint=CHECK)
        return UndoRecord(restored=({"payee_id": item.payee_id},))


@write_tool(RenamePayee(), title="Rename a payee", toolset="payees", destructive=True, idempotent=True)
def rename_payee(
    payee_id: Annotated[str, Field(description="The payee: an id from list_payees.", max_length=100)],
    name: Annotated[str, Field(description=f"Its new name, 1-{NAME_LIMIT} characters.", max_length=2000)],
) -> Renaming:
    """Rename a payee (e.g. a bank label `CB MARKET FRESH 0509` to `Market Fresh`), after the person agreed.

    Every transaction using the payee shows the new name. The person is asked to confirm
    (`Rename payee ‘CB MARKET FRESH 0509’ to ‘Market Fresh’ (used by 14 transaction(s))?`)
    in their client, or you get a confirmation code to return only once they agreed. The
    same name changes nothing (nothing_to_do). Refused: transfer payees (they follow their
    account's name), a name another payee already has (any case: YNAB's API cannot merge
    payees; the person can merge them in YNAB). undo_operation with the operation id puts
    the old name back while the name is still the new one and the old one still free.
    """
    return Renaming(
        payee_id=id_arg(payee_id, what="payee"),
        name=given_text(name, field="name", max_length=NAME_LIMIT) or "",
    )


def _rename(old: str, new: str, *, undo: bool = False) -> str:
    verb = "Undo: rename" if undo else "Rename"
    return f"{verb} payee {in_quotes(old)} to {in_quotes(new)}"
