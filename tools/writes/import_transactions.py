"""`import_transactions`: ask YNAB to import what the linked banks hold, at once
(docs/tools.md#import_transactions).

`POST /plans/{plan_id}/transactions/import`, YNAB's "Import" on every linked account: it
never imports the same bank line twice, and what it brings in stays unapproved for review.
Not confirmed and not undoable (there is nothing to put back: the lines are the bank's).

Logging: the row is begun before the request, like every write, because nobody knows what is
waiting at the bank until YNAB answers. When YNAB imports nothing, the row stays, completed
`applied` with no ids: the log is the record of every change *attempted* on the plan (a
request YNAB acted on, from one token's hourly budget), and rows are never deleted. The
result then says `nothing_to_do` and names that row. A plan with no bank-linked account
cannot import anything: that is `nothing_to_do` before any write request, and no row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from confirmations.preview import Preview
from mcp_surface.arguments import PlanIdArg
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.settling.judge import PREFIX, Settlement, settler
from tools.writes.flow import Applied, Change, WriteResult, unconfirmed_write
from ynab_client import PlanSnapshot, YnabClient

TOOL = "import_transactions"
MAX_IDS_SHOWN = 200
CHECK = (
    "Importing again is safe (YNAB never imports the same bank line twice); find_transactions "
    "shows what came in."
)
NO_LINKED_ACCOUNT = (
    "Nothing to import: no account of this plan is linked to a bank (list_accounts shows "
    "bank_link); add missing transactions with the person instead."
)


@dataclass(frozen=True)
class ImportRecord:
    """What the log keeps of an import (not undoable: settling reads it): the imported ids, and
    before YNAB answers the plan's knowledge (settling asks what was imported since). Stored as
    `{"transaction_ids": [...], "knowledge_before": n}` (the knowledge only while it is needed)."""

    transaction_ids: tuple[str, ...]
    knowledge_before: int | None = None

    def to_json(self) -> dict[str, Any]:
        stored: dict[str, Any] = {"transaction_ids": list(self.transaction_ids)}
        if self.knowledge_before is not None:
            stored["knowledge_before"] = self.knowledge_before
        return stored

    @classmethod
    def from_json(cls, stored: object) -> ImportRecord:
        data = stored if isinstance(stored, dict) else {}
        knowledge = data.get("knowledge_before")
        ids = tuple(str(transaction_id) for transaction_id in data.get("transaction_ids") or ())
        return cls(ids, knowledge if type(knowledge) is int else None)


class TransactionsImported(WriteResult):
    imported: int = Field(description="How many transactions YNAB imported (all unapproved).")
    transaction_ids: list[str] = Field(
        description=f"The imported transactions' ids (the first {MAX_IDS_SHOWN} when there are more)."
    )


@write_tool(title="Import from linked banks", toolset="transactions", destructive=False, idempotent=True)
async def import_transactions(
    ctx: Context, plan_id: PlanIdArg = None
) -> Annotated[CallToolResult, TransactionsImported]:
    """Ask YNAB to import the transactions waiting at the plan's linked banks, at once.

    The same as pressing Import in YNAB on every linked account: YNAB never imports a bank line
    twice, so calling it again is harmless. Imported transactions arrive unapproved and often
    without a category: find them with find_transactions, classify them with apply_categories, then
    approve_transactions once the person has seen them. It acts immediately, is logged, and
    cannot be undone. A broken bank link (list_accounts, bank_link) must be fixed in YNAB.
    """
    return await unconfirmed_write(
        ctx, tool=TOOL, plan_id=plan_id, result=TransactionsImported, build=build_change, apply=_apply
    )


def build_change(snapshot: PlanSnapshot) -> Change:
    fields = {"imported": 0, "transaction_ids": []}
    if not any(account.direct_import_linked for account in snapshot.accounts.values()):
        return Change.nothing(NO_LINKED_ACCOUNT, fields)
    return Change(
        subject={"import": "linked accounts"},
        stored_subject={"import": "linked accounts"},
        preview=Preview(question="Import transactions from the linked banks"),
        fields=fields,
        undoable=False,
        # What the plan's knowledge was before: settling asks YNAB what was imported since.
        undo_data=ImportRecord((), snapshot.server_knowledge),
        check=CHECK,
    )


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change) -> Applied:
    answer = await client.import_transactions(snapshot.plan_id, check_hint=CHECK)
    ids = [str(transaction_id) for transaction_id in answer.get("transaction_ids") or ()]
    fields = {"imported": len(ids), "transaction_ids": ids[:MAX_IDS_SHOWN]}
    if not ids:
        return Applied(fields=fields, lead="YNAB had nothing new to import.", nothing_changed=True)
    return Applied(
        fields=fields,
        undo_data=ImportRecord(tuple(ids)),
        lead=f"Imported {len(ids)} transaction(s), unapproved until the person has reviewed them.",
    )


@settler(TOOL)
class ImportSettler:
    """An import whose answer was lost: what YNAB imported since the request, read as the plan's
    delta from the knowledge it had before (one request). Imported transactions (new, unapproved,
    with an import id) → `applied` with their ids; none → `failed`, nothing came in."""

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        # An unsettled row holds the knowledge `build_change` logged (dropped only once applied).
        knowledge = ImportRecord.from_json(op.undo_data).knowledge_before
        delta = await client.get_plan(op.plan_id, knowledge)
        ids = [
            str(row["id"])
            for row in (delta.get("plan") or {}).get("transactions") or ()
            if row.get("import_id") and row.get("approved") is False and not row.get("deleted")
        ]
        if not ids:
            said = f"{PREFIX} nothing was imported since the request: nothing of it is in YNAB."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} YNAB imported {len(ids)} transaction(s), unapproved until the person reviewed them."
        record = replace(ImportRecord.from_json(op.undo_data), transaction_ids=tuple(ids))
        return Settlement("applied", said, "all", undo_data=record)
