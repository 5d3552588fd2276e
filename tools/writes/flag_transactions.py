"""`flag_transactions`: set or remove transactions' flags, once the person agreed
(docs/tools.md#flag_transactions), and its undo (docs/undo.md#flag_transactions): each flag put back where it
is still as the operation set it.

The checks are `tools.logic.flags`; the path (plan read, question, log, request) is
`tools.writes.flow`. One bulk `PATCH /plans/{plan_id}/transactions` with `{id, flag_color}`.
The log keeps, per transaction, its id and the colour before and after.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from confirmations.preview import Preview
from mcp_surface.arguments import MAX_IDS, PlanIdArg, check_ids
from mcp_surface.presenting import money
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import Conflict, UndoItems, UndoPlan, UndoRecord, undo_handler
from tools.logic.flags import (
    Colour,
    FlagChange,
    FlagChanges,
    FlagUndo,
    LoggedFlag,
    flag_changes,
    flag_shown,
    undo_state,
)
from tools.logic.transaction_lines import payee_shown, transaction_line
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from ynab_client import PlanSnapshot, YnabClient

TOOL = "flag_transactions"
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


class FlagsChanged(WriteResult):
    changes: list[FlagChanged] = Field(description="The transactions whose flag changes, as given.")
    unchanged_count: int = Field(description="Transactions given that already had that flag (skipped).")


@write_tool(title="Flag transactions", toolset="transactions", destructive=False, idempotent=True)
async def flag_transactions(
    flags: Annotated[
        list[Flag],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} {{transaction_id, color}}, each transaction once; "
            "color null removes the flag.",
        ),
    ],
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, FlagsChanged] | InputRequiredResult:
    """Set or remove the flag of transactions, after the person agreed to the preview.

    Flags are the person's own marks (find_transactions shows each transaction's flag): learn
    what their colours mean before using one, and when unsure whether something should
    change, propose a flag for the person to look at rather than a change. The person is
    asked to confirm the exact flags (a question in their client, or a confirmation code to
    return only once they agreed). A transaction that already has the asked flag is skipped
    (unchanged_count). undo_operation with the operation id puts back the flags still as set.
    """
    pairs = _check_flags(flags)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=FlagsChanged,
        build=lambda snapshot: build_change(snapshot, pairs),
        apply=_apply,
    )


def _check_flags(flags: list[Flag]) -> list[tuple[str, str | None]]:
    """Ids checked against the pattern, each transaction once: before any request."""
    transaction_ids = check_ids([f.transaction_id for f in flags], what="transaction", merge_duplicates=False)
    return list(zip(transaction_ids or (), [f.color for f in flags], strict=True))


def build_change(snapshot: PlanSnapshot, pairs: list[tuple[str, str | None]]) -> Change:
    """The change (subject, preview, result fields, undo data), or nothing to do."""
    found = flag_changes(snapshot, pairs)
    fields = {
        "changes": [_entry(snapshot, c) for c in found.changes],
        "unchanged_count": found.unchanged_count,
    }
    if not found.changes:
        return Change.nothing(_nothing_message(found), fields)
    subject = {"flags": [{"transaction_id": c.transaction.id, "color": c.after} for c in found.changes]}
    return Change(
        subject=subject,
        stored_subject=subject,  # ids and colours only: nothing the log must not keep
        preview=Preview(
            question=f"Change the flag of {len(found.changes)} transaction(s)?",
            lines=[_line(snapshot, c) for c in found.changes],
        ),
        fields=fields,
        undo_data=FlagUndo(tuple(LoggedFlag(c.transaction.id, c.before, c.after) for c in found.changes)),
        check=CHECK,
    )


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


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[FlagUndo]) -> Applied:
    assert change.undo_data is not None  # build_change always sets it
    items = [{"id": item.transaction_id, "flag_color": item.after} for item in change.undo_data.flags]
    await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
    return Applied(lead=f"Changed the flag of {len(items)} transaction(s).")


@undo_handler(TOOL)
class FlagTransactionsUndo:
    """Puts back each flag still as the operation set it; a flag changed since is a conflict."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan:
        items = UndoItems()
        for item in FlagUndo.from_json(op.undo_data).flags:
            state, reason = undo_state(snapshot, item)
            if state == "restore":
                transaction = snapshot.transactions[item.transaction_id]
                items.restore(
                    {"id": item.transaction_id, "flag_color": item.before},
                    f"{transaction_line(snapshot, transaction)}: "
                    f"{flag_shown(item.after)} → {flag_shown(item.before)}",
                )
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(Conflict(item.transaction_id, _name(snapshot, item.transaction_id), reason))
        return items.plan(f"Undo: change the flag of {items.restored} transaction(s)?")

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan
    ) -> UndoRecord:
        items = [dict(item) for item in plan.restorable]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        restored = tuple({"transaction_id": i["id"], "color": i["flag_color"]} for i in items)
        return UndoRecord(restored=restored)


def _name(snapshot: PlanSnapshot, transaction_id: str) -> str:
    transaction = snapshot.transactions.get(transaction_id)
    return (
        transaction_line(snapshot, transaction)
        if transaction is not None
        else f"transaction {transaction_id}"
    )
