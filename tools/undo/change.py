"""An undo as the write flow runs it: the `Change` to confirm, its `apply`, and the claim.

`UndoWrite(target)` gives the flow's `build` and `apply` for undoing `target.op`, the same
for the `undo_operation` tool and the admin's Undo:

- `build(snapshot)`: the handler's plan on that snapshot. Nothing still as the operation left
  it → `nothing_to_do` (nothing asked, nothing written, the operation keeps its status).
  Otherwise the subject `{"operation_id": ...}` (CONFIRMATION.md), the undo preview, the
  result fields, and the row's ties: `undo_of` (the undo's row names the operation, and is
  never undoable) and `hold` (the claim below).
- the claim (`hold`), entered once the undo's `pending` row exists and before any request:
  `oplog.claim_for_undo` marks the operation `undone` by this undo in one conditional
  UPDATE, so of two concurrent undos exactly one proceeds; the other sends nothing and fails.
  If the undo's requests then fail (refused, no answer, interrupted), the claim is given
  back: the operation is `applied`/`unknown` again and the undo can be tried again safely,
  since it re-reads the plan and restores only what is still as the operation left it.
- `apply(client, snapshot, change)`: the handler's requests, for the plan rebuilt from the
  same snapshot (a handler's `plan` is pure).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio

from tools import oplog
from tools.models import Operation
from tools.undo.choose import Target
from tools.undo.registry import UndoPartlyApplied, UndoPlan
from tools.undo.words import nothing_to_restore_message, undo_preview
from tools.writes.flow import Applied, Change, Hold, WriteFailed
from tools.ynab import PlanSnapshot, YnabClient

TOOL = "undo_operation"
UNKNOWN_CHECK = (
    "Call undo_operation again to see what is still to restore: it restores only what is still "
    "as the operation left it, so nothing is done twice."
)


def undo_subject(op: Operation) -> dict[str, Any]:
    """What the person agrees to: undoing this operation (CONFIRMATION.md's subject)."""
    return {"operation_id": op.pk}


def result_fields(op: Operation, plan: UndoPlan) -> dict[str, Any]:
    """`undo_operation`'s own result fields (TOOLS.md §4)."""
    return {
        "undone_operation_id": op.pk,
        "restored": plan.restored,
        "already_as_before": plan.already_as_before,
        "conflicts": [{"id": c.id, "name": c.name, "reason": c.reason} for c in plan.conflicts],
    }


@dataclass(frozen=True)
class UndoWrite:
    """The flow's `build` and `apply` for undoing one operation."""

    target: Target

    def plan(self, snapshot: PlanSnapshot) -> UndoPlan:
        return self.target.handler.plan(snapshot, self.target.op)

    def build(self, snapshot: PlanSnapshot) -> Change:
        op, plan = self.target.op, self.plan(snapshot)
        fields = result_fields(op, plan)
        if plan.nothing_to_restore:
            return Change.nothing(nothing_to_restore_message(op, plan), fields)
        subject = undo_subject(op)
        return Change(
            subject=subject,
            stored_subject=subject,
            preview=undo_preview(plan),
            fields=fields,
            undoable=False,
            undo_data={"undo_of": op.pk, "restoring": plan.restored},
            check=UNKNOWN_CHECK,
            undo_of=op,
            hold=claim(op),
        )

    async def apply(self, client: YnabClient, snapshot: PlanSnapshot, change: Change) -> Applied:
        plan = self.plan(snapshot)
        try:
            undo_data = await self.target.handler.apply(client, snapshot, self.target.op, plan)
        except UndoPartlyApplied as partly:
            raise WriteFailed(partly.message, undo_data=partly.undo_data) from partly
        return Applied(undo_data=undo_data, lead=restored_sentence(self.target.op, plan))


def restored_sentence(op: Operation, plan: UndoPlan) -> str:
    """`Restored 2 item(s) of operation X; 1 changed since was left as it is.`"""
    left = f"; {len(plan.conflicts)} changed since left as it is" if plan.conflicts else ""
    return f"Restored {plan.restored} item(s) of operation {op.pk}{left}."


def claim(original: Operation) -> Hold:
    """The claim on `original`, held while the undo's requests run (see the module docstring)."""
    status_before = original.status

    @asynccontextmanager
    async def hold(undo_row: Operation) -> AsyncIterator[None]:
        if not await oplog.claim_for_undo(original.pk, undo_row):
            raise WriteFailed(await _lost_claim(original))
        try:
            yield
        except BaseException:
            with anyio.CancelScope(shield=True):  # a cancelled call must still give the claim back
                await oplog.release_undo_claim(original.pk, undo_row, status=status_before)
            raise

    return hold


async def _lost_claim(original: Operation) -> str:
    now = await oplog.get(original.plan_id, original.pk)
    by = f" by operation {now.undone_by_id}" if now is not None and now.undone_by_id else ""
    return (
        f"Operation {original.pk} was undone meanwhile{by}, so this undo sent nothing; "
        "list_operations shows the log."
    )
