"""`import_transactions`: ask YNAB to import what the linked banks hold, at once
(docs/tools.md#import_transactions).

`POST /plans/{plan_id}/transactions/import`, YNAB's "Import" on every linked account: it
never imports the same bank line twice, and what it brings in stays unapproved for review.
Not confirmed and not undoable (there is nothing to put back: the lines are the bank's).

The row is begun before the request, like every write, because nobody knows what is waiting
at the bank until YNAB answers; when YNAB imports nothing the row stays, `applied` with no
ids, and the result says `nothing_to_do` naming it (the log records every change attempted).
A plan with no bank-linked account is `nothing_to_do` before any request, and no row.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

MAX_IDS_SHOWN = 200
CHECK = (
    "Importing again is safe (YNAB never imports the same bank line twice); find_transactions "
    "shows what came in."
)
NO_LINKED_ACCOUNT = (
    "Nothing to import: no account of this plan is linked to a bank (list_accounts shows "
    "bank_link); add missing transactions with the person instead."
)


class TransactionsImportedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    imported: int = Field(description="How many transactions YNAB imported (all unapproved).")
    transaction_ids: list[str] = Field(
        description=f"The imported transactions' ids (the first {MAX_IDS_SHOWN} when there are more)."
    )


class TransactionsImported(TransactionsImportedFields, WriteResult):
    pass


class ImportSubject(Subject):
    """`{"import": "linked accounts"}`: every import is the same change."""

    model_config = ConfigDict(serialize_by_alias=True)

    linked: Literal["linked accounts"] = Field(default="linked accounts", alias="import")


class ImportRecord(Record):
    """What the log keeps of an import (not undoable: settling reads it): the imported ids, and
    before YNAB answers the plan's knowledge (settling asks what was imported since), stored
    only while it is needed."""

    transaction_ids: tuple[str, ...] = ()
    knowledge_before: int | None = None

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class ImportTransactions(WriteTool[None, ImportSubject, TransactionsImportedFields, ImportRecord]):
    """Imports from the linked banks at once; an import whose answer was lost is settled from
    what YNAB imported since the request."""

    name = "import_transactions"
    result = TransactionsImported
    confirmed = False

    def build(
        self, snapshot: PlanSnapshot, arguments: None
    ) -> Built[ImportSubject, TransactionsImportedFields, ImportRecord]:
        fields = TransactionsImportedFields(imported=0, transaction_ids=[])
        if not any(account.direct_import_linked for account in snapshot.accounts.values()):
            return Change.nothing(NO_LINKED_ACCOUNT, fields)
        return Change(
            subject=ImportSubject(),
            preview=Preview(question="Import transactions from the linked banks"),
            fields=fields,
            undoable=False,
            # What the plan's knowledge was before: settling asks YNAB what was imported since.
            undo_data=ImportRecord(knowledge_before=snapshot.server_knowledge),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[ImportSubject, TransactionsImportedFields, ImportRecord],
    ) -> Applied[TransactionsImportedFields]:
        answer = await client.import_transactions(snapshot.plan_id, check_hint=CHECK)
        ids = [str(transaction_id) for transaction_id in answer.get("transaction_ids") or ()]
        fields = TransactionsImportedFields(imported=len(ids), transaction_ids=ids[:MAX_IDS_SHOWN])
        if not ids:
            return Applied(fields=fields, lead="YNAB had nothing new to import.", nothing_changed=True)
        return Applied(
            fields=fields,
            undo_data=ImportRecord(transaction_ids=tuple(ids)),
            lead=f"Imported {len(ids)} transaction(s), unapproved until the person has reviewed them.",
        )

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """What YNAB imported since the request, read as the plan's delta from the knowledge it
        had before (one request): new unapproved transactions with an import id → `applied`
        with their ids; none → `failed`, nothing came in."""
        logged = ImportRecord.from_stored(op.undo_data)  # unsettled: still holds the knowledge
        delta = await client.get_plan(op.plan_id, logged.knowledge_before)
        ids = [
            str(row["id"])
            for row in (delta.get("plan") or {}).get("transactions") or ()
            if row.get("import_id") and row.get("approved") is False and not row.get("deleted")
        ]
        if not ids:
            said = f"{PREFIX} nothing was imported since the request: nothing of it is in YNAB."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} YNAB imported {len(ids)} transaction(s), unapproved until the person reviewed them."
        return Settlement(
            "applied", said, "all", undo_data=logged.model_copy(update={"transaction_ids": tuple(ids)})
        )


@write_tool(
    ImportTransactions(),
    title="Import from linked banks",
    toolset="transactions",
    destructive=False,
    idempotent=True,
)
def import_transactions() -> None:
    """Ask YNAB to import the transactions waiting at the plan's linked banks, at once.

    The same as pressing Import in YNAB on every linked account: YNAB never imports a bank line
    twice, so calling it again is harmless. Imported transactions arrive unapproved and often
    without a category: find them with find_transactions, classify them with apply_categories, then
    approve_transactions once the person has seen them. It acts immediately, is logged, and
    cannot be undone. A broken bank link (list_accounts, bank_link) must be fixed in YNAB.
    """
