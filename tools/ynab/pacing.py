"""Pacing: this service never spends more of YNAB's hourly request budget than it may.

YNAB allows 200 requests per token in any rolling hour and answers 429 beyond. A `Pacer`
(one per token, shared by every client and event loop of the process) counts what was sent
in the last hour and refuses, before anything is sent, once 180 have gone (a margin for
other apps using the same token). After a 429 nothing is sent until YNAB's `Retry-After`
(clamped to 60-3600 s) has passed, or 10 minutes without one. A refusal is `PacingRefused`,
whose message says at what clock time, and in how many minutes, a request may leave.

At its first use a pacer is seeded from the `YnabRequest` rows of the last hour (see
`tools.ynab.records`), so a restart does not forget what was spent. The clock is a callable
returning epoch seconds, so tests move time without sleeping.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from zoneinfo import ZoneInfo

from django.conf import settings

from tools.ynab.errors import PacingRefused

LIMIT = 180  # of YNAB's 200 an hour
WINDOW_SECONDS = 3600
RETRY_AFTER_BOUNDS = (60, 3600)
PAUSE_WITHOUT_RETRY_AFTER = 600

Clock = Callable[[], float]


class Pacer:
    """The rolling one-hour count of one token's requests, and its pause after a 429.

    Thread-safe: the service's event loop and test loops may share it.
    """

    def __init__(self, *, clock: Clock = time.time, limit: int = LIMIT, history: bool = True) -> None:
        self.clock = clock
        self.limit = limit
        self._lock = threading.Lock()
        self._sent: deque[float] = deque()
        self._paused_until = 0.0
        self._seeded = not history

    @property
    def needs_history(self) -> bool:
        """True until the last hour's requests have been loaded (`seed`)."""
        return not self._seeded

    def seed(self, sent_at: Iterable[float], paused_until: float | None = None) -> None:
        """Count requests sent before this process started; only the first call counts."""
        with self._lock:
            if self._seeded:
                return
            self._seeded = True
            self._sent.extend(sorted(sent_at))
            self._paused_until = max(self._paused_until, paused_until or 0.0)

    def reserve(self) -> float:
        """Take one request from the budget and return its stamp, or raise `PacingRefused`."""
        with self._lock:
            now = self.clock()
            self._forget_before(now - WINDOW_SECONDS)
            if now < self._paused_until:
                raise PacingRefused(
                    _paused_message(self._paused_until, now), retry_at=_utc(self._paused_until)
                )
            if len(self._sent) >= self.limit:
                free_at = self._sent[0] + WINDOW_SECONDS
                raise PacingRefused(_spent_message(len(self._sent), free_at, now), retry_at=_utc(free_at))
            self._sent.append(now)
            return now

    def reserve_rollback(self) -> float:
        """Count a request that puts back half of a change (a set-back): it leaves whatever the
        count or a pause say, since refusing it would leave the half change in YNAB. Its caller
        waits out a 429 itself (`tools.writes.assigned_pair`)."""
        with self._lock:
            now = self.clock()
            self._sent.append(now)
            return now

    def release(self, stamp: float) -> None:
        """Give back a reserved request that provably never left (connection refused)."""
        with self._lock, contextlib.suppress(ValueError):  # already out of the window
            self._sent.remove(stamp)

    def pause(self, retry_after: str | None) -> float:
        """After a 429: send nothing until `Retry-After` (clamped) or 10 minutes have passed."""
        with self._lock:
            now = self.clock()
            self._paused_until = max(self._paused_until, now + pause_seconds(retry_after, now))
            return self._paused_until

    def used(self) -> int:
        """Requests counted in the last hour."""
        with self._lock:
            self._forget_before(self.clock() - WINDOW_SECONDS)
            return len(self._sent)

    def paused_until(self) -> datetime | None:
        """When the pause after a 429 ends, if one is running."""
        with self._lock:
            return _utc(self._paused_until) if self._paused_until > self.clock() else None

    def forget(self) -> None:
        """Drop every count and any pause, and read no history (test suites, benchmarks)."""
        with self._lock:
            self._sent.clear()
            self._paused_until = 0.0
            self._seeded = True

    def _forget_before(self, cutoff: float) -> None:
        while self._sent and self._sent[0] <= cutoff:
            self._sent.popleft()


def pause_seconds(retry_after: str | None, now: float) -> int:
    """How long to wait after a 429: `Retry-After` (seconds or HTTP date), clamped; else 600."""
    seconds = retry_after_seconds(retry_after, now)
    if seconds is None:
        return PAUSE_WITHOUT_RETRY_AFTER
    low, high = RETRY_AFTER_BOUNDS
    return min(max(seconds, low), high)


def retry_after_seconds(value: str | None, now: float) -> int | None:
    """A `Retry-After` header (seconds or HTTP date) as seconds from `now`, unclamped; None if absent."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        return math.ceil(parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError, OverflowError):
        return None


def wait_phrase(until: float, now: float) -> str:
    """`14:32 UTC (in 12 minutes)`: when something may happen, as clock time and minutes."""
    minutes = max(1, math.ceil((until - now) / 60))
    local = datetime.fromtimestamp(until, ZoneInfo(settings.TIME_ZONE))
    unit = "minute" if minutes == 1 else "minutes"
    return f"{local:%H:%M} {local.tzname()} (in {minutes} {unit})"


def _spent_message(used: int, free_at: float, now: float) -> str:
    return (
        f"Not sent: {used} requests went to YNAB in the last hour, and this service stops at {LIMIT} "
        f"to stay under YNAB's limit of 200 an hour. The next request may leave at "
        f"{wait_phrase(free_at, now)}; try again then."
    )


def _paused_message(until: float, now: float) -> str:
    return (
        "Not sent: YNAB answered 'too many requests' (429), so this service sends nothing until "
        f"{wait_phrase(until, now)}; try again then."
    )


def _utc(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, UTC)


# --- One pacer per token, for the whole process -------------------------------------------

_pacers: dict[str, Pacer] = {}
_pacers_lock = threading.Lock()
_history_forgotten = False


def pacer_for(token_tag: str) -> Pacer:
    """The process-wide pacer of a token (by its tag)."""
    with _pacers_lock:
        pacer = _pacers.get(token_tag)
        if pacer is None:
            pacer = _pacers[token_tag] = Pacer(history=not _history_forgotten)
        return pacer


def pacers() -> dict[str, Pacer]:
    """Every token's pacer so far, by token tag."""
    with _pacers_lock:
        return dict(_pacers)


def reset_pacing() -> None:
    """Forget every count and pause, and do not re-read history (for test suites).

    A test suite sends far more than 180 requests an hour to its sandbox; resetting
    between tests keeps each test's budget whole. Tests of pacing itself build their
    own `Pacer`.
    """
    global _history_forgotten
    with _pacers_lock:
        # Emptied in place: a client keeps the pacer it was built with (`get_ynab_client`'s
        # shared one lives for the process), so dropping pacers from the registry would
        # leave that client counting on.
        for pacer in _pacers.values():
            pacer.forget()
        _history_forgotten = True
