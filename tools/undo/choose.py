"""Which operation an undo acts on, and why one cannot be undone (the refusals of
docs/undo.md#what-undo-refuses).

`choose(plan_id, operation_id)` reads the log only (no YNAB request): the named operation of
this plan, or, without an id, the plan's latest `applied` or `unknown` operation from any
client. Either way it returns the operation and its handler, or raises `UndoRefused` with a
one-line message that says why and what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools import oplog
from tools.logic.text import quoted
from tools.models import Operation
from tools.undo.registry import UndoHandler, handler_for

Status = Operation.Status


class UndoRefused(Exception):
    """This undo cannot happen; the message (one line) says why and what to do instead."""


@dataclass(frozen=True)
class Target:
    """The operation to undo and the handler of its tool."""

    op: Operation
    handler: UndoHandler


async def choose(plan_id: str, operation_id: str | None) -> Target:
    """The operation `operation_id` of this plan, or the plan's latest one still in effect."""
    if operation_id is not None:
        op = await oplog.get(plan_id, operation_id)
        if op is None:
            raise UndoRefused(
                f"No operation {quoted(operation_id, 40)} in this plan; list_operations gives the valid ids."
            )
        return target_of(op)
    latest = await oplog.latest_in_effect(plan_id)
    if latest is None:
        raise UndoRefused("This plan has no operation in effect to undo; list_operations shows its log.")
    try:
        return target_of(latest)
    except UndoRefused as refusal:
        raise UndoRefused(
            f"The latest operation of this plan cannot be undone: {refusal} "
            "To undo an older one, pass its operation_id (list_operations gives them)."
        ) from None


def target_of(op: Operation) -> Target:
    """`op` and its handler when it can be undone now, else `UndoRefused` saying why."""
    reason = why_not_undoable(op)
    if reason is not None:
        raise UndoRefused(reason)
    handler = handler_for(op.tool)
    if handler is None:
        raise UndoRefused(
            f"Operation {op.pk} ({op.tool}) cannot be undone: this server has no undo for {op.tool}."
        )
    return Target(op, handler)


def why_not_undoable(op: Operation) -> str | None:
    """Why `op` cannot be undone now (a sentence naming it), or None when it can be."""
    name = f"Operation {op.pk} ({op.tool})"
    if op.undo_of_id is not None:
        return (
            f"{name} is itself the undo of {op.undo_of_id}, and an undo cannot be undone; "
            "to bring that change back, make it again."
        )
    if op.status == Status.UNDONE or op.undone_by_id is not None:
        return f"{name} was already undone by operation {op.undone_by_id}."
    if op.status == Status.PENDING:
        return (
            f"{name} is still pending: its outcome is not recorded yet, so there is nothing to undo; "
            "check list_operations again shortly."
        )
    if op.status == Status.FAILED:
        landed = f" What happened: {_one_line(op.error)}" if op.error else ""
        return f"{name} failed, so it is not in effect and there is nothing to undo.{landed}"
    if not op.undoable:
        return f"{name} cannot be undone: {oplog.not_undoable_reason(op.tool)}."
    if op.undo_data is None:
        return f"{name} cannot be undone: nothing was recorded to undo it with."
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())
