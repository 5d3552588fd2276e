"""Undo started outside MCP, by the owner in the admin: propose it, then run it once agreed.

The admin's Undo button leads to an intermediate page showing `propose(op_id)`: the same
preview an agent's person would see (restorable items, conflicts by name), computed by the
same handler on a fresh snapshot. Posting that page is the owner's agreement, and
`undo_agreed` runs the undo with the same code as the tool (`UndoWrite` through the write
flow's `agreed_write`): a row of its own with `confirmed_by` "admin", the claim, the handler's
requests, the claim given back on failure.

The page carries a digest of what it showed; if the plan changed since (an item restorable
then is not now, or the reverse), `undo_agreed` writes nothing and proposes again, so the
owner only ever agrees to what they saw.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from avenir_mcp import ynab_client
from avenir_mcp.confirmations.preview import render
from avenir_mcp.oplog import plan_lock, settling
from avenir_mcp.oplog.changes import Change, Nothing, agreed_write
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.undo import Reversal, nothing_to_restore_message, undo_preview
from avenir_mcp.oplog.undo_write import TOOL, UndoWrite, target_of
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.refusal import Refusal


@dataclass(frozen=True)
class Proposal:
    """What undoing `op` would do now, for the intermediate page.

    Exactly one of `refusal` (it cannot be undone, or the plan could not be read),
    `nothing` (nothing left to restore) or `preview` (what the owner is asked) is set;
    `plan` is the handler's plan whenever the plan was read; `digest` fingerprints it.
    """

    op: Operation
    refusal: str | None = None
    nothing: str | None = None
    preview: str | None = None
    reversal: Reversal | None = None
    digest: str = ""

    @property
    def can_proceed(self) -> bool:
        return self.preview is not None


@dataclass(frozen=True)
class AdminOutcome:
    """What posting the page did: `undo_id` when applied; else `proposal` to show again."""

    message: str
    undo_id: str | None = None
    proposal: Proposal | None = None

    @property
    def applied(self) -> bool:
        return self.undo_id is not None


def admin_principal(username: str) -> Principal:
    """Who the log names for an undo started in the admin: the staff user, no MCP token."""
    return Principal(token_id=None, name=f"admin: {username}"[:100], read_only=False)


async def propose(op: Operation) -> Proposal:
    """The undo of `op` as it would be now (one YNAB request: the plan's delta)."""
    if op.status in (Operation.Status.PENDING, Operation.Status.UNKNOWN):
        await settling.settle_plan(op.plan_id)  # its outcome first, from YNAB's own state
        op = await Operation.objects.select_related("undo_of").aget(pk=op.pk)
    try:
        undo = UndoWrite(target_of(op))
        with ynab_client.request_kind(ynab_client.RequestKind.WRITE):  # fresh, and the hour's reserve is open
            snapshot = await ynab_client.plan_snapshot(op.plan_id)
    except Refusal as refused:
        return Proposal(op, refusal=str(refused))
    except ynab_client.YnabError as error:
        return Proposal(op, refusal=f"The plan could not be read, so nothing can be undone: {error.message}")
    return _proposal(op, undo.reversal(snapshot))


def _proposal(op: Operation, reversal: Reversal) -> Proposal:
    digest = reversal_digest(reversal)
    if reversal.nothing_to_restore:
        return Proposal(
            op, nothing=nothing_to_restore_message(op, reversal), reversal=reversal, digest=digest
        )
    return Proposal(op, preview=render(undo_preview(reversal)), reversal=reversal, digest=digest)


async def undo_agreed(op: Operation, *, digest: str, username: str) -> AdminOutcome:
    """Run the undo the owner agreed to on a page showing `digest`; never anything else.

    The plan's write lock is held from the plan read to the undo's log row's end, so the undo
    sent is the one checked against `digest`."""
    try:
        async with plan_lock.held(op.plan_id):
            return await _undo_checked(op, digest=digest, username=username)
    except Refusal as refused:
        return AdminOutcome(str(refused))


async def _undo_checked(op: Operation, *, digest: str, username: str) -> AdminOutcome:
    undo = UndoWrite(target_of(op))
    try:
        with ynab_client.request_kind(ynab_client.RequestKind.WRITE):  # fresh, and the hour's reserve is open
            snapshot = await ynab_client.plan_snapshot(op.plan_id, exclusive=True)
    except ynab_client.YnabError as error:
        return AdminOutcome(f"The plan could not be read, so nothing was undone: {error.message}")
    proposal, change = _proposal(op, undo.reversal(snapshot)), undo.build(snapshot)
    if proposal.digest != digest or isinstance(change, Nothing):
        said = "The plan changed since the page was shown: nothing was undone; review the undo again."
        return AdminOutcome(said, proposal=proposal)
    return await _run(undo, snapshot, change, username)


async def _run(
    undo: UndoWrite, snapshot: ynab_client.PlanSnapshot, change: Change[Any, Any, Any], username: str
) -> AdminOutcome:
    try:
        logged = await agreed_write(
            tool=TOOL,
            snapshot=snapshot,
            change=change,
            apply=undo.apply,
            confirmed_by=Operation.ConfirmedBy.ADMIN,
            preview=render(change.preview),
            principal=admin_principal(username),
        )
    except ynab_client.YnabError as failed:
        return AdminOutcome(failed.message)
    return AdminOutcome(logged.message, undo_id=logged.op.pk)


def reversal_digest(reversal: Reversal) -> str:
    """A fingerprint of everything the page shows of an undo: items, conflicts and counts."""
    shown = {
        "question": reversal.question,
        "lines": list(reversal.lines),
        "restorable": len(reversal.restorable),
        "already_as_before": reversal.already_as_before,
        "conflicts": [[c.id, c.name, c.reason] for c in reversal.conflicts],
        "notes": list(reversal.notes),
    }
    return hashlib.sha256(json.dumps(shown, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
