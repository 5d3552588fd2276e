"""Writing the log: each transition of an operation, as one conditional UPDATE."""

from __future__ import annotations

import os
import socket
import threading
from typing import Any, Protocol

from asgiref.sync import sync_to_async
from django.db import IntegrityError, transaction
from django.utils import timezone

from tools.models import Operation, new_operation_id

Status = Operation.Status
ConfirmedBy = Operation.ConfirmedBy

COMPLETED_STATUSES = (Status.APPLIED, Status.FAILED, Status.UNKNOWN)
_ID_ATTEMPTS = 5


class Principal(Protocol):
    """Who made the call (`tools.auth.Principal` fits): a token's id and name, or stdio."""

    @property
    def token_id(self) -> int | None: ...

    @property
    def name(self) -> str: ...


class OperationStateError(RuntimeError):
    """A transition the log does not allow, e.g. completing an operation twice (a caller's bug)."""


async def begin(
    *,
    plan_id: str,
    tool: str,
    subject: dict[str, Any],
    fingerprint: str,
    preview: str,
    confirmed_by: str,
    principal: Principal,
    undoable: bool,
    undo_of: Operation | None = None,
    undo_data: Any = None,
) -> Operation:
    """Record a write as `pending`, committed, before its YNAB request is sent.

    `subject` is the stored subject (no payee text, memos or amounts); `fingerprint` covers
    the full one. An undo (`undo_of` given) is never itself undoable. `undo_data` is what is
    known before sending (each item's before and after): kept from the start, so a process
    that dies mid-write leaves what settling needs to compare with YNAB. The row names this
    process as its `writer`, and counts as being written here (settling leaves it alone)
    until `finished_writing(op)`.
    """
    if confirmed_by not in ConfirmedBy.values:
        raise ValueError(f"confirmed_by must be one of {ConfirmedBy.values}, not {confirmed_by!r}.")
    if undo_of is not None and undoable:
        raise ValueError("An undo is not undoable: begin it with undoable=False.")
    fields = {
        "plan_id": plan_id,
        "tool": tool,
        "subject": subject,
        "fingerprint": fingerprint,
        "preview": preview,
        "confirmed_by": confirmed_by,
        "token_id": principal.token_id,
        "client": principal.name,
        "undoable": undoable,
        "undo_of": undo_of,
        "undo_data": undo_data,
        "writer": this_writer(),
    }
    return await sync_to_async(_insert_with_fresh_id)(fields)


def this_writer() -> str:
    """This process as an operation's `writer`: `host:pid`."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}"


_being_written: set[str] = set()
_being_written_lock = threading.Lock()


def finished_writing(op: Operation) -> None:
    """`op`'s requests are over in this process (whatever their outcome): settling may judge it now."""
    with _being_written_lock:
        _being_written.discard(op.pk)


def being_written(op_id: str) -> bool:
    """Is this process sending `op_id`'s requests right now?"""
    with _being_written_lock:
        return op_id in _being_written


def _insert_with_fresh_id(fields: dict[str, Any]) -> Operation:
    """Insert with a new random id, drawing again in the (astronomically rare) case it is taken."""
    for _ in range(_ID_ATTEMPTS):
        candidate = new_operation_id()
        with _being_written_lock:  # before the row is committed: settling never sees it unclaimed
            _being_written.add(candidate)
        op = _insert_unless_id_taken(candidate, fields)
        if op is not None:
            return op
        with _being_written_lock:
            _being_written.discard(candidate)
    raise IntegrityError(f"No free operation id after {_ID_ATTEMPTS} draws.")


def _insert_unless_id_taken(candidate: str, fields: dict[str, Any]) -> Operation | None:
    try:
        # durable: committed on exit, never folded into a caller's transaction.
        with transaction.atomic(durable=True):
            return Operation.objects.create(id=candidate, **fields)
    except IntegrityError:
        if Operation.objects.filter(pk=candidate).exists():
            return None
        raise


