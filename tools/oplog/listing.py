"""Reading the log: one operation, the latest still in effect, and pages with opaque cursors."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db.models import Q, QuerySet
from django.utils import timezone

from tools.models import Operation
from tools.paging import MAX_PAGE, read_cursor, sign_cursor

KEYSET_CURSOR = "oplog-keyset"  # the kind of the log's cursors (its salt): never read as an offset


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

    The cursor (`tools.paging.sign_cursor`) is bound to `scope` (who lists: a tool, the API)
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
    """Midnight at the start of `day` in the server's time zone ("today" follows TIME_ZONE).

    Held within what UTC can hold (0001-01-01 east of Greenwich is before year 1 in UTC), so a
    date at the calendar's end never overflows when the database compares it.
    """
    midnight = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
    try:
        midnight.astimezone(dt.UTC)
    except OverflowError:
        return (
            dt.datetime.min.replace(tzinfo=dt.UTC)
            if day.year == 1
            else dt.datetime.max.replace(tzinfo=dt.UTC)
        )
    return midnight


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
