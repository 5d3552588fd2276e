"""The operation log's audit API: `/api/operations`, read-only, for staff.

Mounted in `avenir_site.api`. A staff session with permission to view operations is
required (the same permission the admin asks): no session answers 401, anyone else 403.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.errors import HttpError
from ninja.security import SessionAuth

from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import ConfirmedByName, Operation, StatusName

VIEW_PERMISSION = "oplog.view_operation"


class StaffSession(SessionAuth):
    """A logged-in staff user allowed to view operations; 401 without a session, 403 otherwise."""

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = request.user
        if not user.is_authenticated:
            return None
        if not (user.is_staff and user.has_perm(VIEW_PERMISSION)):
            raise HttpError(403, "The operation log is for staff allowed to view operations.")
        return user


router = Router(tags=["operations"], auth=StaffSession())


class OperationSummary(Schema):
    operation_id: str = Field(description="12 letters and digits.")
    plan_id: str
    tool: str
    summary: str = Field(description="The preview's first line, or a one-line description.")
    status: StatusName
    confirmed_by: ConfirmedByName
    client: str = Field(description="The MCP token's name when it wrote, or 'stdio'.")
    token_id: int | None
    created_at: dt.datetime
    completed_at: dt.datetime | None
    undoable: bool = Field(description="The tool can reverse this kind of change.")
    can_be_undone: bool = Field(description="Undoable, applied or unknown, not undone, not an undo.")
    undo_of: str | None
    undone_by: str | None
    correlation_id: uuid.UUID


class OperationDetail(OperationSummary):
    preview: str
    subject: dict[str, Any] = Field(description="The stored subject: no payee text, memos or amounts.")
    fingerprint: str
    undo_data: Any = Field(description="What undo needs: values before and after.")
    error: str = Field(description="For failed or unknown operations: what happened.")


class OperationList(Schema):
    operations: list[OperationSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null at the end.")


class OperationFilters(Schema):
    plan: str | None = Field(None, max_length=100, description="Only this plan's operations.")
    tool: str | None = Field(None, max_length=64, description="Only this tool's operations.")
    status: StatusName | None = None
    since: dt.datetime | None = Field(None, description="Only operations created at or after this time.")
    limit: int = Field(50, ge=1, le=log.MAX_PAGE)
    cursor: str | None = Field(None, max_length=1000, description="From the previous page.")


@router.get("", response=OperationList, summary="The operation log, newest first")
def list_operations(request: HttpRequest, filters: Query[OperationFilters]) -> OperationList:
    """Every client's operations, newest first, filtered; paged with an opaque cursor."""
    since = log.within_utc(filters.since) if filters.since is not None else None
    query = log.OperationQuery(plan_id=filters.plan, status=filters.status, tool=filters.tool, since=since)
    try:
        found = log.page_sync(query, limit=filters.limit, cursor=filters.cursor, scope="api")
    except log.InvalidCursor as refusal:
        raise HttpError(400, str(refusal)) from None
    operations = [OperationSummary(**_summary_fields(op)) for op in found.operations]
    return OperationList(operations=operations, next_cursor=found.next_cursor)


@router.get("/{operation_id}", response=OperationDetail, summary="One operation, every field")
def get_operation(request: HttpRequest, operation_id: str) -> OperationDetail:
    op = Operation.objects.filter(pk=operation_id).first()
    if op is None:
        raise HttpError(404, f"No operation {operation_id[:20]!r}.")
    return OperationDetail(
        **_summary_fields(op),
        preview=op.preview,
        subject=op.subject,
        fingerprint=op.fingerprint,
        undo_data=op.undo_data,
        error=op.error,
    )


def _summary_fields(op: Operation) -> dict[str, Any]:
    return {
        "operation_id": op.pk,
        "plan_id": op.plan_id,
        "tool": op.tool,
        "summary": log.summary(op),
        "status": op.status,
        "confirmed_by": op.confirmed_by,
        "client": op.client,
        "token_id": op.token_id,
        "created_at": op.created_at,
        "completed_at": op.completed_at,
        "undoable": op.undoable,
        "can_be_undone": op.can_be_undone,
        "undo_of": op.undo_of_id,
        "undone_by": op.undone_by_id,
        "correlation_id": op.correlation_id,
    }
