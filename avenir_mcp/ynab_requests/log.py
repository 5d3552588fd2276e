"""The YNAB client's request log in the database: every attempt a row (`YnabRequest`), and the
last hour read back when a process starts pacing (`ynab_client.pacing.RequestLog`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from avenir_mcp.ynab_client.pacing import NOT_SENT, WINDOW_SECONDS, Attempt, History
from avenir_mcp.ynab_requests.models import YnabRequest

_PATH_LIMIT = YnabRequest._meta.get_field("path").max_length


class DatabaseRequestLog:
    """`ynab_client.pacing.RequestLog` over `YnabRequest` rows, which every process shares."""

    async def record(self, attempt: Attempt) -> None:
        """Store one attempt (through the async ORM, off the event loop)."""
        await YnabRequest.objects.acreate(
            sent_at=datetime.fromtimestamp(attempt.sent_at, UTC),
            token_tag=attempt.token_tag,
            method=attempt.method,
            path=attempt.path[:_PATH_LIMIT],
            status=attempt.status,
            duration_ms=round(attempt.duration_ms, 2),
            outcome=attempt.outcome[:40],
            spender=attempt.spender or "",
        )

    def last_hour(self, token_tag: str, now: float) -> History:
        """The attempts of the hour before `now` that reached (or may have reached) YNAB."""
        since = datetime.fromtimestamp(now - WINDOW_SECONDS, UTC)
        rows = (
            YnabRequest.objects.filter(token_tag=token_tag, sent_at__gt=since)
            .exclude(outcome=NOT_SENT)
            .order_by("sent_at")
            .values_list("sent_at", "outcome", "spender")
        )
        return History.of((sent_at.timestamp(), outcome, spender) for sent_at, outcome, spender in rows)

    def requests_last_hour(self, token_tag: str) -> int:
        """A token's requests that reached (or may have reached) YNAB in the last hour (a count,
        for the admin and `/api/health`)."""
        since = datetime.now(UTC) - timedelta(seconds=WINDOW_SECONDS)
        of_token = YnabRequest.objects.filter(sent_at__gt=since, token_tag=token_tag)
        return of_token.exclude(outcome=NOT_SENT).count()
