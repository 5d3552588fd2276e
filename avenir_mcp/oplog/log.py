"""The operation log's service functions: the only code that writes `Operation` rows.

A write tool, once the person agreed (or at once for unconfirmed tools), does:

    op = await oplog.begin(plan_id=..., tool=..., subject=stored_subject, fingerprint=...,
                           preview=..., confirmed_by=decision.confirmed_by,
                           principal=principal_of(ctx), undoable=True)   # committed: `pending`
    ... the YNAB request(s) ...
    await oplog.complete(op, status="applied", undo_data=...)           # or failed / unknown
    message = oplog.applied_message(op)

`begin` commits before it returns, so a crash between the two calls leaves a `pending` row
as a visible trace. Transitions are conditional UPDATEs (`... WHERE status = ...`), so each
one happens exactly once even under concurrency: `complete` only from `pending`, and
`claim_for_undo` only from `applied`/`unknown` not yet undone: of two concurrent undos of
one operation exactly one wins. Every function here is async (the ORM runs off the event
loop); `page_sync` is the same listing for synchronous Django views.

Sections: writing the log (transitions), reading it (queries, paging with signed cursors),
and what it says in words (summaries, the messages of write results: pure functions of a row).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from avenir_mcp.oplog.models import Operation, new_operation_id
from avenir_mcp.values.paging import MAX_PAGE, read_cursor, sign_cursor
from avenir_mcp.values.paging import (
    InvalidCursor as InvalidCursor,  # oplog.InvalidCursor: what page() refuses with
)
from avenir_mcp.values.text import safe_text
from avenir_mcp.ynab_client.errors import UndoData

if TYPE_CHECKING:
    from avenir_mcp.tokens.auth import Principal

Status = Operation.Status
ConfirmedBy = Operation.ConfirmedBy

COMPLETED_STATUSES = (Status.APPLIED, Status.FAILED, Status.UNKNOWN)
_ID_ATTEMPTS = 5
KEYSET_CURSOR = "oplog-keyset"  # the kind of the log's cursors (its salt): never read as an offset
SUMMARY_LENGTH = 200


StoredUndo = UndoData
"""Undo data as a transition takes it: a tool's typed value (`oplog.records.Record`), or JSON
as a row already holds it (what settling read back and keeps)."""


def stored_undo_data(undo_data: StoredUndo) -> Any:
    """The row's JSON of `undo_data`: the one place a typed value is serialised."""
    return undo_data if undo_data is None or isinstance(undo_data, Mapping) else undo_data.stored()


# --- writing the log: each transition of an operation, as one conditional UPDATE ---


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
    undo_data: StoredUndo = None,
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
        "undo_data": stored_undo_data(undo_data),
        "writer": this_writer(),
    }
    return await sync_to_async(_insert_with_fresh_id)(fields)


