"""A write kind for the framework's own tests: the undo of assigned amounts of several categories.

The undo framework (choosing, previewing, asking, claiming, logging, releasing) is the same
for every tool; this kind lets its tests drive it with several independent items (so a
conflict on one leaves the others restorable) besides the real tools' kinds. It is a real
`WriteKind` (registered with `oplog.kinds` when imported): it compares the log's undo data with
a real plan snapshot and writes to the sandbox through the real YNAB client, one PATCH per
category, in order.

Undo data: `{"month": "YYYY-MM-01", "categories": [{"category_id", "before", "after"}]}`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from avenir_mcp.oplog import kinds
from avenir_mcp.oplog.kinds import WriteKind
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord, item_state
from avenir_mcp.tools.logic.assigned import AssignedWords
from avenir_mcp.values.money import shown_amount
from avenir_mcp.ynab_client import PlanSnapshot, UnknownOutcome, YnabClient, YnabError
from avenir_mcp.ynab_client.errors import WriteFailed

TOOL = "undo_test_budgets"


class BudgetsUndo(WriteKind):
    name = TOOL

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[dict[str, Any]]:
        month = date.fromisoformat(op.undo_data["month"])
        words, items = AssignedWords.of(snapshot), ReversalItems[dict[str, Any]]()
        for item in op.undo_data["categories"]:
            figures = snapshot.month_category(month, item["category_id"])
            current = figures.budgeted if figures is not None else None
            state = item_state(current, before=item["before"], after=item["after"])
            name = figures.name if figures is not None else item["category_id"]
            if state == "restore":
                items.restore(item, f"{name}: {words.shift(item['after'], item['before'])}")
            elif state == "already_as_before":
                items.already_as_before()
            else:
                assigned = shown_amount(words.currency, current) if current is not None else None
                now = "it was deleted" if assigned is None else f"assigned is now {assigned}"
                items.conflict(Conflict(item["category_id"], name, now))
        return items.reversal(f"Undo: budget {items.restored} category(ies) for {month.isoformat()}?")

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[dict[str, Any]]
    ) -> UndoRecord:
        """One PATCH per category, in order. The items are independent, so a failure half way
        leaves the ones restored so far (said exactly), and a later undo restores the rest."""
        plan_id, month, restored = snapshot.plan_id, op.undo_data["month"], []
        for item in reversal.restorable:
            try:
                await client.patch_month_category(plan_id, month, item["category_id"], item["before"])
            except UnknownOutcome:
                raise
            except YnabError as error:
                if not restored:
                    raise
                said = f"Restored {', '.join(restored)} only, then: {error.message} Undo again for the rest."
                partly = UndoRecord(month=month, restored=tuple(restored))
                raise WriteFailed(said, undo_data=partly) from error
            restored.append(item["category_id"])
        return UndoRecord(month=month, restored=tuple(restored))


kinds.register(BudgetsUndo())
