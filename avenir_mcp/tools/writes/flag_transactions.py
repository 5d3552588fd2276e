"""`flag_transactions`: set or remove transactions' flags, once the person agreed
(docs/tools.md#flag_transactions), and its undo (docs/undo.md#flag_transactions): each flag put back where it
is still as the operation set it.

The checks are `tools.logic.flags`. One bulk `PATCH /plans/{plan_id}/transactions` with
`{id, flag_color}`. The log keeps, per transaction, its id and the colour before and after
(`{"flags": [{"id", "before", "after"}, ...]}`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import MAX_IDS, check_ids
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.flags import Colour, FlagChange, FlagChanges, flag_changes, flag_shown, undo_state
from avenir_mcp.tools.logic.transaction_lines import payee_shown, transaction_line, transaction_line_by_id
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with find_transactions whether the flags changed before trying again."


class Flag(BaseModel):
    transaction_id: str = Field(description="A transaction id (find_transactions).")
    color: Colour | None = Field(
        description="The flag to give it: red, orange, yellow, green, blue or purple; null removes it."
    )


class FlagChanged(BaseModel):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    amount: str = Field(description="Currency units; money out negative, money in positive.")
    from_color: str | None = Field(description="Its flag before; null when it had none.")
    to_color: str | None = Field(description="Its flag after; null when removed.")


class FlagsChangedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: list[FlagChanged] = Field(description="The transactions whose flag changes, as given.")
    unchanged_count: int = Field(description="Transactions given that already had that flag (skipped).")


class FlagsChanged(FlagsChangedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Flagging:
    """flag_transactions' arguments, checked: `(transaction_id, colour)` pairs, each transaction
    once (None: no flag)."""

    flags: tuple[tuple[str, str | None], ...]


class FlagSet(Record):
    """One transaction of the subject and the flag it gets (None: none)."""

    transaction_id: str
    color: str | None


class FlagSubject(Subject):
    """The transactions and their flags after (ids and colours: all of it is stored)."""

    flags: tuple[FlagSet, ...]


class LoggedFlag(Record):
    """One transaction of the undo data: its id (`id`) and its flag before and after."""

    id: str
    before: str | None = None
    after: str | None = None


class FlagUndo(Record):
    """flag_transactions' undo data: each transaction's flag before and after."""

    flags: tuple[LoggedFlag, ...] = ()


class FlagTransactions(WriteTool[Flagging, FlagSubject, FlagsChangedFields, FlagUndo]):
    """Sets or removes flags; undone for each flag still as the operation set it."""

    name = "flag_transactions"
    result = FlagsChanged

    def build(
        self, snapshot: PlanSnapshot, arguments: Flagging
    ) -> Built[FlagSubject, FlagsChangedFields, FlagUndo]:
        found = flag_changes(snapshot, arguments.flags)
        fields = FlagsChangedFields(
            changes=[_entry(snapshot, c) for c in found.changes], unchanged_count=found.unchanged_count
        )
        if not found.changes:
            return Change.nothing(_nothing_message(found), fields)
        flags = tuple(FlagSet(transaction_id=c.transaction.id, color=c.after) for c in found.changes)
        logged = tuple(LoggedFlag(id=c.transaction.id, before=c.before, after=c.after) for c in found.changes)
        return Change(
            subject=FlagSubject(flags=flags),
            preview=Preview(
                question=f"Change the flag of {len(found.changes)} transaction(s)?",
                lines=[_line(snapshot, c) for c in found.changes],
            ),
            fields=fields,
            undo_data=FlagUndo(flags=logged),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[FlagSubject, FlagsChangedFields, FlagUndo],
    ) -> Applied[FlagsChangedFields]:
        items = [{"id": item.id, "flag_color": item.after} for item in change.undo_data.flags]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        return Applied(lead=f"Changed the flag of {len(items)} transaction(s).")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[LoggedFlag]:
        items: ReversalItems[LoggedFlag] = ReversalItems()
        for item in FlagUndo.from_stored(op.undo_data).flags:
            state, reason = undo_state(snapshot, item.id, before=item.before, after=item.after)
            if state == "restore":
                transaction = snapshot.transactions[item.id]
                items.restore(
                    item,
                    f"{transaction_line(snapshot, transaction)}: "
                    f"{flag_shown(item.after)} → {flag_shown(item.before)}",
                )
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(Conflict(item.id, transaction_line_by_id(snapshot, item.id), reason))
        return items.reversal(f"Undo: change the flag of {items.restored} transaction(s)?")

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[LoggedFlag]
    ) -> UndoRecord:
        items = [{"id": item.id, "flag_color": item.before} for item in reversal.restorable]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        restored = tuple({"transaction_id": item.id, "color": item.before} for item in reversal.restorable)
        return UndoRecord(restored=restored)


@write_tool(
    FlagTransactions(), title="Flag transactions", toolset="transactions", destructive=False, idempotent=True
)
def flag_transactions(
    flags: Annotated[
        list[Flag],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} {{transaction_id, color}}, each transaction once; "
            "color null removes the flag.",
        ),
    ],
) -> Flagging:
    """Set or remove the flag of transactions, after the person agreed to the preview.

    Flags are the person's own marks (find_transactions shows each transaction's flag): learn
    what their colours mean before using one, and when unsure whether something should
    change, propose a flag for the person to look at rather than a change. The person is
    asked to confirm the exact flags (a question in their client, or a confirmation code to
    return only once they agreed). A transaction that already has the asked flag is skipped
    (unchanged_count). undo_operation with the operation id puts back the flags still as set.
    """
    transaction_ids = check_ids([f.transaction_id for f in flags], what="transaction", merge_duplicates=False)
    return Flagging(tuple(zip(transaction_ids or (), [f.color for f in flags], strict=True)))


def _nothing_message(found: FlagChanges) -> str:
    return f"Nothing to change: the {found.unchanged_count} transaction(s) given already have these flags."


def _line(snapshot: PlanSnapshot, change: FlagChange) -> str:
    before, after = flag_shown(change.before), flag_shown(change.after)
    return f"{transaction_line(snapshot, change.transaction)}: {before} → {after}"


def _entry(snapshot: PlanSnapshot, change: FlagChange) -> FlagChanged:
    transaction = change.transaction
    return FlagChanged(
        transaction_id=transaction.id,
        date=transaction.date.isoformat(),
        payee=payee_shown(snapshot, transaction),
        amount=money(snapshot, transaction.amount),
        from_color=change.before,
        to_color=change.after,
    )
