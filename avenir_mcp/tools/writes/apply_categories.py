"""`apply_categories`: give transactions their categories, once the person agreed
(docs/tools.md#apply_categories), and its undo (docs/undo.md#apply_categories): categories put back where they
are still as the operation left them.

The checks are `tools.logic.recategorise`. One bulk `PATCH /plans/{plan_id}/transactions` with
`{id, category_id}`. The log keeps, per transaction, its id and the category before and after
(`{"transactions": [{"id", "before", "after"}, ...]}`; no payee, memo or amount: those live
only in the preview text). The preview, and the undo's, also show each category's available
amount before → after in each transaction's month (`tools.writes.consequences`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import MAX_IDS, check_ids, id_arg
from avenir_mcp.mcp_surface.presenting import category_name, money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.available import ActivityMove
from avenir_mcp.tools.logic.recategorise import (
    Recategorisation,
    Recategorised,
    recategorisation,
    shown_category_id,
    undo_state,
)
from avenir_mcp.tools.logic.transaction_lines import (
    category_shown,
    payee_shown,
    transaction_line,
    transaction_line_by_id,
)
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient
from avenir_mcp.ynab_client.snapshot import Transaction

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


class CategoriesAppliedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: list[CategoryChange] = Field(description="The transactions whose category changes, as given.")
    unchanged_count: int = Field(description="Transactions given that already had that category (skipped).")


class CategoriesApplied(CategoriesAppliedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Assignments:
    """apply_categories' arguments, checked: `(transaction_id, category_id)` pairs, each
    transaction once."""

    pairs: tuple[tuple[str, str], ...]


class CategoryAssigned(Record):
    """One transaction of the subject and the category it gets."""

    transaction_id: str
    category_id: str


class RecategorisationSubject(Subject):
    """The transactions and their categories after (ids only: all of it is stored)."""

    changes: tuple[CategoryAssigned, ...]


class LoggedRecategorisation(Record):
    """One transaction of the undo data: its id (`id`) and its category before and after."""

    id: str
    before: str | None = None
    after: str


class RecategorisationUndo(Record):
    """apply_categories' undo data: each transaction's category before and after."""

    transactions: tuple[LoggedRecategorisation, ...] = ()


class ApplyCategories(
    WriteTool[Assignments, RecategorisationSubject, CategoriesAppliedFields, RecategorisationUndo]
):
    """Recategorises transactions; undone for each one still in the category it was given."""

    name = "apply_categories"
    result = CategoriesApplied

    def build(
        self, snapshot: PlanSnapshot, arguments: Assignments
    ) -> Built[RecategorisationSubject, CategoriesAppliedFields, RecategorisationUndo]:
        found = recategorisation(snapshot, arguments.pairs)
        fields = CategoriesAppliedFields(
            changes=[_entry(snapshot, c) for c in found.changes], unchanged_count=found.unchanged_count
        )
        if not found.changes:
            return Change.nothing(_nothing_message(found), fields)
        assigned = tuple(
            CategoryAssigned(transaction_id=c.transaction.id, category_id=c.after.id) for c in found.changes
        )
        logged = tuple(
            LoggedRecategorisation(id=c.transaction.id, before=c.before, after=c.after.id)
            for c in found.changes
        )
        consequences, notes = available_consequences(snapshot, _moves(found.changes))
        return Change(
            subject=RecategorisationSubject(changes=assigned),
            preview=Preview(
                question=f"Recategorise {len(found.changes)} transaction(s)?",
                lines=[_line(snapshot, c) for c in found.changes],
                consequences=consequences,
                notes=notes,
            ),
            fields=fields,
            undo_data=RecategorisationUndo(transactions=logged),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[RecategorisationSubject, CategoriesAppliedFields, RecategorisationUndo],
    ) -> Applied[CategoriesAppliedFields]:
        items = [{"id": item.id, "category_id": item.after} for item in change.undo_data.transactions]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        return Applied(lead=f"Recategorised {len(items)} transaction(s).")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[LoggedRecategorisation]:
        items: ReversalItems[LoggedRecategorisation] = ReversalItems()
        moves: list[ActivityMove] = []
        for item in RecategorisationUndo.from_stored(op.undo_data).transactions:
            state, reason = undo_state(snapshot, item.id, before=item.before, after=item.after)
            if state == "restore":
                transaction = snapshot.transactions[item.id]
                after, before = category_shown(snapshot, item.after), _shown(snapshot, item.before)
                items.restore(item, f"{transaction_line(snapshot, transaction)}: {after} → {before}")
                moves += _recategorised(transaction, item.after, item.before)
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(Conflict(item.id, transaction_line_by_id(snapshot, item.id), reason))
        consequences, notes = available_consequences(snapshot, moves)
        question = f"Undo: recategorise {items.restored} transaction(s)?"
        return items.reversal(question, tuple(notes), consequences)

    async def undo(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        op: Operation,
        reversal: Reversal[LoggedRecategorisation],
    ) -> UndoRecord:
        items = [{"id": item.id, "category_id": item.before} for item in reversal.restorable]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        restored = tuple(
            {"transaction_id": item.id, "category_id": item.before} for item in reversal.restorable
        )
        return UndoRecord(restored=restored)


@write_tool(
    ApplyCategories(),
    title="Recategorise transactions",
    toolset="transactions",
    destructive=True,
    idempotent=True,
)
def apply_categories(
    assignments: Annotated[
        list[Assignment],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} {{transaction_id, category_id}}, each transaction once.",
        ),
    ],
) -> Assignments:
    """Give transactions a category, after the person agreed to the preview.

    Find the transactions with find_transactions (earlier ones of the same payee show how they
    were categorised), show the person what you propose, then call this with their choices.
    The person is asked to confirm the exact changes, with each category's available amount
    before → after in the transactions' months and the categories left overspent named (a
    question in their client, or a confirmation code to return only once they agreed).
    Transactions that already have the category are skipped (unchanged_count). Refused: splits
    (YNAB's API cannot change their lines), transfers, transactions on tracking accounts,
    YNAB's internal categories other than Inflow: Ready to Assign (for income), credit card
    payment categories. undo_operation with the operation id puts back the categories still
    as they were set.
    """
    transaction_ids = check_ids(
        [a.transaction_id for a in assignments], what="transaction", merge_duplicates=False
    )
    category_ids = [id_arg(a.category_id, what="category") for a in assignments]
    return Assignments(tuple(zip(transaction_ids or (), category_ids, strict=True)))


def _nothing_message(found: Recategorisation) -> str:
    return (
        f"Nothing to change: the {found.unchanged_count} transaction(s) given already have these categories."
    )


def _moves(changes: Iterable[Recategorised]) -> Iterator[ActivityMove]:
    """Each transaction's amount leaves its category before and joins the one it gets."""
    for change in changes:
        yield from _recategorised(change.transaction, change.before, change.after.id)


def _recategorised(
    transaction: Transaction, before: str | None, after: str | None
) -> tuple[ActivityMove, ...]:
    """`transaction`'s activity moved from category `before` to `after`, in its month."""
    day, amount = transaction.date, transaction.amount
    return ActivityMove(before, day, -amount), ActivityMove(after, day, amount)


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


def _shown(snapshot: PlanSnapshot, category_id: str | None) -> str:
    return category_shown(snapshot, shown_category_id(snapshot, category_id))
