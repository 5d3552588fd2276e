"""The write flow: the one path every write tool takes, so order and logging are the same everywhere.

TOOLS.md §1.4, step by step:

    read the plan (one delta request) → refusals → drop what would not change
    (none left: `nothing_to_do`, nothing asked) → subject + preview → `confirm.ask`
    (confirmed tools only) → on applied: log row `pending` → YNAB request(s) → row completed

Every YNAB request of the flow, from the plan read on, is a write's
(`ynab.request_kind(RequestKind.WRITE)`): the plan is read fresh (never from the freshness
window), also in the answering call of a confirmation, and the hour's reserve is open to it.

A tool checks what its arguments alone show (id patterns, duplicates, months) first, then
calls `confirmed_write` or `unconfirmed_write` with two functions of its own:

- `build(snapshot) -> Change`: pure. Refuses (raise `Refusal` or `ToolError`) or describes
  the change: its full `subject` (fingerprinted), the `stored_subject` the log keeps (no
  payee text, memos or transaction amounts), the `Preview`, the tool's result `fields`, and
  the `undo_data` known before anything is sent (so a write whose answer is lost can still
  be undone item by item). `Change.nothing(...)` when nothing would change, or when the
  tool's first answer is something to talk through before any question (reconcile_account's
  `difference_found`: `Change.nothing(message, fields, outcome="difference_found")`).
- `apply(client, snapshot, change) -> Applied`: the YNAB request(s). Returns `Applied`
  (extra fields, undo data learnt from the answer, a leading sentence), or raises
  `WriteFailed` when it knows exactly what state it leaves (e.g. a second write that
  failed after the first was put back). A `YnabError` escaping it is `LoggedWrite`'s to log.

Once agreed, the change goes to YNAB through `tools.writes.logged.LoggedWrite`: the log row
around the request(s), and the status each outcome leaves on it (applied, failed, unknown).

After an in-call elicitation "yes" (protocols before 2026-07-28), the question may have
waited minutes: the plan is read again and the change rebuilt; a different fingerprint fails
with `PLAN_CHANGED` and nothing is written. (An input-required answer and a code arrive in
a call of their own, which reads the plan fresh anyway.)
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult

from confirmations import messages
from confirmations.confirm import Decision, ask
from confirmations.fingerprint import fingerprint
from confirmations.preview import render
from tools.auth import Principal, principal_of
from tools.logic.refusal import Refusal
from tools.models import Operation
from tools.plan_lookup import open_plan
from tools.writes.change import Applied, Apply, Build, Change, WriteFailed
from tools.writes.logged import LoggedWrite
from tools.writes.results import WriteResult, write_answer
from tools.ynab import PlanSnapshot, RequestKind, request_kind

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
    with request_kind(RequestKind.WRITE):
        return await _confirmed_write(
            ctx,
            tool=tool,
            plan_id=plan_id,
            confirmation=confirmation,
            result=result,
            build=build,
            apply=apply,
        )


async def _confirmed_write(
    ctx: Context[Any, Any],
    *,
    tool: str,
    plan_id: str | None,
    confirmation: str | None,
    result: type[WriteResult],
    build: Build,
    apply: Apply,
) -> CallToolResult | InputRequiredResult:
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
    write = LoggedWrite(principal_of(ctx), tool, snapshot, change, result)
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
    with request_kind(RequestKind.WRITE):
        snapshot = await open_plan(plan_id)
        change = built(build, snapshot)
        if change.nothing_to_do is not None:
            return _nothing_to_do(result, snapshot, change)
        write = LoggedWrite(principal_of(ctx), tool, snapshot, change, result)
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
    write = LoggedWrite(principal, tool, snapshot, change, result)
    with request_kind(RequestKind.WRITE):
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
    return write_answer(result, snapshot.plan_id, change.fields, status=change.outcome, message=message)


def _not_applied(
    result: type[WriteResult], snapshot: PlanSnapshot, change: Change, decision: Decision
) -> CallToolResult:
    """Declined, or a code issued: nothing written. The preview comes with a code, which is in
    the result unless it went to the person (`AVENIR_MCP_CODES_TO=person`)."""
    asked = decision.outcome == "confirmation_required"
    return write_answer(
        result,
        snapshot.plan_id,
        change.fields,
        status=decision.outcome,
        message=decision.message or messages.DECLINED,
        preview=decision.preview if asked else None,
        confirmation=decision.code_for_agent if asked else None,
    )
