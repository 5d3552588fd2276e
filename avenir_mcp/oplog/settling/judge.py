"""What YNAB's own state says of one unsettled operation: the `Settlement` to record.

An operation is unsettled while it is `pending` (begun, never completed: the process stopped,
or half of it is still being put back) or `unknown` (a request got no answer) and not yet
settled. Each is judged on a fresh snapshot (`settlement_of`):

- a tool may judge its own (its `WriteKind.settle`: move_money, split_transaction,
  create_transactions);
- `undo_operation` rows by `undo_settled` (below): did the undo land?
- every other tool from its reversal, item by item (`oplog.undo`): still as the operation
  left it = landed; as before = not landed; anything else = changed since, which YNAB cannot
  tell apart.

The rule (docs/confirmation.md#when-ynabs-answer-is-lost): all landed → `applied`; none landed → `failed`
(nothing of it is in YNAB); a mix → `applied` (in effect, so undo restores exactly what landed) with the log
saying which items landed and which did not; when YNAB's state cannot tell (items changed since, a
tool with nothing to compare), `unknown`, settled, with what the person can check. A tool's settle
may also act (move_money puts back the half of a move that landed); it then returns
`final=False` while that is not done, and settling tries again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from avenir_mcp.oplog.kinds import PREFIX, Settlement, kind_of
from avenir_mcp.oplog.undo import Reversal, UndoRecord

if TYPE_CHECKING:
    from avenir_mcp.oplog.models import Operation
    from avenir_mcp.ynab_client import PlanSnapshot, YnabClient


async def settlement_of(client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
    """What YNAB's state says of `op`: an undo's by `undo_settled`, else its tool's own `settle`,
    else judged item by item from its tool's reversal (the module docstring)."""
    if op.undo_of_id is not None:
        return undo_settled(snapshot, op)
    kind = kind_of(op.tool)
    if kind is None:
        return cannot_tell(op)
    own = await kind.settle(client, snapshot, op)
    if own is not None:
        return own
    reversal = kind.reversal(snapshot, op) if op.undo_data is not None else None
    return judged(reversal) if reversal is not None else cannot_tell(op)


def judged(reversal: Reversal) -> Settlement:
    """The rule of the module docstring, from a tool's reversal, item by item."""
    landed, not_landed, changed = reversal.restored, reversal.already_as_before, len(reversal.conflicts)
    total = landed + not_landed + changed
    changed_text = "; ".join(f"{c.name} ({c.id}): {c.reason}" for c in reversal.conflicts)
    if total == 0:
        return Settlement("unknown", f"{PREFIX} the operation holds no item to compare with YNAB.", "unsure")
    if landed == total:
        return Settlement(
            "applied", f"{PREFIX} all {total} item(s) are in YNAB as the operation left them.", "all"
        )
    if not_landed == total:
        return Settlement(
            "failed", f"{PREFIX} none of its {total} item(s) is in YNAB: nothing was changed.", "none"
        )
    if landed:
        said = f"{PREFIX} {landed} of {total} item(s) landed"
        if not_landed:
            said += f"; {not_landed} did not (as before)"
        if changed:
            said += f"; {changed} changed since, so YNAB cannot tell: {changed_text}"
        return Settlement(
            "applied", said + ". undo_operation restores only what landed (its preview names them).", "part"
        )
    return Settlement(
        "unknown",
        f"{PREFIX} YNAB cannot tell whether it landed: {changed} item(s) changed since ({changed_text})"
        + (f"; {not_landed} are as before" if not_landed else "")
        + ". Check them in YNAB; undo_operation never overwrites a change made since.",
        "unsure",
    )


def cannot_tell(op: Operation) -> Settlement:
    """A tool whose outcome YNAB's state cannot show (nothing recorded to compare with)."""
    return Settlement(
        "unknown",
        f"{PREFIX} nothing of {op.tool} can be compared with YNAB, so its outcome stays unknown. "
        f"{op.error or 'Check the plan in YNAB.'}".strip(),
        "unsure",
    )


def undo_settled(snapshot: PlanSnapshot, op: Operation) -> Settlement:
    """An undo whose outcome is not known: did its writes land? Judged by the original's reversal.

    Nothing of the original left as it left it → the undo landed: `applied`, and the original
    becomes `undone` by it (`oplog.settling` does that). All of what the undo set out to restore
    still as the original left it → nothing landed: `failed` (the original stays in effect).
    Part of it → `applied` for that part; the original stays in effect for the rest.
    """
    original = op.undo_of
    kind = kind_of(original.tool) if original is not None else None
    reversal = kind.reversal(snapshot, original) if kind is not None and original is not None else None
    if original is None or reversal is None or original.undo_data is None:
        return cannot_tell(op)
    restoring = UndoRecord.from_stored(op.undo_data).restoring or 0
    if reversal.nothing_to_restore:
        said = f"{PREFIX} the undo landed: nothing of {original.pk} is left as it set it."
        return Settlement("applied", said, "all")
    if restoring and reversal.restored >= restoring:
        said = (
            f"{PREFIX} the undo did not land: the {reversal.restored} item(s) it was to restore are still "
            f"as {original.pk} left them; undo_operation can try again."
        )
        return Settlement("failed", said, "none")
    said = (
        f"{PREFIX} the undo landed in part: {reversal.restored} item(s) of {original.pk} are still as it "
        "left them; undo_operation restores them."
    )
    return Settlement("applied", said, "part")
