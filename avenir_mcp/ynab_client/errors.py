"""The YNAB client's errors: one tree, with messages an agent can act on.

Every failure of a YNAB request is a `YnabError`; four cases are told apart by their type:

    YnabError          YNAB refused or failed (`status`, YNAB's `error_id` / `name` / `detail`),
    │                  or could not be reached (`status` None); `retryable` says whether the same
    │                  request may be tried again later as it is, or must change first
    ├── PacingRefused  nothing was sent: this service keeps under YNAB's hourly limit, or waits
    │                  out a 429; `retry_at` says when a request may leave
    ├── UnknownOutcome a write was sent and no answer came back: it may or may not be applied,
    │                  and it is never resent; the message says how to check
    ├── MalformedAnswer YNAB answered 2xx with a body this client cannot read (for a write:
    │                  YNAB took it, and its outcome is unknown here)
    └── WriteFailed    a write whose outcome the writer knows exactly (`outcome`, `undo_data`)

A `Refusal` (`values.refusal`) is the other kind of error: the agent's request, refused before
anything is sent. `mcp_surface.answers` turns both into the tool's error result, in one place.

`message` (also `str(error)`) is one or two sentences for the agent: what happened and
what to do next. YNAB's `detail` is quoted in it on one line and cut short.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, Protocol

from avenir_mcp.values.text import safe_text

_DETAIL_LIMIT = 300


class YnabError(Exception):
    """A YNAB request that did not succeed; `message` says what to do next."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_id: str | None = None,
        name: str | None = None,
        detail: str | None = None,
        retryable: bool = False,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error_id = error_id
        self.name = name
        self.detail = detail
        self.retryable = retryable
        self.retry_after = retry_after  # a 429's Retry-After, in seconds, as YNAB sent it

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, error_id={self.error_id!r}, {self.message!r})"


class PacingRefused(YnabError):
    """Not sent: the hourly budget is spent or YNAB asked to wait; `retry_at` is when to retry."""

    def __init__(self, message: str, *, retry_at: datetime) -> None:
        super().__init__(message, retryable=True)
        self.retry_at = retry_at


class UnknownOutcome(YnabError):
    """A write was sent but no answer came back: it may or may not be applied. Never resent."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message, retryable=False)
        self.reason = reason


class MalformedAnswer(YnabError):
    """YNAB answered 2xx with a body this client cannot read. For a write, YNAB took the change:
    its outcome is unknown to this service until the plan is read again."""


WriteOutcome = Literal["failed", "unknown", "pending", "applied"]


class StorableRecord(Protocol):
    """A typed value the operation log keeps as JSON (`oplog.records.Record`, a floor above)."""

    def stored(self) -> dict[str, Any]: ...


UndoData = StorableRecord | Mapping[str, Any] | None
"""Undo data as the log takes it: a typed value, or JSON as a row already holds it."""


class WriteFailed(YnabError):
    """A failure of YNAB whose outcome `apply` (or an undo handler) knows exactly: the row is
    completed `outcome` (`failed` or `unknown`) with `undo_data` (e.g. which of two writes
    landed), and `message` (one line: what is in YNAB now, what to do) is the tool error. With
    `names_operation` the message ends with the operation's id (`apply` runs before it can
    know it), for a failure the person may need to look up or undo (something landed).
    `pending`: part of the change is in YNAB and could not be put back yet; the row stays
    pending and `oplog.settling` keeps working to close it. `applied`: part of the change is in
    YNAB for good (nothing can put it back as it was: deleted transactions), the rest was not
    sent; the row is completed `applied`, in effect (and undoable) for what landed, which
    `undo_data` records, and `message` says what landed and what did not."""

    def __init__(
        self,
        message: str,
        *,
        outcome: WriteOutcome = "failed",
        undo_data: UndoData = None,
        names_operation: bool = False,
    ) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.undo_data = undo_data
        self.names_operation = names_operation

    def message_for(self, operation_id: str) -> str:
        """The message as the tool error and the log row say it."""
        if not self.names_operation:
            return self.message
        return f"{self.message} The log keeps this as operation {operation_id} ({self.outcome})."


def short_detail(text: str | None) -> str:
    """YNAB's text (details, reasons) on one line and short, for a message."""
    return safe_text(text or "", _DETAIL_LIMIT) or ""


def error_for_status(
    status: int, error_id: str | None, name: str | None, detail: str | None, *, method: str
) -> YnabError:
    """The `YnabError` for an HTTP error answer (YNAB's envelope already unpacked)."""
    message, retryable = _explain(status, error_id or "", short_detail(detail), method)
    return YnabError(message, status=status, error_id=error_id, name=name, detail=detail, retryable=retryable)


def _explain(status: int, error_id: str, detail: str, method: str) -> tuple[str, bool]:
    """(message, retryable) for an error answer; `detail` is already made safe."""
    said = f" YNAB said: {detail}" if detail else ""
    if status == 401:
        return (
            "YNAB refused the token (401): it is invalid, expired or revoked. "
            "Create a new personal access token in YNAB, set it as YNAB_API_KEY and restart the service.",
            False,
        )
    if status == 403:
        return _forbidden(error_id, said), False
    if status == 404:
        if error_id == "404.1":
            return f"YNAB does not know this address (404.1).{said}", False
        return (
            f"YNAB has no such item (404.2): an id given is unknown in this plan or was deleted; "
            f"use ids from the list tools (or list_plans for plans).{said}",
            False,
        )
    if status == 409:
        return f"YNAB refused: the change conflicts with an existing item (409).{said}", False
    if status == 400:
        return f"YNAB refused the request as invalid (400).{said}", False
    if 300 <= status < 400:
        return f"YNAB answered with a redirect ({status}), which this client never follows.", False
    if status >= 500:
        # A read may simply be repeated later; a write must be checked first.
        return _unavailable(status, method, said), method == "GET"
    return f"YNAB refused the request ({status}).{said}", False


def _forbidden(error_id: str, said: str) -> str:
    reasons = {
        "403.1": "the YNAB subscription has lapsed; renew it in YNAB, then try again",
        "403.2": "the YNAB trial has expired; subscribe in YNAB, then try again",
        "403.3": "the token's scope does not allow this request (a read-only token cannot write)",
        "403.4": "this request would go over YNAB's data limits; ask for less at a time",
    }
    reason = reasons.get(error_id, "YNAB does not allow this request for this account")
    return f"YNAB refused the request ({error_id or 403}): {reason}.{said}"


def _unavailable(status: int, method: str, said: str) -> str:
    if method == "GET":
        return f"YNAB is unavailable right now ({status}); try again in a few minutes.{said}"
    return (
        f"YNAB failed to handle this change ({status}) and reported an error, so it was not retried. "
        f"Check the plan before trying again in a few minutes.{said}"
    )
