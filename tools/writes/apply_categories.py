"""`apply_categories`: give transactions their categories, once the person agreed
(docs/tools.md#apply_categories), and its undo (docs/undo.md#apply_categories): categories put back where they
are still as the operation left them.

The checks are `tools.logic.recategorise`; the path (plan read, question, log, request) is
`tools.writes.flow`. One bulk `PATCH /plans/{plan_id}/transactions` with `{id, category_id}`.
The log keeps, per transaction, its id and the category before and after (no payee, memo
or amount: those live only in the preview text).
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from confirmations.preview import Preview
from mcp_surface.arguments import MAX_IDS, PlanIdArg, check_ids, id_arg
from mcp_surface.presenting import category_name, money
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import Conflict, UndoItems, UndoPlan, UndoRecord, undo_handler
from tools.logic.recategorise import (
    LoggedRecategorisation,
    Recategorisation,
    RecategorisationUndo,
    Recategorised,
    recategorisation,
    shown_category_id,
    undo_state,
)
from tools.logic.transaction_lines import category_shown, payee_shown, transaction_line
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from ynab_client import PlanSnapshot, YnabClient

TOOL = "apply_categories"
CHECK = "Check with find_transactions whether the categories changed before trying again."


class Assignment(BaseModel):
    transaction_id: str = Field(description="A transaction id (find_transactions).")
    category_id: str = Field(description="The category to give it: an id from get_category_balances.")


class CategoryChange(BaseModel):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    amount: str = Field(description="Currency units; money out negative, money in positive.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    from_category_id: str | None = Field(description="Its category before; null when it had none.")
    from_category: str | None = Field(description="That category's name; null when it had none.")
    to_category_id: str
    to_category: str


class CategoriesApplied(WriteResult):
    changes: list[CategoryChange] = Field(description="The transactions whose category changes, as given.")
    unchanged_count: int = Field(description="Transactions given that already had that category (skipped).")


@write_tool(title="Recategorise transactions", toolset="transactions", destructive=True, idempotent=True)
async def apply_categories(
    assignments: Annotated[
        list[Assignment],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} {{transaction_id, category_id}}, each transaction once.",
        ),
    ],
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, CategoriesApplied] | InputRequiredResult:
    """Give transactions a category, after the person agreed to the preview.

    Find the transactions with find_transactions (earlier ones of the same payee show how they
    were categorised), show the person what you propose, then call this
    with their choices. The person is asked to confirm the exact changes (a question in their
    client, or a confirmation code to return only once they agreed). Transactions that already
    have the category are skipped (unchanged_count). Refused: splits (YNAB's API cannot change
    their lines), transfers, transactions on tracking accounts, YNAB's internal categories
    other than Inflow: Ready to Assign (for income), credit card payment categories.
    undo_operation with the operation id puts back the categories still as they were set.
    """
    pairs = _check_assignments(assignments)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=CategoriesApplied,
        build=lambda snapshot: build_change(snapshot, pairs),
        apply=_apply,
    )


def _check_assignments(assignments: list[Assignment]) -> list[tuple[str, str]]:
    """Ids checked against the pattern, each transaction once: before any request."""
    transaction_ids = check_ids(
        [a.transaction_id for a in assignments], what="transaction", merge_duplicates=False
    )
    category_ids = [id_arg(a.category_id, what="category") for a in assignments]
    return list(zip(transaction_ids or (), category_ids, strict=True))


def build_change(snapshot: PlanSnapshot, pairs: list[tuple[str, str]]) -> Change:
    """The change (subject, preview, result fields, undo data), or nothing to do."""
    found = recategorisation(snapshot, pairs)
    fields = {
        "changes": [_entry(snapshot, c) for c in found.changes],
        "unchanged_count": found.unchanged_count,
    }
    if not found.changes:
        return Change.nothing(_nothing_message(found), fields)
    subject = {
        "changes": [{"transaction_id": c.transaction.id, "category_id": c.after.id} for c in found.changes]
    }
    return Change(
        subject=subject,
        stored_subject=subject,  # ids only: nothing the log must not keep
        preview=Preview(
            question=f"Recategorise {len(found.changes)} transaction(s)?",
            lines=[_line(snapshot, c) for c in found.changes],
        ),
        fields=fields,
        undo_data=RecategorisationUndo(tuple(_log_entry(c) for c in found.changes)),
        check=CHECK,
    )


def _nothing_message(found: Recategorisation) -> str:
    return (
        f"Nothing to change: the {found.unchanged_count} transaction(s) given already have these categories."
    )


def _line(snapshot: PlanSnapshot, change: Recategorised) -> str:
    before, after = category_shown(snapshot, change.shown_before), category_shown(snapshot, change.after.id)
    return f"{transaction_line(snapshot, change.transaction)}: {before} → {after}"


def _entry(snapshot: PlanSnapshot, change: Recategorised) -> CategoryChange:
    transaction = change.transaction
    return CategoryChange(
        transaction_id=transaction.id,
        date=transaction.date.isoformat(),
        amount=money(snapshot, transaction.amount),
        payee=payee_shown(snapshot, transaction),
        from_category_id=change.shown_before,
        from_category=category_name(snapshot, change.shown_before),
        to_category_id=change.after.id,
        to_category=category_shown(snapshot, change.after.id),
    )


def _log_entry(change: Recategorised) -> LoggedRecategorisation:
    return LoggedRecategorisation(change.transaction.id, change.before, change.after.id)


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[RecategorisationUndo]) -> Applied:
    assert change.undo_data is not None  # build_change always sets it
    logged = change.undo_data.transactions
    items = [{"id": item.transaction_id, "category_id": item.after} for item in logged]
    await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
    return Applied(lead=f"Recategorised {len(items)} transaction(s).")


@undo_handler(TOOL)
class ApplyCategoriesUndo:
    """Puts back each category still as the operation set it; a changed one is a conflict."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan:
        items = UndoItems()
        for item in RecategorisationUndo.from_json(op.undo_data).transactions:
            state, reason = undo_state(snapshot, item)
            if state == "restore":
                transaction = snapshot.transactions[item.transaction_id]
                after, before = category_shown(snapshot, item.after), _shown(snapshot, item.before)
                items.restore(
                    {"id": item.transaction_id, "category_id": item.before},
                    f"{transaction_line(snapshot, transaction)}: {after} → {before}",
                )
            elif state == "already_as_before":
                items.already_as_before()
            else:
                name = _conflict_name(snapshot, item.transaction_id)
                items.conflict(Conflict(item.transaction_id, name, reason))
        return items.plan(f"Undo: recategorise {items.restored} transaction(s)?")

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan
    ) -> UndoRecord:
        items = [dict(item) for item in plan.restorable]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        restored = tuple({"transaction_id": i["id"], "category_id": i["category_id"]} for i in items)
        return UndoRecord(restored=restored)


def _shown(snapshot: PlanSnapshot, category_id: str | None) -> str:
    return category_shown(snapshot, shown_category_id(snapshot, category_id))


def _conflict_name(snapshot: PlanSnapshot, transaction_id: str) -> str:
    transaction = snapshot.transactions.get(transaction_id)
    return (
        transaction_line(snapshot, transaction)
        if transaction is not None
        else f"transaction {transaction_id}"
    )
