"""Query-string and path values, checked the way YNAB checks them (400 naming the value).

Delta requests: `last_knowledge_of_server=N` returns what changed since N, deletions included
(`since`, `changed`). Without it, deleted entities are never returned. An answer's
`server_knowledge` is the plan's counter as read at the start of the request, so a write
landing meanwhile is sent again next time rather than missed.
"""

from __future__ import annotations

from datetime import date

from django.db.models import QuerySet

from avenir_mcp.sandbox.api.http import SandboxRequest, bad_request, not_found
from avenir_mcp.sandbox.budget_math.calendar import month_of
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Plan


def flag(value: str | None, name: str) -> bool:
    if value is None:
        return False
    if value.lower() in ("true", "1"):
        return True
    if value.lower() in ("false", "0"):
        return False
    raise bad_request(f"{name} must be true or false")


def knowledge(value: str | None) -> int | None:
    """`last_knowledge_of_server`: a whole number, or absent."""
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise bad_request("last_knowledge_of_server must be an integer") from None
    if not 0 <= number < 2**63:  # a 64-bit column everywhere (PostgreSQL refuses more)
        raise bad_request("last_knowledge_of_server must be between 0 and 2^63 - 1")
    return number


def iso_day(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise bad_request(f"{name} must be a valid date (YYYY-MM-DD)") from None


def plan_month(value: str, plan: Plan) -> date:
    """A month in a path: `current` (UTC) or any date in it; 404.2 outside the plan's months."""
    if value == "current":
        month = month_of(utc_today())
    else:
        parsed = iso_day(value, "month")
        assert parsed is not None
        month = month_of(parsed)
    if month < plan.first_month or month > max(plan.last_month, month_of(utc_today())):
        raise not_found()
    return month


def transaction_type(value: str | None) -> str | None:
    if value is None or value in ("uncategorized", "unapproved"):
        return value
    raise bad_request("type must be one of: uncategorized, unapproved")


def since(call: SandboxRequest) -> int | None:
    return knowledge(call.query("last_knowledge_of_server"))


def changed(rows: QuerySet, last_known: int | None) -> QuerySet:
    """Rows changed after `last_known` (tombstones included), or every live row when None."""
    if last_known is None:
        return rows.filter(deleted=False)
    return rows.filter(knowledge__gt=last_known)
