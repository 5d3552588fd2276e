"""`YnabRequest` rows: every attempt the client made, and the hourly budget read back.

One row per attempt (a retried GET makes several), written when the attempt is over, with
its status (None when no answer came back), duration and outcome. Rows are what pacing is
seeded from after a restart and what `/api/health` and the admin count.

Outcomes: `ok`, `refused` (4xx), `failed` (5xx or other), `rate_limited retry_after=N`
(429; N is YNAB's Retry-After or empty), `no_answer` (sent, nothing complete came back)
and `not_sent` (the connection was never made: not counted against YNAB's budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from asgiref.sync import sync_to_async

from tools.models import YnabRequest
from tools.ynab.pacing import WINDOW_SECONDS, pause_seconds

NOT_SENT = "not_sent"
RATE_LIMITED = "rate_limited"
_PATH_LIMIT = YnabRequest._meta.get_field("path").max_length


@dataclass(frozen=True, slots=True)
class Attempt:
    """One finished attempt, as recorded."""

    token_tag: str
    method: str
    path: str
    sent_at: float
    duration_ms: float
    status: int | None
    outcome: str


def outcome_for_status(status: int, retry_after: str | None = None) -> str:
    if status == 429:
        return f"{RATE_LIMITED} retry_after={(retry_after or '').strip()[:10]}"
    if 200 <= status < 300:
        return "ok"
    if 400 <= status < 500:
        return "refused"
    return "failed"


async def record(attempt: Attempt) -> None:
    """Store one attempt (through the async ORM, off the event loop)."""
    await YnabRequest.objects.acreate(
        sent_at=datetime.fromtimestamp(attempt.sent_at, UTC),
        token_tag=attempt.token_tag,
        method=attempt.method,
        path=attempt.path[:_PATH_LIMIT],
        status=attempt.status,
        duration_ms=round(attempt.duration_ms, 2),
        outcome=attempt.outcome[:40],
    )


@dataclass(frozen=True, slots=True)
class History:
    """The last hour of one token, as pacing needs it after a restart."""

    sent_at: list[float]
    paused_until: float | None


async def last_hour(token_tag: str, now: float) -> History:
    return await sync_to_async(last_hour_sync)(token_tag, now)


def last_hour_sync(token_tag: str, now: float) -> History:
    since = datetime.fromtimestamp(now - WINDOW_SECONDS, UTC)
    rows = list(
        YnabRequest.objects.filter(token_tag=token_tag, sent_at__gt=since)
        .exclude(outcome=NOT_SENT)
        .order_by("sent_at")
        .values_list("sent_at", "outcome")
    )
    paused_until = None
    for sent_at, outcome in rows:
        if outcome.startswith(RATE_LIMITED):
            retry_after = outcome.partition("retry_after=")[2] or None
            paused_until = sent_at.timestamp() + pause_seconds(retry_after, sent_at.timestamp())
    return History([sent_at.timestamp() for sent_at, _ in rows], paused_until)


def requests_last_hour(token_tag: str | None = None, *, now: datetime | None = None) -> int:
    """Requests that reached (or may have reached) YNAB in the last hour; all tokens if None.

    Synchronous (a database count), for the admin and `/api/health`.
    """
    since = (now or datetime.now(UTC)) - timedelta(seconds=WINDOW_SECONDS)
    rows = YnabRequest.objects.filter(sent_at__gt=since).exclude(outcome=NOT_SENT)
    if token_tag is not None:
        rows = rows.filter(token_tag=token_tag)
    return rows.count()