async def complete(
    op: Operation,
    *,
    status: str,
    undo_data: Any = None,
    error: str | None = None,
    undoable: bool | None = None,
) -> Operation:
    """Record the outcome of a `pending` operation: `applied`, `failed` or `unknown`.

    `unknown` means the request reached YNAB but no answer came back; `error` says what
    happened (for two writes: which one landed). `undoable` may be corrected now that the
    outcome is known. Raises `OperationStateError` if the row is no longer pending.
    """
    if status not in COMPLETED_STATUSES:
        raise ValueError(f"An operation completes as applied, failed or unknown, not {status!r}.")
    if undoable and op.undo_of_id is not None:
        raise ValueError("An undo is not undoable.")
    changes: dict[str, Any] = {"status": status, "completed_at": timezone.now()}
    if undo_data is not None:
        changes["undo_data"] = undo_data
    if error is not None:
        changes["error"] = error
    if undoable is not None:
        changes["undoable"] = undoable
    updated = await Operation.objects.filter(pk=op.pk, status=Status.PENDING).aupdate(**changes)
    if updated != 1:
        raise OperationStateError(f"Operation {op.pk} is not pending: it was completed already.")
    for field, value in changes.items():
        setattr(op, field, value)
    return op


async def keep_pending(op: Operation, *, error: str, undo_data: Any = None) -> Operation:
    """Leave `op` `pending` with what is known so far: a change half in YNAB that this service
    is still working to close (settling finishes it). Raises `OperationStateError` if the row
    is no longer pending."""
    changes: dict[str, Any] = {"error": error}
    if undo_data is not None:
        changes["undo_data"] = undo_data
    updated = await Operation.objects.filter(pk=op.pk, status=Status.PENDING).aupdate(**changes)
    if updated != 1:
        raise OperationStateError(f"Operation {op.pk} is not pending: it was completed already.")
    for field, value in changes.items():
        setattr(op, field, value)
    return op


async def settle(
    op: Operation, *, status: str, error: str, undo_data: Any = None, final: bool = True
) -> bool:
    """Record what YNAB's own state says of a `pending` or `unknown` operation (`tools.settling`).

    `status` is `applied`, `failed` or `unknown` (YNAB cannot tell: it keeps `unknown`);
    `error` says what landed; `final` False leaves the row to be settled again (a half
    change still being put back keeps `pending`). Conditional on the row still being as
    `op` was read (status, not settled): True when this call made the change.
    """
    if status not in (*COMPLETED_STATUSES, Status.PENDING):
        raise ValueError(f"An operation settles as applied, failed, unknown or pending, not {status!r}.")
    now = timezone.now()
    changes: dict[str, Any] = {"status": status, "error": error}
    if final:
        changes["settled_at"] = now
    if status != Status.PENDING and op.completed_at is None:
        changes["completed_at"] = now
    if undo_data is not None:
        changes["undo_data"] = undo_data
    still = Operation.objects.filter(pk=op.pk, status=op.status, settled_at__isnull=True)
    if await still.aupdate(**changes) != 1:
        return False
    for field, value in changes.items():
        setattr(op, field, value)
    return True


async def mark_undone(op_id: str, undo_op: Operation) -> bool:
    """Settling found `undo_op` landed: operation `op_id` is `undone` by it, unless it already is
    (by this undo's claim, or by another). True when this call made the change."""
    claimable = Operation.objects.filter(pk=op_id, status__in=Operation.IN_EFFECT, undone_by__isnull=True)
    return await claimable.aupdate(status=Status.UNDONE, undone_by=undo_op) == 1


async def claim_for_undo(op_id: str, undo_op: Operation) -> bool:
    """Mark operation `op_id` `undone` by `undo_op`, if nobody did yet. True for one caller only.

    One conditional UPDATE: the row must be undoable, still in effect (`applied`/`unknown`),
    not undone and not itself an undo. `undo_op` (begun with `undo_of` = that operation) must
    exist before the claim, so the claim names who undid it.
    """
    if undo_op.undo_of_id != op_id:
        raise ValueError(
            f"Operation {undo_op.pk} was begun as the undo of {undo_op.undo_of_id}, not {op_id}."
        )
    claimable = Operation.objects.filter(
        pk=op_id,
        status__in=Operation.IN_EFFECT,
        undone_by__isnull=True,
        undoable=True,
        undo_of__isnull=True,
    )
    return await claimable.aupdate(status=Status.UNDONE, undone_by=undo_op) == 1


async def release_undo_claim(op_id: str, undo_op: Operation, *, status: str) -> bool:
    """Give back a claim whose undo wrote nothing: the operation returns to `status`.

    `status` is what the operation was when claimed (`applied` or `unknown`). Only the claim
    of `undo_op` is released; True when it was.
    """
    if status not in Operation.IN_EFFECT:
        raise ValueError(f"A released operation is applied or unknown again, not {status!r}.")
    claimed = Operation.objects.filter(pk=op_id, status=Status.UNDONE, undone_by=undo_op)
    return await claimed.aupdate(status=status, undone_by=None) == 1
