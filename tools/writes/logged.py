"""An agreed change on its way to YNAB: the log row around the request(s), and its outcome.

`tools.writes.flow` decides that a change may be written (read, refusals, question); this
module writes it. The row is begun `pending` (`oplog.begin`, with the undo data known before
sending) right before the first request, the tool's `apply` sends the request(s) (settling
leaves the row alone meanwhile: `oplog.finished_writing`), and the row is completed with the outcome.

Outcomes of the requests, and the log row each leaves:

- answered: `applied`; the result names the operation id and how to undo it;
- `UnknownOutcome` (sent, no answer; never resent): `unknown`, with the planned undo data;
  the error says the change may or may not be in YNAB and which read will tell;
- a 2xx answer that could not be read: `unknown` too (YNAB took the change);
- `PacingRefused` (nothing sent): `failed`, "Not sent", and the pacing message. The row is
  begun only right before the first request, so a refused plan read leaves no row at all;
  `apply` must handle pacing refusals of its own later requests itself;
- any other `YnabError` (YNAB refused): `failed`, with YNAB's status and detail;
- `WriteFailed`: as it says; `pending` when part of the change is in YNAB and putting it back
  could not be done yet: the row stays `pending`, saying so, and `tools.settling` finishes it;
- anything else (a bug, a cancelled call): `unknown`, because a request may have left before
  it happened, then re-raised. Claiming `failed` could hide a change that is in YNAB.
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult

from confirmations.fingerprint import fingerprint
from tools import oplog
from tools.auth import Principal
from tools.models import Operation
from tools.writes.change import Applied, Apply, Change, WriteFailed
from tools.writes.results import WriteResult, write_answer
from tools.ynab import PacingRefused, PlanSnapshot, UnknownOutcome, YnabError, get_ynab_client

logger = logging.getLogger(__name__)


@dataclass
class LoggedWrite:
    """One agreed change on its way to YNAB: the log row around the request(s).

    `run(apply, confirmed_by=, preview=)` begins the row, sends, completes the row as the
    module docstring says, and returns the tool's answer (or raises the `ToolError`).
    """

    principal: Principal
    tool: str
    snapshot: PlanSnapshot
    change: Change
    result: type[WriteResult]

    async def run(self, apply: Apply, *, confirmed_by: str, preview: str) -> CallToolResult:
        op = await oplog.begin(
            plan_id=self.snapshot.plan_id,
            tool=self.tool,
            subject=self.change.stored_subject,
            fingerprint=fingerprint(self.snapshot.plan_id, self.change.subject),
            preview=preview,
            confirmed_by=confirmed_by,
            principal=self.principal,
            undoable=self.change.undoable,
            undo_of=self.change.undo_of,
            undo_data=self.change.undo_data,
        )
        try:
            applied = await self._sent(op, apply)
        finally:
            oplog.finished_writing(op)
        await oplog.complete(op, status=Operation.Status.APPLIED, undo_data=self._undo_data(applied))
        return self._applied(op, applied, preview if confirmed_by != Operation.ConfirmedBy.NONE else None)

    async def _sent(self, op: Operation, apply: Apply) -> Applied:
        """`apply`'s report; every failure completes the row first, then becomes a tool error."""
        try:
            async with self._held(op):
                return await apply(get_ynab_client(), self.snapshot, self.change)
        except WriteFailed as failed:
            message = failed.message_for(op.pk)
            if failed.status == "pending":  # half of it in YNAB: settling keeps working to close it
                with anyio.CancelScope(shield=True):
                    await oplog.keep_pending(op, error=message, undo_data=failed.undo_data)
            else:
                await self._close(op, failed.status, message, failed.undo_data)
            raise ToolError(message) from None
        except UnknownOutcome:
            raise ToolError(await self._unknown(op)) from None
        except PacingRefused as refused:
            await self._close(op, "failed", refused.message)  # it starts "Not sent: …"
            raise ToolError(refused.message) from None
        except YnabError as error:
            raise ToolError(await self._refused(op, error)) from error
        except BaseException as unexpected:
            await self._interrupted(op, unexpected)
            raise

    def _held(self, op: Operation) -> AbstractAsyncContextManager[None]:
        return self.change.hold(op) if self.change.hold is not None else nullcontext()

    async def _unknown(self, op: Operation) -> str:
        message = oplog.unknown_message(op, self.change.check)
        await self._close(op, "unknown", message)
        return message

    async def _refused(self, op: Operation, error: YnabError) -> str:
        if error.status is not None and 200 <= error.status < 300:
            # YNAB took the change but its answer could not be read: in YNAB, as far as we know.
            return await self._unknown(op)
        await self._close(op, "failed", error.message)
        return f"{error.message} Nothing was changed (operation {op.pk} is logged as failed)."

    async def _interrupted(self, op: Operation, unexpected: BaseException) -> None:
        logger.error("Write %s of %s interrupted by %r", op.pk, self.tool, unexpected)
        reason = (
            f"Interrupted by {type(unexpected).__name__} after it began: "
            "the change may or may not be in YNAB."
        )
        await self._close(op, "unknown", reason)

    async def _close(self, op: Operation, status: str, error: str, undo_data: Any = None) -> None:
        # Shielded: a cancelled call must still leave its row completed, not pending.
        with anyio.CancelScope(shield=True):
            await oplog.complete(
                op, status=status, error=error, undo_data=self._undo_data(Applied(undo_data=undo_data))
            )

    def _undo_data(self, applied: Applied) -> Any:
        return applied.undo_data if applied.undo_data is not None else self.change.undo_data

    def _applied(self, op: Operation, applied: Applied, preview: str | None) -> CallToolResult:
        sentence = f"Logged as operation {op.pk}." if applied.nothing_changed else oplog.applied_message(op)
        return write_answer(
            self.result,
            self.snapshot.plan_id,
            {**self.change.fields, **applied.fields},
            status="nothing_to_do" if applied.nothing_changed else "applied",
            message=f"{applied.lead} {sentence}" if applied.lead else sentence,
            operation_id=op.pk,
            preview=preview,
        )
