"""The sandbox's emulation of YNAB's rate limit: N requests per token per rolling hour.

Counted in memory (the sandbox is served by one process) and keyed by the token's tag, so
no raw token is kept. Only admitted requests fill the window: a client that keeps knocking
while refused does not push its own wait further back, as with YNAB's rolling hour. The
window is the client's own (`ynab_client.pacing.SlidingWindow`): one rolling count for both.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from avenir_mcp.ynab_client.pacing import WINDOW_SECONDS, SlidingWindow


@dataclass(frozen=True)
class Admission:
    """The limiter's answer for one request: let through or refused, and the count it saw."""

    admitted: bool
    used: int  # requests of this token in the window, this one included when admitted
    limit: int
    retry_after: int  # whole seconds until a request may be admitted again; 0 when admitted

    @property
    def header(self) -> str:
        """The `X-Rate-Limit` value YNAB sends: `<used>/<limit>`."""
        return f"{self.used}/{self.limit}"


class RateLimiter:
    """A rolling window of admitted requests per key (thread-safe; tests reset it)."""

    def __init__(self, window_seconds: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic):
        self._seconds = window_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._admitted: dict[str, SlidingWindow] = {}

    def admit(self, key: str, limit: int) -> Admission:
        """Count one request for `key` if fewer than `limit` were admitted in the window."""
        now = self._clock()
        with self._lock:
            window = self._admitted.get(key)
            if window is None:
                window = self._admitted[key] = SlidingWindow(self._seconds)
            used = window.count(now)
            if used < limit:
                window.add(now)
                return Admission(admitted=True, used=used + 1, limit=limit, retry_after=0)
            wait = max(1, math.ceil(window.free_at(limit) - now))
            return Admission(admitted=False, used=used, limit=limit, retry_after=wait)

    def reset(self) -> None:
        """Forget every request counted so far, for every key."""
        with self._lock:
            self._admitted.clear()


# The one limiter the sandbox's traffic layer uses.
rate_limiter = RateLimiter()
