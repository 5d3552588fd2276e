"""The write flow: the one path every write tool takes, so order and logging are the same everywhere.

TOOLS.md §1.4, step by step:

    read the plan (one delta request) → refusals → drop what would not change
    (none left: `nothing_to_do`, nothing asked) → subject + preview → `confirm.ask`
    (confirmed tools only) → on applied: log row `pending` → YNAB request(s) → row completed

A tool checks what its arguments alone show (id patterns, duplicates, months) first, then
calls `confirmed_write` or `unconfirmed_write` with two functions of its own:

- `build(snapshot) -> Change`: pure. Refuses (raise `Refusal` or `ToolError`) or describes
  the change: its full `subject` (fingerprinted), the `stored_subject` the log keeps (no
  payee text, memos or transaction amounts), the `Preview`, the tool's result `fields`, and
  the `undo_data` known before anything is sent (so a write whose answer is lost can still
  be undone item by item). `Change.nothing(...)` when nothing would change.
- `apply(client, snapshot, change) -> Applied`: the YNAB request(s). Returns `Applied`
  (extra fields, undo data learnt from the answer, a leading sentence), or raises
  `WriteFailed` when it knows exactly what state it leaves (e.g. a second write that
  failed after the first was put back). A `YnabError` escaping it is handled here.

Outcomes of the requests, and the log row each leaves:

- answered: `applied`; the result names the operation id and how to undo it;
- `UnknownOutcome` (sent, no answer; never resent): `unknown`, with the planned undo data;
  the error says the change may or may not be in YNAB and which read will tell;
- a 2xx answer that could not be read: `unknown` too (YNAB took the change);
- `PacingRefused` (nothing sent): `failed`, "Not sent", and the pacing message. The row is
  begun only right before the first request, so a refused plan read leaves no row at all;
  `apply` must handle pacing refusals of its own later requests itself;
- any other `YnabError` (YNAB refused): `failed`, with YNAB's status and detail;
- `WriteFailed`: as it says;
- anything else (a bug, a cancelled call): `unknown`, because a request may have left before
  it happened, then re-raised. Claiming `failed` could hide a change that is in YNAB.

After an in-call elicitation "yes" (protocols before 2026-07-28), the question may have
waited minutes: the plan is read again and the change rebuilt; a different fingerprint fails
with `PLAN_CHANGED` and nothing is written. (An input-required answer and a code arrive in
a call of their own, which reads the plan fresh anyway.)
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult

from confirmations import messages
from confirmations.confirm import Decision, ask
from confirmations.fingerprint import fingerprint
from confirmations.preview import render
from tools import oplog
from tools.access import open_plan
from tools.auth import Principal, principal_of
from tools.logic.refusal import Refusal
from tools.models import Operation
from tools.writes.change import Applied, Change, WriteFailed
from tools.writes.results import WriteResult, write_tool_result
from tools.ynab import PacingRefused, PlanSnapshot, UnknownOutcome, YnabClient, YnabError, get_ynab_client

logger = logging.getLogger(__name__)

__all__ = [
    "Applied",
    "Apply",
    "Build",
    "Change",
    "WriteFailed",
    "agreed_write",
    "confirmed_write",
    "unconfirmed_write",
]


Build = Callable[[PlanSnapshot], Change]
Apply = Callable[[YnabClient, PlanSnapshot, Change], Awaitable[Applied]]


async def confirmed_write(
    ctx: Context[Any, Any],
    *,
    tool: str,
    plan_id: str | None,
    confirmation: str | None,
    result: type[WriteResult],
    build: Build,
    apply: Apply,
) -> CallToolResult | InputRequiredResult:
    """Run a confirmed write (see the module docstring); returns the tool's answer.

    `plan_id` is the tool's argument as given (an id, `last-used`, or None for the default);
    `confirmation` the tool's argument; `result` the tool's result model. Refusals, YNAB's
    errors and the confirmation step's refusals are raised as `ToolError`s.
    """
    snapshot = await open_plan(plan_id)
    change = built(build, snapshot)
    if change.nothing_to_do is not None:
        return _nothing_to_do(result, snapshot, change)
    decision = await ask(
        ctx,
        tool=tool,
        plan_id=snapshot.plan_id,
        subject=change.subject,
        preview=change.preview,
        confirmation=confirmation,
    )
    if decision.input_required is not None:
        return decision.input_required
    if not decision.applied:
        return _not_applied(result, snapshot, change, decision)
    if decision.confirmed_by == "elicitation":
        snapshot, change = await _rebuilt(snapshot.plan_id, build, decision)
    write = _Write(principal_of(ctx), tool, snapshot, change, result)
    return await write.run(apply, confirmed_by=decision.confirmed_by or "", preview=decision.preview)


async def unconfirmed_write(
    ctx: Context[Any, Any],
    *,
    tool: str,
    plan_id: str | None,
    result: type[WriteResult],
    build: Build,
    apply: Apply,
) -> CallToolResult:
    """Run a write that acts at once (approve, import): logged with `confirmed_by` none.

    The change's preview is not shown to anyone; it is kept as the log's description.
    A read-only caller is refused (such callers never see write tools; this is the second lock).
    """
    if principal_of(ctx).read_only:
        raise ToolError(messages.READ_ONLY)
    snapshot = await open_plan(plan_id)
    change = built(build, snapshot)
    if change.nothing_to_do is not None:
        return _nothing_to_do(result, snapshot, change)
    write = _Write(principal_of(ctx), tool, snapshot, change, result)
    return await write.run(apply, confirmed_by=Operation.ConfirmedBy.NONE, preview=render(change.preview))


async def agreed_write(
    *,
    tool: str,
    snapshot: PlanSnapshot,
    change: Change,
    result: type[WriteResult],
    apply: Apply,
    confirmed_by: str,
    preview: str,
    principal: Principal,
) -> CallToolResult:
    """The flow's second half for a change the person agreed to outside MCP (the admin's Undo
    page, `confirmed_by` "admin"): pending row → YNAB request(s) → completed row, with the same
    logging and errors as every tool's write. `preview` is the text the person agreed to.
    """
    write = _Write(principal, tool, snapshot, change, result)
    return await write.run(apply, confirmed_by=confirmed_by, preview=preview)


def built(build: Build, snapshot: PlanSnapshot) -> Change:
    """`build(snapshot)`, its `Refusal` as a one-line tool error."""
    try:
        return build(snapshot)
    except Refusal as refusal:
        raise ToolError(str(refusal)) from None


async def _rebuilt(plan_id: str, build: Build, decision: Decision) -> tuple[PlanSnapshot, Change]:
    """The plan read again after a long question, and the change rebuilt: the same, or refused."""
    snapshot = await open_plan(plan_id)
    change = built(build, snapshot)
    if change.nothing_to_do is not None or fingerprint(plan_id, change.subject) != decision.fingerprint:
        raise ToolError(messages.PLAN_CHANGED)
    return snapshot, change


def _nothing_to_do(result: type[WriteResult], snapshot: PlanSnapshot, change: Change) -> CallToolResult:
    message = change.nothing_to_do or "Nothing to change."
    return _answer(result, snapshot, change.fields, status="nothing_to_do", message=message)


def _not_applied(
    result: type[WriteResult], snapshot: PlanSnapshot, change: Change, decision: Decision
) -> CallToolResult:
    """Declined, or a code issued: nothing written; the preview comes with a code only."""
    code = decision.code if decision.outcome == "confirmation_required" else None
    return _answer(
        result,
        snapshot,
        change.fields,
        status=decision.outcome,
        message=decision.message or messages.DECLINED,
        preview=decision.preview if code is not None else None,
        confirmation=code,
    )


def _answer(
    result: type[WriteResult],
    snapshot: PlanSnapshot,
    fields: Mapping[str, Any],
    *,
    status: str,
    message: str,
    operation_id: str | None = None,
    preview: str | None = None,
    confirmation: str | None = None,
) -> CallToolResult:
    answer = result(
        plan_id=snapshot.plan_id,
        status=status,
        message=message,
        operation_id=operation_id,
        preview=preview,
        confirmation=confirmation,
        **fields,
    )
    return write_tool_result(answer)


@dataclass
class _Write:
    """One agreed change on its way to YNAB: the log row around the request(s)."""

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
        )
        applied = await self._sent(op, apply)
        await oplog.complete(op, status=Operation.Status.APPLIED, undo_data=self._undo_data(applied))
        return self._applied(op, applied, preview if confirmed_by != Operation.ConfirmedBy.NONE else None)

    async def _sent(self, op: Operation, apply: Apply) -> Applied:
        """`apply`'s report; every failure completes the row first, then becomes a tool error."""
        try:
            async with self._held(op):
                return await apply(get_ynab_client(), self.snapshot, self.change)
        except WriteFailed as failed:
            await self._close(op, failed.status, failed.message, failed.undo_data)
            raise ToolError(failed.message) from None
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
        return _answer(
            self.result,
            self.snapshot,
            {**self.change.fields, **applied.fields},
            status="nothing_to_do" if applied.nothing_changed else "applied",
            message=f"{applied.lead} {sentence}" if applied.lead else sentence,
            operation_id=op.pk,
            preview=preview,
        )
