"""What a write tool hands the write flow: the `Change` it built, and what `apply` reports.

`Change` is built purely from a plan snapshot (by the tool's `Build`); `Applied` is what the
YNAB request(s) did (the tool's `Apply`); `WriteFailed` is how `apply` reports a failure whose
outcome it knows exactly. See `tools.writes.flow` for the path they take.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from confirmations.preview import Preview

if TYPE_CHECKING:
    from tools.models import Operation
    from tools.ynab import PlanSnapshot, YnabClient

Build = Callable[["PlanSnapshot"], "Change"]
"""The tool's pure `build(snapshot)`: the change, a refusal (`Refusal`, `ToolError`), or nothing."""
Apply = Callable[["YnabClient", "PlanSnapshot", "Change"], Awaitable["Applied"]]
"""The tool's `apply(client, snapshot, change)`: the YNAB request(s)."""
Hold = Callable[["Operation"], AbstractAsyncContextManager[None]]
"""Entered with the operation's `pending` row once it is begun, around `apply`: an undo claims
the operation it reverses there (and gives the claim back if `apply` fails)."""

DEFAULT_CHECK = "Read the plan again (e.g. find_transactions) to see whether it is there before trying again."


@dataclass(frozen=True)
class Change:
    """A change a tool is about to make, built purely from a snapshot.

    `subject` is the exact change as data (the table of docs/confirmation.md#subjects-and-the-fingerprint;
    fingerprinted, list order free); `stored_subject` is what the log keeps of it; `preview` what the person
    sees (also the log's summary for unconfirmed tools); `fields` the tool's own result fields;
    `undo_data` what undo needs, as far as it is known before sending; `check` the read that
    tells whether the change landed when no answer comes back. `nothing_to_do` holds the
    message when nothing would be asked or written (see `Change.nothing`), and `outcome` the
    status that answer carries: `nothing_to_do`, or reconcile_account's `difference_found`.
    An undo (`tools.undo`) sets `undo_of`, the operation it reverses (its row is begun with it), and `hold`.
    """

    subject: dict[str, Any]
    stored_subject: dict[str, Any]
    preview: Preview
    fields: Mapping[str, Any] = field(default_factory=dict)
    undoable: bool = True
    undo_data: Any = None
    check: str = DEFAULT_CHECK
    nothing_to_do: str | None = None
    outcome: str = "nothing_to_do"
    undo_of: Operation | None = None
    hold: Hold | None = None

    @classmethod
    def nothing(
        cls, message: str, fields: Mapping[str, Any] | None = None, *, outcome: str = "nothing_to_do"
    ) -> Change:
        """Nothing is asked or written: the result has status `outcome` (`nothing_to_do`, or
        `difference_found` for a reconciliation that must first be talked through) and `message`."""
        return cls(
            subject={},
            stored_subject={},
            preview=Preview(question=""),
            fields=fields or {},
            nothing_to_do=message,
            outcome=outcome,
        )


@dataclass(frozen=True)
class Applied:
    """What `apply` reports once YNAB answered.

    `fields` are added to (and override) the change's fields; `undo_data` replaces the planned
    undo data when given; `lead` is a sentence put before the standard applied message
    (`Recategorised 3 transaction(s).`); `nothing_changed` makes the result `nothing_to_do`
    although a request was made (an import that found nothing new): the message is then
    `lead` and the operation id, and the row stays in the log as the attempt it was.
    """

    fields: Mapping[str, Any] = field(default_factory=dict)
    undo_data: Any = None
    lead: str | None = None
    nothing_changed: bool = False


class WriteFailed(Exception):
    """Raised by `apply` when it knows what state it leaves: the row is completed `status`
    (`failed` or `unknown`) with `undo_data` (e.g. which of two writes landed), and `message`
    (one line: what is in YNAB now, what to do) becomes the tool error. With `names_operation`
    the message ends with the operation's id (`apply` runs before it can know it), for a
    failure the person may need to look up or undo (something landed). `pending`: part of the
    change is in YNAB and could not be put back yet; the row stays pending and `tools.settling`
    keeps working to close it."""

    def __init__(
        self,
        message: str,
        *,
        status: Literal["failed", "unknown", "pending"] = "failed",
        undo_data: Any = None,
        names_operation: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.undo_data = undo_data
        self.names_operation = names_operation

    def message_for(self, operation_id: str) -> str:
        """The message as the tool error and the log row say it."""
        if not self.names_operation:
            return self.message
        return f"{self.message} The log keeps this as operation {operation_id} ({self.status})."
