"""Sending one YNAB request: pacing, safe retries, recording, errors.

`Sender.send(call)` returns a 2xx `httpx.Response` or raises a `YnabError`. What may be
retried, at most 3 attempts in all, with jittered backoff:

- any request proven never sent (connection refused, connect timeout, no free connection);
- a GET that got no answer (timeout, connection closed or broken) or a 502/503/504.

Nothing else. A write that was sent is never sent again: when no answer comes back it is
`UnknownOutcome` (the change may or may not be in YNAB; the message says how to check).
A 429 is never retried: the token's pacer pauses and the error says until when (and carries
YNAB's `Retry-After`). Every attempt takes one request from the pacer first, as the kind the
context gives it (`tools.ynab.pacing.request_kind`; anything but a GET is at least a write; a
rollback is never refused), and is recorded as a `YnabRequest`.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from tools.ynab import records
from tools.ynab.errors import UnknownOutcome, YnabError, error_for_status
from tools.ynab.pacing import Pacer, RequestKind, current_kind, retry_after_seconds, wait_phrase

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
DEFAULT_DELAYS = (0.5, 2.0)  # before the 2nd and 3rd attempts, each jittered to 50-150 %
RETRIED_STATUSES = frozenset({502, 503, 504})
DEFAULT_CHECK_HINT = "Read the plan again to see whether it is there before trying again."

# Raised before a single byte of the request could reach YNAB.
NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
_REASONS = {
    httpx.ConnectError: "the connection was refused or could not be made",
    httpx.ConnectTimeout: "connecting timed out",
    httpx.PoolTimeout: "no connection was free in time",
    httpx.ReadTimeout: "no answer came within the time limit",
    httpx.WriteTimeout: "sending the request timed out",
    httpx.RemoteProtocolError: "the connection closed before a complete answer",
    httpx.ReadError: "the connection broke while the answer was read",
    httpx.WriteError: "the connection broke while the request was sent",
}


@dataclass(frozen=True, slots=True)
class Call:
    """One request to make: method, path under the base URL (ids already checked), query, body.

    `check_hint` (writes) says how to check whether the change landed if no answer comes.
    """

    method: str
    path: str
    params: dict[str, Any] | None = None
    body: Any = None
    check_hint: str | None = None

    @property
    def is_read(self) -> bool:
        return self.method == "GET"

    def kind(self) -> RequestKind:
        """What the pacer counts it as: the context's kind, at least `WRITE` for a write."""
        return current_kind() if self.is_read else max(current_kind(), RequestKind.WRITE)

    def logged_path(self) -> str:
        query = "&".join(f"{key}={value}" for key, value in (self.params or {}).items())
        return f"{self.path}?{query}" if query else self.path


