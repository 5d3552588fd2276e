"""`delete_transactions`: delete transactions, once the person agreed
(docs/tools.md#delete_transactions), and its undo (docs/undo.md#delete_transactions): each
deleted transaction entered again, unless one like it was entered since.

The checks are `tools.logic.deletions`. One `DELETE /plans/{plan_id}/transactions/{id}` each, in
the order given (YNAB deletes a transfer's other side with it). A failure midway stops there:
what YNAB deleted stays deleted (nothing can bring a deleted id back), so the row is completed
`applied` (in effect for those, undoable) with the rest named untouched, and the call answers
with that error; no answer to one delete leaves the row `unknown`, with the ones deleted
before it and the ones never sent named, and settling reads which landed.

The preview, and the undo's, also show each category's available amount before → after
(`tools.writes.consequences`). The log keeps, per transaction, what enters it again
(`tools.logic.deletions.DeletedTransaction`: payee, memo and amount included, the privacy
exception of docs/undo.md#delete_transactions), then which YNAB answered deleted and which were
never sent. The subject is the ids, in any order.
Undo enters them again in one `POST /plans/{plan_id}/transactions` (new ids).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import MAX_IDS, check_ids
from avenir_mcp.mcp_surface.presenting import account_name, category_name, money
from avenir_mcp.oplog.changes import Applied, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.available import ActivityMove
from avenir_mcp.tools.logic.deletions import (
    DeletedTransaction,
    deletion_line,
    deletion_moves,
    deletions,
    item_name,
    reentry_body,
    reentry_moves,
    reentry_state,
)
from avenir_mcp.tools.logic.transaction_lines import SPLIT
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client import PlanSnapshot, UnknownOutcome, YnabClient, YnabError
from avenir_mcp.ynab_client.errors import MalformedAnswer, WriteFailed

CHECK = "Check with find_transactions which of them are still there before trying again."
REENTRY_NOTE = (
    "Undo enters them again as new transactions (new ids); a bank import may then match them again."
)


class DeletedEntry(BaseModel):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    amount: str = Field(description="Currency units; money out negative, money in positive.")
    account: str = Field(description="The account's name.")
    category: str | None = Field(description="Its category's name (Split for a split); null for none.")


class TransactionsDeletedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    deleted: list[DeletedEntry] = Field(
        description="The transactions deleted (or to delete), in the order given; a transfer's other "
        "side goes with it."
    )


class TransactionsDeleted(TransactionsDeletedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Deleting:
    """delete_transactions' arguments, checked: the ids, each once, in the order given."""

    transaction_ids: tuple[str, ...]


class DeletionSubject(Subject):
    """The transactions to delete, by id, sorted (the order given does not change the change)."""

    transaction_ids: tuple[str, ...]


class DeletionUndo(Record):
    """delete_transactions' undo data: what enters each transaction again, in the order sent;
    once known, which YNAB answered deleted (`deleted_ids`) and which were never sent
    (`untouched_ids`). Before the answers (a lost one, a stopped process) both are None and YNAB's
    state tells, transaction by transaction."""

    transactions: tuple[DeletedTransaction, ...]
    deleted_ids: tuple[str, ...] | None = None
    untouched_ids: tuple[str, ...] | None = None

    def stored(self) -> dict[str, Any]:
        unknown = {name for name in ("deleted_ids", "untouched_ids") if getattr(self, name) is None}
        return self.model_dump(mode="json", exclude=unknown)


Deletion = Change[DeletionSubject, TransactionsDeletedFields, DeletionUndo]