def this_writer() -> str:
    """This process as an operation's `writer`: `host:pid`."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}"


def writer_gone(writer: str) -> bool:
    """Is `writer` (`host:pid`, as `this_writer` names a process, maybe followed by `:more`) a
    process of this host that no longer runs? A process of another host may be alive: False."""
    host, _, rest = writer.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname()[:80] or not pid.isdigit():
        return False
    try:
        with contextlib.suppress(PermissionError):  # a process of another user: it runs
            os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    return False


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


async def _update_pending(op: Operation, changes: dict[str, Any]) -> Operation:
    """Write `changes` to `op`'s row only while it is `pending`, and to `op` itself.

    Raises `RuntimeError` (a caller's bug) if the row is no longer pending."""
    updated = await Operation.objects.filter(pk=op.pk, status=Status.PENDING).aupdate(**changes)
    if updated != 1:
        raise RuntimeError(f"Operation {op.pk} is not pending: it was completed already.")
    for field, value in changes.items():
        setattr(op, field, value)
    return op


async def complete(
    op: Operation,
    *,
    status: str,
    undo_data: StoredUndo = None,
    error: str | None = None,
    undoable: bool | None = None,
) -> Operation:
    """Record the outcome of a `pending` operation: `applied`, `failed` or `unknown`.

    `unknown` means the request reached YNAB but no answer came back; `error` says what
    happened (for two writes: which one landed). `undoable` may be corrected now that the
    outcome is known. Raises `RuntimeError` (a caller's bug) if the row is no longer pending.
    """
    if status not in COMPLETED_STATUSES:
        raise ValueError(f"An operation completes as applied, failed or unknown, not {status!r}.")
    if undoable and op.undo_of_id is not None:
        raise ValueError("An undo is not undoable.")
    changes: dict[str, Any] = {"status": status, "completed_at": timezone.now()}
    if undo_data is not None:
        changes["undo_data"] = stored_undo_data(undo_data)
    if error is not None:
        changes["error"] = error
    if undoable is not None:
        changes["undoable"] = undoable
    return await _update_pending(op, changes)


async def keep_pending(op: Operation, *, error: str, undo_data: StoredUndo) -> Operation:
    """Leave `op` `pending` with what is known so far: a change half in YNAB that this service
    is still working to close (settling finishes it, from `undo_data`: what landed). Raises
    `RuntimeError` (a caller's bug) if the row is no longer pending."""
    return await _update_pending(op, {"error": error, "undo_data": stored_undo_data(undo_data)})


async def settle(
    op: Operation, *, status: str, error: str, undo_data: StoredUndo = None, final: bool = True
) -> bool:
    """Record what YNAB's own state says of a `pending` or `unknown` operation (`oplog.settling`).

    `status` is `applied`, `failed` or `unknown` (YNAB cannot tell: it keeps `unknown`), or
    `pending` (a settler's `Settlement.status`, typed to those four);
    `error` says what landed; `final` False leaves the row to be settled again (a half
    change still being put back keeps `pending`). Conditional on the row still being as
    `op` was read (status, not settled): True when this call made the change.
    """
    now = timezone.now()
    changes: dict[str, Any] = {"status": status, "error": error}
    if final:
        changes["settled_at"] = now
    if status != Status.PENDING and op.completed_at is None:
        changes["completed_at"] = now
    if undo_data is not None:
        changes["undo_data"] = stored_undo_data(undo_data)
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

    `status` is what the operation was when claimed (`applied` or `unknown`: only an operation
    in effect can be claimed, `target_of` and settling pass nothing else). Only the claim of
    `undo_op` is released; True when it was.
    """
    claimed = Operation.objects.filter(pk=op_id, status=Status.UNDONE, undone_by=undo_op)
    return await claimed.aupdate(status=status, undone_by=None) == 1


# --- reading the log: one operation, the latest still in effect, pages with opaque cursors ---


async def get(plan_id: str, op_id: str) -> Operation | None:
    """Operation `op_id` of this plan, or None (an id of another plan is not found here)."""
    return await Operation.objects.filter(plan_id=plan_id, pk=op_id).afirst()


async def latest_in_effect(plan_id: str) -> Operation | None:
    """The plan's latest `applied` or `unknown` operation, from any client (undo's default)."""
    in_effect = Operation.objects.filter(plan_id=plan_id, status__in=Operation.IN_EFFECT)
    return await in_effect.order_by("-created_at", "-id").afirst()


@dataclass(frozen=True)
class OperationQuery:
    """Filters of a listing; None means any. `since` is inclusive."""

    plan_id: str | None = None
    status: str | None = None
    tool: str | None = None
    since: dt.datetime | None = None


@dataclass(frozen=True)
class OperationPage:
    operations: list[Operation]
    next_cursor: str | None


async def page(
    query: OperationQuery, *, limit: int = 50, cursor: str | None = None, scope: str = "list_operations"
) -> OperationPage:
    """One page of operations, newest first; see `page_sync`."""
    return await sync_to_async(page_sync)(query, limit=limit, cursor=cursor, scope=scope)


def page_sync(
    query: OperationQuery, *, limit: int = 50, cursor: str | None = None, scope: str = "list_operations"
) -> OperationPage:
    """One page of operations, newest first, and the cursor of the next (None at the end).

    The cursor (`values.paging.sign_cursor`) is bound to `scope` (who lists: a tool, the API)
    and the filters: given to any other query it raises `InvalidCursor`. Keyset paging on
    (created_at, id), so rows written meanwhile never shift a page.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, not {limit}.")
    query_key = _query_key(scope, query)
    rows = _filtered(query)
    if cursor is not None:
        created_at, op_id = read_cursor(KEYSET_CURSOR, cursor, query_key)
        rows = _after(rows, dt.datetime.fromisoformat(created_at), op_id)
    found = list(rows[: limit + 1])
    more = len(found) > limit
    found = found[:limit]
    if not more:
        return OperationPage(found, None)
    position = [found[-1].created_at.isoformat(), found[-1].pk]
    return OperationPage(found, sign_cursor(KEYSET_CURSOR, query_key, position))


