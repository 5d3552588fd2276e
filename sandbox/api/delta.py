"""Delta requests: `last_knowledge_of_server=N` returns what changed since N, deletions included.

Without it, deleted entities are never returned. The answer's `server_knowledge` is the
plan's counter as read at the start of the request, so a write landing meanwhile is sent
again next time rather than missed.
"""

from __future__ import annotations

from django.db.models import QuerySet

from sandbox.api import params
from sandbox.api.http import Call


def since(call: Call) -> int | None:
    return params.knowledge(call.query("last_knowledge_of_server"))


def changed(rows: QuerySet, knowledge: int | None) -> QuerySet:
    """Rows changed after `knowledge` (tombstones included), or every live row when None."""
    if knowledge is None:
        return rows.filter(deleted=False)
    return rows.filter(knowledge__gt=knowledge)