class DeleteTransactions(WriteTool[Deleting, DeletionSubject, TransactionsDeletedFields, DeletionUndo]):
    """Deletes transactions one by one; undone by entering again those no look-alike replaced."""

    name = "delete_transactions"
    result = TransactionsDeleted

    def build(self, snapshot: PlanSnapshot, arguments: Deleting) -> Deletion:
        found = deletions(snapshot, arguments.transaction_ids)
        consequences, notes = available_consequences(
            snapshot, deletion_moves(snapshot, arguments.transaction_ids)
        )
        return Change(
            subject=DeletionSubject(transaction_ids=tuple(sorted(arguments.transaction_ids))),
            preview=Preview(
                question=f"Delete {len(found)} transaction(s)?",
                lines=[deletion_line(snapshot, item) for item in found],
                consequences=consequences,
                notes=[*notes, REENTRY_NOTE],
            ),
            fields=TransactionsDeletedFields(deleted=[_entry(snapshot, item) for item in found]),
            undo_data=DeletionUndo(transactions=found),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Deletion
    ) -> Applied[TransactionsDeletedFields]:
        logged = change.undo_data
        ids = [item.id for item in logged.transactions]
        deleted: list[str] = []
        for transaction_id in ids:
            try:
                await client.delete_transaction(snapshot.plan_id, transaction_id, check_hint=CHECK)
            except (UnknownOutcome, MalformedAnswer):
                if not deleted:
                    raise  # the first: the row is unknown, settling reads whether it landed
                raise _lost_midway(logged, deleted, ids) from None
            except YnabError as error:
                if not deleted:
                    raise  # nothing deleted: the row is failed
                raise _refused_midway(logged, deleted, ids, error) from error
            deleted.append(transaction_id)
        return Applied(
            undo_data=logged.model_copy(update={"deleted_ids": tuple(deleted), "untouched_ids": ()}),
            lead=f"Deleted {len(deleted)} transaction(s).",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[DeletedTransaction]:
        logged = DeletionUndo.from_stored(op.undo_data)
        own = {item.id for item in logged.transactions}
        untouched = set(logged.untouched_ids or ())
        items: ReversalItems[DeletedTransaction] = ReversalItems()
        moves: list[ActivityMove] = []
        for item in logged.transactions:
            never_sent = item.id in untouched
            state, reason = ("already_as_before", "") if never_sent else reentry_state(snapshot, item, own)
            if state == "restore":
                items.restore(item, deletion_line(snapshot, item))
                moves += reentry_moves(item)
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(Conflict(item.id, item_name(snapshot, item), reason))
        consequences, notes = available_consequences(snapshot, moves)
        return items.reversal(
            f"Undo: enter {items.restored} deleted transaction(s) again?", tuple(notes), consequences
        )

    async def undo(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        op: Operation,
        reversal: Reversal[DeletedTransaction],
    ) -> UndoRecord:
        bodies = [reentry_body(snapshot, item) for item in reversal.restorable]
        data = await client.post_transactions(snapshot.plan_id, bodies, check_hint=CHECK)
        new_ids = data.get("transaction_ids") or [t["id"] for t in data.get("transactions") or ()]
        restored = tuple(
            {"deleted_id": item.id, "transaction_id": new_id}
            for item, new_id in zip(reversal.restorable, new_ids, strict=False)
        )
        return UndoRecord(restored=restored)


@write_tool(
    DeleteTransactions(),
    title="Delete transactions",
    toolset="transactions",
    destructive=True,
    idempotent=False,
)
def delete_transactions(
    transaction_ids: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} transaction ids (find_transactions), each once; for a transfer "
            "give one side: YNAB deletes both.",
        ),
    ],
) -> Deleting:
    """Delete transactions (a duplicate, a mistaken entry), once the person agreed to the preview.

    First make sure each is really unwanted: find_transactions shows it, and a likely duplicate
    with its twin. Reconciled transactions are refused (the person deletes them in YNAB, which
    asks first); for a transfer give one side, YNAB deletes both. The person is asked to confirm
    the exact list (a question in their client, or a confirmation code to return only once they
    agreed). They are deleted one by one in the order given; if one fails, the rest are left
    untouched and the error names them. undo_operation with the operation id enters the deleted
    ones again as new transactions (new ids), unless one like it was entered since.
    """
    return Deleting(check_ids(transaction_ids, what="transaction", merge_duplicates=False) or ())


def _entry(snapshot: PlanSnapshot, item: DeletedTransaction) -> DeletedEntry:
    return DeletedEntry(
        transaction_id=item.id,
        date=item.date.isoformat(),
        payee=shown_name(item.payee_name),
        amount=money(snapshot, item.amount),
        account=account_name(snapshot, item.account_id),
        category=SPLIT if item.lines else category_name(snapshot, item.category_id),
    )


def _lost_midway(logged: DeletionUndo, deleted: list[str], ids: list[str]) -> WriteFailed:
    """No answer to a delete after others were deleted: which were, which may be, which were not."""
    lost = ids[len(deleted)]
    untouched = ids[len(deleted) + 1 :]
    message = (
        f"Deleted {len(deleted)} of the {len(ids)} transaction(s) ({', '.join(deleted)}), then no answer "
        f"came back to deleting {lost}: it may or may not be deleted, and it is not sent again"
        f"{_untouched(untouched)}. {CHECK}"
    )
    record = logged.model_copy(update={"untouched_ids": tuple(untouched)})
    return WriteFailed(message, outcome="unknown", undo_data=record, names_operation=True)


def _refused_midway(
    logged: DeletionUndo, deleted: list[str], ids: list[str], error: YnabError
) -> WriteFailed:
    """A delete refused after others were deleted: those stay deleted (the row is applied for them,
    undoable), the refused one and the rest untouched."""
    untouched = ids[len(deleted) :]
    message = (
        f"Deleted {len(deleted)} of the {len(ids)} transaction(s) ({', '.join(deleted)}), then deleting "
        f"{untouched[0]} failed: {error.message} The {len(untouched)} not deleted "
        f"({', '.join(untouched)}) are untouched, and undo_operation enters the deleted ones again."
    )
    record = logged.model_copy(update={"deleted_ids": tuple(deleted), "untouched_ids": tuple(untouched)})
    return WriteFailed(message, outcome="applied", undo_data=record, names_operation=True)


def _untouched(ids: list[str]) -> str:
    if not ids:
        return ""
    return f"; the other {len(ids)} ({', '.join(ids)}) are untouched"
