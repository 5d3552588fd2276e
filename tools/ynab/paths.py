"""URL paths built from checked parts only, so no text can add, climb or query a path.

Ids go through `tools.logic.ids.check_id` (`IdError` before any request); a month path
segment is `current` or a real `YYYY-MM-DD` date (`MonthSegmentError`); a base URL must be
HTTPS unless it is a loopback address (the embedded sandbox).
"""

from __future__ import annotations

import re
from datetime import date

import httpx

from tools.logic.ids import check_id
from tools.ynab.errors import YnabError

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_MONTH_SEGMENT = re.compile(r"current|[0-9]{4}-[0-9]{2}-[0-9]{2}")


class MonthSegmentError(ValueError):
    """A month for a URL that is neither `current` nor a real `YYYY-MM-DD` date."""


def plan_path(plan_id: str) -> str:
    return f"/plans/{check_id(plan_id, what='plan', source='list_plans')}"


def entity_path(plan_id: str, kind: str, entity_id: str, *, what: str) -> str:
    """`/plans/{plan}/{kind}/{id}`, both ids checked; `kind` is this module's caller's constant."""
    return f"{plan_path(plan_id)}/{kind}/{check_id(entity_id, what=what)}"


def month_segment(month: str | date) -> str:
    """`current`, or a date as `YYYY-MM-DD`; anything else raises `MonthSegmentError`."""
    if isinstance(month, date):
        return month.isoformat()
    is_segment = isinstance(month, str) and _MONTH_SEGMENT.fullmatch(month) is not None
    if is_segment and (month == "current" or _is_real_date(month)):
        return month
    raise MonthSegmentError(f"{str(month)[:20]!r} is not a month for YNAB: give 'current' or YYYY-MM-DD.")


def _is_real_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def checked_base_url(base_url: str) -> str:
    """The base URL without a trailing slash; HTTPS required except for loopback hosts."""
    url = httpx.URL(base_url)
    if url.scheme == "https" and url.host:
        return str(url).rstrip("/")
    if url.scheme == "http" and url.host in LOOPBACK_HOSTS:
        return str(url).rstrip("/")
    raise YnabError(
        f"The YNAB address {base_url[:80]!r} is refused: it must start with https:// "
        "(plain http is allowed only for 127.0.0.1, ::1 or localhost). Fix AVENIR_MCP_YNAB_URL."
    )