class Sender:
    """Sends calls for one (base URL, token): pacing, retries, records, errors."""

    def __init__(
        self,
        *,
        http: Callable[[], httpx.AsyncClient],
        pacer: Pacer,
        token_tag: str,
        host: str,
        delays: Sequence[float] = DEFAULT_DELAYS,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self._http = http
        self.pacer = pacer
        self.token_tag = token_tag
        self._host = host
        self._delays = tuple(delays)
        self._sleep = sleep

    async def send(self, call: Call) -> httpx.Response:
        await self._seed_pacer()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            last = attempt == MAX_ATTEMPTS
            response = await self._attempt(call, last=last)
            if response is not None:
                return response
            await self._sleep(self._delay(attempt))
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _attempt(self, call: Call, *, last: bool) -> httpx.Response | None:
        """The answer; None to retry; raises when retrying is over or not allowed."""
        stamp = self.pacer.reserve(call.kind())
        started = time.perf_counter()
        try:
            response = await self._http().request(call.method, call.path, params=call.params, json=call.body)
        except NEVER_SENT as exc:
            self.pacer.release(stamp)
            await self._record(call, stamp, started, None, records.NOT_SENT)
            if last:
                raise self._unreachable(exc) from exc
            return None
        except httpx.TransportError as exc:
            await self._record(call, stamp, started, None, "no_answer")
            if not call.is_read:
                raise _unknown_outcome(call, exc) from exc
            if last:
                raise _no_answer(exc) from exc
            return None
        return await self._answered(call, response, stamp, started, last=last)

    async def _answered(
        self, call: Call, response: httpx.Response, stamp: float, started: float, *, last: bool
    ) -> httpx.Response | None:
        status = response.status_code
        retry_after = response.headers.get("Retry-After")
        await self._record(call, stamp, started, status, records.outcome_for_status(status, retry_after))
        if response.is_success:
            return response
        if status == 429:
            raise self._rate_limited(response, retry_after)
        if status in RETRIED_STATUSES and call.is_read and not last:
            return None
        raise error_from_response(response, method=call.method)

    def _rate_limited(self, response: httpx.Response, retry_after: str | None) -> YnabError:
        until = self.pacer.pause(retry_after)
        error_id, name, detail = _envelope(response)
        return YnabError(
            "YNAB refused: too many requests (429; YNAB allows 200 an hour per token). Nothing will "
            f"be sent to YNAB until {wait_phrase(until, self.pacer.clock())}; try again then.",
            retry_after=retry_after_seconds(retry_after, self.pacer.clock()),
            status=429,
            error_id=error_id,
            name=name,
            detail=detail,
            retryable=True,
        )

    def _unreachable(self, exc: httpx.TransportError) -> YnabError:
        return YnabError(
            f"YNAB could not be reached at {self._host} ({_reason(exc)}) after {MAX_ATTEMPTS} attempts; "
            "nothing was sent. Check the network and AVENIR_MCP_YNAB_URL, then try again.",
            retryable=True,
        )

    def _delay(self, attempt: int) -> float:
        base = self._delays[min(attempt, len(self._delays)) - 1] if self._delays else 0.0
        return base * (0.5 + random.random())  # jitter, so clients do not retry in step

    async def _seed_pacer(self) -> None:
        if self.pacer.needs_history:
            history = await records.last_hour(self.token_tag, self.pacer.clock())
            self.pacer.seed(history.sent_at, history.paused_until)

    def seed_pacer_now(self) -> None:
        """`_seed_pacer` from synchronous code (a process's warm-up), so no call waits for it."""
        if self.pacer.needs_history:
            history = records.last_hour_sync(self.token_tag, self.pacer.clock())
            self.pacer.seed(history.sent_at, history.paused_until)

    async def _record(
        self, call: Call, stamp: float, started: float, status: int | None, outcome: str
    ) -> None:
        attempt = records.Attempt(
            token_tag=self.token_tag,
            method=call.method,
            path=call.logged_path(),
            sent_at=stamp,
            duration_ms=(time.perf_counter() - started) * 1000,
            status=status,
            outcome=outcome,
        )
        try:
            await records.record(attempt)
        except Exception:
            # The request has happened; losing its record must not turn its result into an error.
            logger.exception("Could not record a YNAB request (%s %s)", call.method, call.path)


def error_from_response(response: httpx.Response, *, method: str) -> YnabError:
    """The `YnabError` for a non-2xx answer, from YNAB's error envelope when there is one."""
    error_id, name, detail = _envelope(response)
    return error_for_status(response.status_code, error_id, name, detail, method=method)


def _envelope(response: httpx.Response) -> tuple[str | None, str | None, str | None]:
    """YNAB's `{"error": {"id", "name", "detail"}}`, or Nones when the body is something else."""
    try:
        error = response.json()["error"]
        return str(error["id"]), str(error.get("name") or "") or None, error.get("detail")
    except (ValueError, KeyError, TypeError):
        return None, None, None


def _reason(exc: Exception) -> str:
    for kind, reason in _REASONS.items():
        if isinstance(exc, kind):
            return reason
    return f"a network error ({type(exc).__name__})"


def _unknown_outcome(call: Call, exc: Exception) -> UnknownOutcome:
    reason = _reason(exc)
    return UnknownOutcome(
        f"No answer came back from YNAB for this change ({reason}): the change may or may not be "
        f"in YNAB. {call.check_hint or DEFAULT_CHECK_HINT} It was not sent again.",
        reason=reason,
    )


def _no_answer(exc: Exception) -> YnabError:
    return YnabError(
        f"YNAB did not answer ({_reason(exc)}) after {MAX_ATTEMPTS} attempts; try again in a few minutes.",
        retryable=True,
    )
