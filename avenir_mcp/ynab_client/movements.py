"""Money movements: assignments YNAB recorded as moved between categories, or between a
category and Ready to Assign (`GET /plans/{id}/money_movements`, or one month's:
`…/months/{month}/money_movements`).

They are not part of the plan export, so the plan cache never has them: each read is one
request of its own, kept for the freshness window like a snapshot (`ynab_client.cache`).

`MovementCache.movements(client, plan_id, month)` → `MoneyMovements`:
- within the freshness window: a read (`RequestKind.READ`) less than
  `AVENIR_MCP_FRESHNESS_SECONDS` after the same list was last asked for (same YNAB, key, plan
  and month) gets that answer again, with no request, unless the plan was written to since
  that request was sent, by this process or, with a shared store, by any worker
  (`ynab_client.write_marks`; an assignment it changed would be missing). A write, and every
  read inside `request_kind(WRITE)`, always asks;
- otherwise one request. The answer carries YNAB's `server_knowledge`, so a caller can tell
  whether the plan it holds is as current as the movements (`mcp_surface.plan_lookup`).
`plan_id` is a real id (an alias is resolved by the plan cache first), checked where it entered.
The list keeps YNAB's order; `as_of` is when the request that brought it was sent (UTC).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.conf import settings

from avenir_mcp.ynab_client import clock
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.pacing import RequestKind, current_kind
from avenir_mcp.ynab_client.snapshot import Json, malformed_answer

MovementKey = tuple[str, str, str, date | None]  # (base URL, token tag, plan id, month or None: all)


@dataclass(frozen=True, slots=True)
class MoneyMovement:
    """One movement as YNAB records it; a null category is Ready to Assign."""

    id: str
    month: date | None
    moved_at: datetime | None
    note: str | None
    from_category_id: str | None
    to_category_id: str | None
    amount: int  # milliunits, as YNAB gives it (positive)


@dataclass(frozen=True, slots=True)
class MoneyMovements:
    """A plan's money movements (one month's, or all when `month` is None), as of one request."""

    plan_id: str
    month: date | None
    movements: tuple[MoneyMovement, ...]
    server_knowledge: int
    as_of: datetime  # UTC: when the request that brought them was sent


@dataclass(frozen=True, slots=True)
class _Kept:
    movements: MoneyMovements
    synced_at: float  # clock.monotonic() when its request was sent


def parse_money_movements(data: Json) -> tuple[tuple[MoneyMovement, ...], int]:
    """The `data` of a money movements answer: the movements in YNAB's order, its knowledge."""
    try:
        rows = tuple(_movement(row) for row in data["money_movements"])
        return rows, _int(data["server_knowledge"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise malformed_answer("the money movements", exc) from exc


def _movement(row: Json) -> MoneyMovement:
    return MoneyMovement(
        id=_text(row["id"]),
        month=None if row.get("month") is None else date.fromisoformat(row["month"]),
        moved_at=None if row.get("moved_at") is None else datetime.fromisoformat(row["moved_at"]),
        note=row.get("note"),
        from_category_id=row.get("from_category_id"),
        to_category_id=row.get("to_category_id"),
        amount=_int(row["amount"]),
    )


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected an id, got {type(value).__name__}")
    return value


class MovementCache:
    """Money movements per YNAB, key, plan and month, kept for the freshness window."""

    def __init__(self) -> None:
        self._kept: dict[MovementKey, _Kept] = {}
        self._lock = threading.Lock()

    async def movements(self, client: YnabClient, plan_id: str, month: date | None = None) -> MoneyMovements:
        """The plan's movements (`month`'s only when given): none or one request (module
        docstring). Raises `YnabError`."""
        key = (client.base_url, client.token_tag, plan_id, month)
        kept = self._within_window(client, key)
        if kept is not None:
            return kept
        started = clock.monotonic()
        rows, knowledge = parse_money_movements(await client.get_money_movements(plan_id, month))
        movements = MoneyMovements(plan_id, month, rows, knowledge, clock.wall_at(started))
        with self._lock:
            self._kept[key] = _Kept(movements, started)
        return movements

    def _within_window(self, client: YnabClient, key: MovementKey) -> MoneyMovements | None:
        window = settings.AVENIR_MCP_FRESHNESS_SECONDS
        if window <= 0 or current_kind() is not RequestKind.READ:
            return None
        with self._lock:
            kept = self._kept.get(key)
        if kept is None or clock.monotonic() - kept.synced_at >= window:
            return None
        written = client.last_write(key[2])
        if written is not None and (
            written.ended_at >= kept.synced_at or written.knowledge > kept.movements.server_knowledge
        ):
            return None  # written to since (here, or on another worker): ask once to show it
        return kept.movements


movement_cache = MovementCache()