def start_of_day(day: dt.date) -> dt.datetime:
    """Midnight at the start of `day` in the server's time zone ("today" follows TIME_ZONE),
    held within what UTC can hold (`within_utc`)."""
    return within_utc(dt.datetime.combine(day, dt.time.min))


def within_utc(moment: dt.datetime) -> dt.datetime:
    """`moment` (naive: in the server's time zone), held within what UTC can hold: 0001-01-01
    east of Greenwich is before year 1 in UTC, 9999-12-31 west of it after 9999, so a time at
    the calendar's ends never overflows when the database compares it."""
    aware = timezone.make_aware(moment) if timezone.is_naive(moment) else moment
    try:
        aware.astimezone(dt.UTC)
    except OverflowError:
        return (
            dt.datetime.min.replace(tzinfo=dt.UTC)
            if aware.year == 1
            else dt.datetime.max.replace(tzinfo=dt.UTC)
        )
    return aware


def _filtered(query: OperationQuery) -> QuerySet[Operation]:
    rows = Operation.objects.all()
    if query.plan_id is not None:
        rows = rows.filter(plan_id=query.plan_id)
    if query.status is not None:
        rows = rows.filter(status=query.status)
    if query.tool is not None:
        rows = rows.filter(tool=query.tool)
    if query.since is not None:
        rows = rows.filter(created_at__gte=query.since)
    return rows.order_by("-created_at", "-id")


def _after(rows: QuerySet[Operation], created_at: dt.datetime, op_id: str) -> QuerySet[Operation]:
    return rows.filter(Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=op_id))


def _query_key(scope: str, query: OperationQuery) -> dict[str, Any]:
    since = query.since.isoformat() if query.since is not None else None
    return {"scope": scope, "plan": query.plan_id, "status": query.status, "tool": query.tool, "since": since}


# --- what the log says about an operation, in words (pure functions of a row) ---


# Why a tool's operations cannot be undone, in the words of docs/undo.md#what-undo-refuses.
NOT_UNDOABLE_REASONS = {
    "import_transactions": "imports are not reversed; the imported transactions stay in YNAB, "
    "unapproved, for review",
    "create_category": "YNAB's API cannot delete a category; hiding it in YNAB is the only way back",
    "create_account": "YNAB's API cannot close or delete an account; closing it in YNAB is the only way back",
    "create_category_group": "YNAB's API cannot delete a category group; hiding it in YNAB is the only "
    "way back",
    "split_transaction": "YNAB's API cannot edit a split; only YNAB itself can undo it",
    "set_category_target": "the previous target is a kind YNAB's API cannot set, so it cannot come back",
}
DEFAULT_NOT_UNDOABLE_REASON = "this kind of change has no undo"


def summary(op: Operation) -> str:
    """One line for lists: the preview's first line (its question), else a short description."""
    first_line = next((line for line in op.preview.splitlines() if line.strip()), "")
    return safe_text(first_line or _description(op), SUMMARY_LENGTH) or ""


def _description(op: Operation) -> str:
    if op.undo_of_id is not None:
        return f"Undo of operation {op.undo_of_id}"
    return op.tool.replace("_", " ").capitalize()


def not_undoable_reason(tool: str) -> str:
    """Why operations of `tool` cannot be undone, as a clause."""
    return NOT_UNDOABLE_REASONS.get(tool, DEFAULT_NOT_UNDOABLE_REASON)


def applied_message(op: Operation) -> str:
    """The sentence an applied write returns: its operation id and how (or why not) to undo it."""
    if op.undo_of_id is not None:
        return f"Done as operation {op.pk}, undoing {op.undo_of_id}; an undo cannot itself be undone."
    if op.undoable:
        return f"Done as operation {op.pk}; undo_operation with that id reverses it."
    return f"Done as operation {op.pk}; it cannot be undone: {not_undoable_reason(op.tool)}."


def unknown_message(op: Operation, check: str) -> str:
    """The error for a write that got no answer: it may or may not be in YNAB, and is not resent.

    `check` names the read that will tell, e.g. "Check with find_transactions."
    """
    return (
        f"No answer came back from YNAB for operation {op.pk}: the change may or may not be "
        f"in YNAB, and it is not sent again. {check}"
    )
