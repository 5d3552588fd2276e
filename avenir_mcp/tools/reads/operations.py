"""`list_operations`: the operation log of a plan, as the agent reads it (docs/tools.md#list_operations).

It reads the database only: no YNAB request, except to learn which plan `last-used` (or
no plan at all) means, and, when the plan has operations still pending or unknown, to settle
them from YNAB's own state first (`oplog.settling`), so the log it shows is as settled as it
can be.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from django.utils import timezone
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.plan_lookup import real_plan_id
from avenir_mcp.mcp_surface.presenting import tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.models import ConfirmedByName, Operation, StatusName
from avenir_mcp.values.months import parse_date
from avenir_mcp.values.text import one_line


class LoggedOperation(BaseModel):
    operation_id: str = Field(description="The operation's id (12 letters and digits).")
    tool: str = Field(description="The tool that made the change.")
    summary: str = Field(description="The question the person agreed to, or a one-line description.")
    status: StatusName = Field(
        description="pending: being sent, or half of it in YNAB and being put back (see note); applied; "
        "failed: not applied; unknown: YNAB never answered and its state cannot tell, so it may or may "
        "not be in effect; undone."
    )
    confirmed_by: ConfirmedByName = Field(
        description="How the person agreed: input_required or elicitation (a question in their client), "
        "code (a confirmation code), none (the tool acts at once), admin (an undo the owner confirmed "
        "in the admin)."
    )
    client: str = Field(description="Which MCP client made it: its token's name, or stdio.")
    created_at: datetime = Field(description="When it was logged (server time zone).")
    completed_at: datetime | None = Field(description="When YNAB's answer was recorded; null while pending.")
    undoable: bool = Field(
        description="True when it can still be undone: its kind of change can be, it is applied or "
        "unknown, not undone yet, and not itself an undo."
    )
    undo_of: str | None = Field(description="For an undo: the operation it reversed.")
    undone_by: str | None = Field(description="For an undone operation: the undo that reversed it.")
    note: str | None = Field(
        description="When it did not simply apply: what happened and what landed in YNAB (e.g. what a "
        "settled unknown outcome turned out to be, or an amount the person must set in YNAB); else null."
    )


class OperationLog(BaseModel):
    plan_id: str = Field(description="The plan's real id (also when asked for last-used).")
    operations: list[LoggedOperation] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Pass as cursor for the next page; null at the end.")


@read_tool(title="List the operation log", toolset="operations")
async def list_operations(
    plan_id: Annotated[
        str | None, Field(description="An id from list_plans, or last-used; omitted: the default plan.")
    ] = None,
    status: Annotated[StatusName | None, Field(description="Only operations with this status.")] = None,
    tool: Annotated[
        str | None,
        Field(description="Only operations of this tool (its name).", pattern=r"^[a-z][a-z_]{0,63}$"),
    ] = None,
    since_date: Annotated[
        str | None, Field(description="YYYY-MM-DD: only operations logged on or after this day.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=log.MAX_PAGE, description="Operations per page, 1-200.")] = 50,
    cursor: Annotated[
        str | None, Field(max_length=500, description="next_cursor of the previous page; omit for the first.")
    ] = None,
) -> Annotated[CallToolResult, OperationLog]:
    """The plan's operation log: every change made through avenir-mcp, by any client, newest first.

    Each entry says what changed (the question the person agreed to), when, through which
    client, how it was confirmed, its status (unknown means YNAB never answered, so the
    change may or may not be in effect), and whether it can still be undone (`undoable`).
    Use it to answer "what was changed?", to find an operation's id, or to follow up a
    change whose outcome was unknown (`note` says what happened). It reads the log; YNAB is
    asked only what `last-used` means, and to settle operations still pending or unknown
    from what YNAB holds before answering.
    """
    since = _start_of(since_date)
    chosen_plan_id = await real_plan_id(plan_id)
    await settling.settle_plan(chosen_plan_id)
    query = log.OperationQuery(plan_id=chosen_plan_id, status=status, tool=tool, since=since)
    found = await log.page(query, limit=limit, cursor=cursor, scope="list_operations")
    entries = OperationLog(
        plan_id=chosen_plan_id,
        operations=[_entry(op) for op in found.operations],
        next_cursor=found.next_cursor,
    )
    return tool_result(entries, _summary(entries))


def _start_of(since_date: str | None) -> datetime | None:
    if since_date is None:
        return None
    return log.start_of_day(parse_date(since_date, field="since_date"))


def _entry(op: Operation) -> LoggedOperation:
    return LoggedOperation(
        operation_id=op.pk,
        tool=op.tool,
        summary=log.summary(op),
        status=op.status_name,
        confirmed_by=op.confirmed_by_name,
        client=op.client,
        created_at=timezone.localtime(op.created_at),
        completed_at=timezone.localtime(op.completed_at) if op.completed_at else None,
        undoable=op.can_be_undone,
        undo_of=op.undo_of_id,
        undone_by=op.undone_by_id,
        note=one_line(op.error) or None,
    )


def _summary(log: OperationLog) -> str:
    count = len(log.operations)
    if count == 0:
        return f"No operations logged for plan {log.plan_id} with these filters."
    more = "; more with next_cursor" if log.next_cursor else ""
    return f"{count} operation(s) of plan {log.plan_id}, newest first{more}."
