"""A change on its way to YNAB: what a write tool builds (`Change`), what its requests report
(`Applied`), and the log row around them (`LoggedWrite`).

docs/confirmation.md#confirmed-writes says how a write goes, step by step; docs/undo.md what
undo needs of it. The subject, the result fields and the undo data of a change are the tool's
own typed values (`Record` models, no extra field): the row keeps their JSON (`stored()`),
written only here and in `oplog.log`, and read back with the model (`Model.from_stored`).

`LoggedWrite.run` begins the row `pending` right before the first request, lets the tool's
`apply` send (settling leaves the row alone meanwhile: `log.finished_writing`), and completes
the row with the outcome:

- answered: `applied`;
- `UnknownOutcome` (sent, no answer; never resent), or a 2xx answer that could not be read
  (`MalformedAnswer`): `unknown`, with the planned undo data and the read that will tell;
- `PacingRefused` (nothing sent): `failed`, "Not sent", and the pacing message. The row is
  begun only right before the first request, so a refused plan read leaves no row at all;
- any other `YnabError` (YNAB refused): `failed`, with YNAB's status and detail;
- `WriteFailed`: as it says; `pending` when part of the change is in YNAB and putting it back
  could not be done yet (settling finishes it); `applied` when part of it is in YNAB for good
  and the rest was not sent (delete_transactions stopped midway): in effect, undoable for what
  landed, and still an error for the caller;
- anything else (a bug, a cancelled call): `unknown`, then re-raised: a request may have left
  before it happened, and claiming `failed` could hide a change that is in YNAB.

Each record, and the row's insert, is shielded from cancellation. A failure is logged first,
then raised once as a `YnabError` whose sentence names the operation (the log's words).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

import anyio
from pydantic import BaseModel, ConfigDict

from avenir_mcp.confirmations.fingerprint import fingerprint
from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.oplog import log, plan_lock
from avenir_mcp.oplog.log import StoredUndo
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Subject
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.ynab_client import (
    PacingRefused,
    PlanSnapshot,
    RequestKind,
    UnknownOutcome,
    YnabClient,
    YnabError,
    get_ynab_client,
    request_kind,
)
from avenir_mcp.ynab_client.errors import MalformedAnswer, WriteFailed

logger = logging.getLogger(__name__)

DEFAULT_CHECK = "Read the plan again (e.g. find_transactions) to see whether it is there before trying again."


class NoFields(BaseModel):
    """The result fields of a tool whose answer has none of its own."""

    model_config = ConfigDict(frozen=True, extra="forbid")


Hold = Callable[[Operation], AbstractAsyncContextManager[None]]
"""Entered with the operation's `pending` row once it is begun, around `apply`: an undo claims
the operation it reverses there (and gives the claim back if `apply` fails)."""

S = TypeVar("S", bound=Subject)
F = TypeVar("F", bound=BaseModel)
U = TypeVar("U")


@dataclass(frozen=True)
class Change(Generic[S, F, U]):
    """A change a tool is about to make, built purely from a snapshot.

    `subject` is the exact change as data (fingerprinted; the log keeps `subject.stored()`);
    `preview` what the person sees (also the log's summary for unconfirmed tools); `fields` the
    tool's own result fields; `undo_data` what undo (and settling) needs, as far as it is known
    before sending; `check` the read that tells whether the change landed when no answer comes
    back. An undo sets `undo_of`, the operation it reverses, and `hold`.
    """

    subject: S
    preview: Preview
    fields: F
    undo_data: U
    undoable: bool = True
    check: str = DEFAULT_CHECK
    undo_of: Operation | None = None
    hold: Hold | None = None

    @staticmethod
    def nothing(message: str, fields: F, *, outcome: str = "nothing_to_do") -> Nothing[F]:
        """What `build` returns when nothing is to be asked or written (`Nothing`)."""
        return Nothing(message, fields, outcome)

    def fingerprint(self, plan_id: str) -> str:
        """What the person's answer confirms: the plan and the whole subject."""
        return fingerprint(plan_id, self.subject.fingerprinted())

    @property
    def stored_subject(self) -> dict[str, Any]:
        return self.subject.stored()


@dataclass(frozen=True)
class Nothing(Generic[F]):
    """Nothing is asked or written: the answer has status `outcome` (`nothing_to_do`, or
    `difference_found` for a reconciliation that must first be talked through), `message` and the
    tool's result `fields`."""

    message: str
    fields: F
    outcome: str = "nothing_to_do"


Built: TypeAlias = Change[S, F, U] | Nothing[F]
"""What a tool's `build` returns: the change to ask about and make, or nothing to do."""


@dataclass(frozen=True)
class Applied(Generic[F]):
    """What `apply` reports once YNAB answered.

    `fields` replace the change's result fields when given (what the answer taught, e.g. the
    ids YNAB gave); `undo_data` replaces the planned undo data when given; `lead` is a sentence
    put before the standard applied message (`Recategorised 3 transaction(s).`);
    `nothing_changed` makes the result `nothing_to_do` although a request was made (an import
    that found nothing new): the message is then `lead` and the operation id.
    """

    fields: F | None = None
    undo_data: StoredUndo = None
    lead: str | None = None
    nothing_changed: bool = False


Apply = Callable[[YnabClient, PlanSnapshot, Change[Any, Any, Any]], Awaitable[Applied[Any]]]
"""A tool's `apply(client, snapshot, change)`: the YNAB request(s)."""


@dataclass(frozen=True)
class Logged(Generic[F]):
    """An agreed change YNAB took: its row (`applied`), its result fields and its message."""

    op: Operation
    fields: F
    message: str
    nothing_changed: bool


@dataclass
class LoggedWrite(Generic[F]):
    """One agreed change on its way to YNAB: the log row around the request(s) (module docstring)."""

    principal: Principal
    tool: str
    snapshot: PlanSnapshot
    change: Change[Any, F, Any]

    async def run(self, apply: Apply, *, confirmed_by: str, preview: str) -> Logged[F]:
        # Shielded: the insert runs in a thread to its end; a call cancelled meanwhile gets its
        # row, completes it as interrupted, and no longer counts as writing it (`_send`).
        with anyio.CancelScope(shield=True):
            op = await log.begin(
                plan_id=self.snapshot.plan_id,
                tool=self.tool,
                subject=self.change.stored_subject,
                fingerprint=self.change.fingerprint(self.snapshot.plan_id),
                preview=preview,
                confirmed_by=confirmed_by,
                principal=self.principal,
                undoable=self.change.undoable,
                undo_of=self.change.undo_of,
                undo_data=self.change.undo_data,
            )
        try:
            applied = await self._send(op, apply)
        finally:
            log.finished_writing(op)
        with anyio.CancelScope(shield=True):  # in YNAB: a call cancelled now still logs it applied
            await log.complete(op, status=Operation.Status.APPLIED, undo_data=self._undo_data(applied))
        sentence = f"Logged as operation {op.pk}." if applied.nothing_changed else log.applied_message(op)
        return Logged(
            op=op,
            fields=applied.fields if applied.fields is not None else self.change.fields,
            message=f"{applied.lead} {sentence}" if applied.lead else sentence,
            nothing_changed=applied.nothing_changed,
        )

    async def _send(self, op: Operation, apply: Apply) -> Applied[Any]:
        """`apply`'s report; every failure completes the row first, then is raised in its words."""
        try:
            async with self._hold(op):
                return await apply(get_ynab_client(), self.snapshot, self.change)
        except WriteFailed as failed:
            message = failed.message_for(op.pk)
            if failed.outcome == "pending":  # half of it in YNAB: settling keeps working to close it
                with anyio.CancelScope(shield=True):
                    await log.keep_pending(op, error=message, undo_data=failed.undo_data)
            else:
                await self._complete_row(op, failed.outcome, message, failed.undo_data)
            raise YnabError(message) from None
        except (UnknownOutcome, MalformedAnswer):
            # Sent and not answered, or answered unreadably (YNAB took it): in YNAB, as far as we know.
            message = log.unknown_message(op, self.change.check)
            await self._complete_row(op, "unknown", message)
            raise YnabError(message) from None
        except PacingRefused as refused:
            await self._complete_row(op, "failed", refused.message)  # it starts "Not sent: …"
            raise
        except YnabError as error:
            await self._complete_row(op, "failed", error.message)
            message = f"{error.message} Nothing was changed (operation {op.pk} is logged as failed)."
            raise YnabError(message, status=error.status) from error
        except BaseException as unexpected:
            await self._log_interruption(op, unexpected)
            raise

    def _hold(self, op: Operation) -> AbstractAsyncContextManager[None]:
        return self.change.hold(op) if self.change.hold is not None else nullcontext()

    async def _log_interruption(self, op: Operation, unexpected: BaseException) -> None:
        logger.error("Write %s of %s interrupted by %r", op.pk, self.tool, unexpected)
        reason = (
            f"Interrupted by {type(unexpected).__name__} after it began: "
            "the change may or may not be in YNAB."
        )
        await self._complete_row(op, "unknown", reason)

    async def _complete_row(
        self, op: Operation, status: str, error: str, undo_data: StoredUndo = None
    ) -> None:
        # Shielded: a cancelled call must still leave its row completed, not pending.
        with anyio.CancelScope(shield=True):
            await log.complete(
                op, status=status, error=error, undo_data=self._undo_data(Applied(undo_data=undo_data))
            )

    def _undo_data(self, applied: Applied[Any]) -> StoredUndo:
        return applied.undo_data if applied.undo_data is not None else self.change.undo_data


async def agreed_write(
    *,
    tool: str,
    snapshot: PlanSnapshot,
    change: Change[Any, F, Any],
    apply: Apply,
    confirmed_by: str,
    preview: str,
    principal: Principal,
) -> Logged[F]:
    """The second half of a write for a change the person agreed to outside MCP (the admin's
    Undo page, `confirmed_by` "admin"): pending row → YNAB request(s) → completed row, with the
    same logging and errors as every tool's write. `preview` is the text the person agreed to.
    """
    write = LoggedWrite(principal, tool, snapshot, change)
    async with plan_lock.held(snapshot.plan_id):  # the caller's own, when it read `snapshot` inside it
        with request_kind(RequestKind.WRITE):
            return await write.run(apply, confirmed_by=confirmed_by, preview=preview)
