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

Modules: `record` (transitions), `listing` (queries, paging), `words` (summaries, messages).
"""

from __future__ import annotations

from tools.oplog.listing import (
    MAX_PAGE,
    OperationPage,
    OperationQuery,
    get,
    latest_in_effect,
    page,
    page_sync,
    start_of_day,
)
from tools.oplog.record import (
    COMPLETED_STATUSES,
    OperationStateError,
    Principal,
    begin,
    being_written,
    claim_for_undo,
    complete,
    finished_writing,
    keep_pending,
    mark_undone,
    release_undo_claim,
    settle,
    this_writer,
)
from tools.oplog.words import applied_message, not_undoable_reason, summary, unknown_message
from tools.paging import InvalidCursor

__all__ = [
    "COMPLETED_STATUSES",
    "MAX_PAGE",
    "InvalidCursor",
    "OperationPage",
    "OperationQuery",
    "OperationStateError",
    "Principal",
    "applied_message",
    "begin",
    "being_written",
    "claim_for_undo",
    "complete",
    "finished_writing",
    "get",
    "keep_pending",
    "latest_in_effect",
    "mark_undone",
    "not_undoable_reason",
    "page",
    "page_sync",
    "release_undo_claim",
    "settle",
    "start_of_day",
    "summary",
    "this_writer",
    "unknown_message",
]
