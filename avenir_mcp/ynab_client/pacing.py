"""Pacing: this service never spends more of YNAB's hourly request budget than it may.

YNAB allows 200 requests per token in any rolling hour and answers 429 beyond. A `Pacer`
(one per YNAB URL and token, shared by every client and event loop of the process) counts
what was sent in the last hour and refuses, before anything is sent, once the hour's limit
has gone: `AVENIR_MCP_YNAB_HOURLY_LIMIT`, by default 180 against YNAB (a margin for other
apps using the same token) and no limit at all against a sandbox (a URL ending in
`/sandbox/v1`, which emulates YNAB's limit itself when `SANDBOX_RATE_LIMIT` is set).

What a request is for decides how much of the hour it may use (`RequestKind`):

- `READ`: an agent's read. It stops `RESERVE` short of the limit (20, or half of a limit
  under 40), so reads alone never use up what a confirmed write needs;
- `WRITE`: a write, and every read a write needs (its fresh plan read, a read-back, an
  undo's checks). It may use the reserve, up to the limit;
- `ROLLBACK`: putting back half of a change (move_money's set-back). Never refused by the
  pacer, neither by the count nor by a pause after a 429; it is still counted.

Who a read is for (the spender): the MCP caller whose call sent it, a plain tag (a
principal's key, `token:7`) set by the tool layer with `spending_as(tag)`; `current_spender()`
reads it. No caller may take more than its share of what reads may use in the hour, half of
`limit - reserve` (`share_of`), so one caller cannot starve the others. Only `READ` requests
count against a share; a request without a spender (the service's own: settling, warm-up,
the admin's pages) counts against the hour only. docs/ynab_budget.md has the whole accounting.

The kind comes from the context: `with request_kind(RequestKind.WRITE): ...` makes every
request sent inside the block (also by tasks started in it) at least that kind; a request
that is not a GET is at least `WRITE` anyway. `current_kind()` reads it.

After a 429 nothing but a rollback is sent until YNAB's `Retry-After` (clamped to 60-3600 s)
has passed, or 10 minutes without one. A refusal is `PacingRefused`, whose message says at
what clock time, and in how many minutes, a request may leave.

At its first use a pacer is seeded from the `YnabRequest` rows of the last hour (each read's
row names its spender), so a restart forgets neither the hour nor any caller's share. The
clock is a callable returning epoch seconds, so tests move time without sleeping.

With `REDIS_URL` set, the hour, each caller's reads and the pause live in the shared store
(`ynab_client.shared_hour`), so every process's pacer of one URL and token counts one hour;
seeding then counts the rows only into an hour no process has counted in yet
(docs/ynab_budget.md#several-processes). Without it nothing here touches Redis.

`SlidingWindow` is the rolling count both sides of this project keep: the pacer here, and
the sandbox's emulation of YNAB's limit (`sandbox.traffic_limit`).

Rows (`YnabRequest`, bottom of this module): one per attempt the client made (a retried GET
makes several), written when the attempt is over, with its status (None when no answer came
back), duration, outcome and, for a read counted against a caller's share, its spender. They
are what a pacer is seeded from after a restart and what `/api/health` and the admin count.
Outcomes: `ok`, `refused` (4xx), `failed` (5xx or other), `rate_limited retry_after=N` (429;
N is YNAB's Retry-After or empty), `no_answer` (sent, nothing complete came back) and
`not_sent` (the connection was never made: not counted against YNAB's budget).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from enum import IntEnum
from typing import Protocol
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings

from avenir_mcp.shared_state import shared
from avenir_mcp.ynab_client.errors import PacingRefused
from avenir_mcp.ynab_client.shared_hour import SharedHour

LIMIT = 180  # of YNAB's 200 an hour: the default of AVENIR_MCP_YNAB_HOURLY_LIMIT against YNAB
RESERVE = 20  # the last requests of the hour, kept for writes (reads stop short of them)
WINDOW_SECONDS = 3600
RETRY_AFTER_BOUNDS = (60, 3600)
PAUSE_WITHOUT_RETRY_AFTER = 600
SANDBOX_PATH = "/sandbox/v1"
SPENDER_LENGTH = 64
"""The longest spender tag kept (a caller's tag is cut to it)."""

Clock = Callable[[], float]
Limit = int | None  # requests an hour; None: not paced


class RequestKind(IntEnum):
    """What a request is for, in rising priority (see the module docstring)."""

    READ = 0
    WRITE = 1
    ROLLBACK = 2


_kind: ContextVar[RequestKind] = ContextVar("ynab_request_kind", default=RequestKind.READ)
_spender: ContextVar[str | None] = ContextVar("ynab_spender", default=None)


@contextlib.contextmanager
def request_kind(kind: RequestKind) -> Iterator[None]:
    """Requests sent inside the block (and by tasks started in it) are at least `kind`."""
    token = _kind.set(max(kind, _kind.get()))
    try:
        yield
    finally:
        _kind.reset(token)


def current_kind() -> RequestKind:
    """The kind the context gives requests (`READ` outside any `request_kind` block)."""
    return _kind.get()


@contextlib.contextmanager
def spending_as(spender: str | None) -> Iterator[None]:
    """Reads sent inside the block (and by tasks started in it) count against `spender`'s share
    (None: nobody's, the service's own)."""
    token = _spender.set(spender[:SPENDER_LENGTH] if spender else None)
    try:
        yield
    finally:
        _spender.reset(token)


def current_spender() -> str | None:
    """The caller the context's reads are for (None outside any `spending_as` block)."""
    return _spender.get()


def share_spender(kind: RequestKind) -> str | None:
    """Whose share a request of `kind` is counted against: the context's spender for a read, else nobody."""
    return _spender.get() if kind is RequestKind.READ else None


def hourly_limit(base_url: str) -> Limit:
    """The hour's limit for a YNAB URL: the setting when given, else 180 (a sandbox: None)."""
    configured = settings.AVENIR_MCP_YNAB_HOURLY_LIMIT
    if configured is not None:
        return configured or None  # 0: not paced
    return None if is_sandbox(base_url) else LIMIT


def is_sandbox(base_url: str) -> bool:
    """True for this project's sandbox (embedded or another instance's), which paces itself."""
    return urlsplit(base_url).path.rstrip("/").endswith(SANDBOX_PATH)


def reserve_of(limit: int) -> int:
    """How many of the hour's last requests reads may not use: 20, or half of a small limit."""
    return min(RESERVE, limit // 2)


def share_of(limit: int) -> int:
    """How many of the hour's reads one caller may send: half of what reads may use (80 of 180)."""
    return (limit - reserve_of(limit)) // 2


class SlidingWindow:
    """The stamps of what was let through in the last `seconds`: how many, and when one more fits.

    Not locked: its owner (a `Pacer`, the sandbox's limiter) holds its own lock around it.
    """

    def __init__(self, seconds: float = WINDOW_SECONDS) -> None:
        self.seconds = seconds
        self._stamps: deque[float] = deque()

    def count(self, now: float) -> int:
        """Stamps still in the window at `now` (older ones are forgotten)."""
        cutoff = now - self.seconds
        while self._stamps and self._stamps[0] <= cutoff:
            self._stamps.popleft()
        return len(self._stamps)

    def add(self, stamp: float) -> None:
        self._stamps.append(stamp)

    def extend(self, stamps: Iterable[float]) -> None:
        """Add stamps older than any added so far (history), in time order."""
        self._stamps.extend(sorted(stamps))

    def remove(self, stamp: float) -> None:
        """Take back one stamp (no error when it already left the window)."""
        with contextlib.suppress(ValueError):
            self._stamps.remove(stamp)

    def free_at(self, ceiling: int) -> float:
        """When enough of the oldest stamps will have left for the count to be under `ceiling`
        (which may be below the count: a limit lowered meanwhile). Call after `count`."""
        return self._stamps[len(self._stamps) - ceiling] + self.seconds

    def clear(self) -> None:
        self._stamps.clear()


class Pacer:
    """The rolling one-hour count of one token's requests, and its pause after a 429.

    `limit`: requests an hour, None for no limit, or a callable giving either (read at each
    request, so a settings change takes effect). Thread-safe: the service's event loop and
    test loops may share it.

    With `REDIS_URL` set the count and the pause live in the shared store instead, under `name`
    (`pacer_for` names a pacer by its URL and token; a pacer built without one has its own), so
    every process's pacer of one name counts one hour (`ynab_client.shared_hour`).
    """

    def __init__(
        self,
        *,
        clock: Clock = time.time,
        limit: Limit | Callable[[], Limit] = LIMIT,
        history: bool = True,
        name: str | None = None,
    ) -> None:
        self.clock = clock
        self.name = name or uuid.uuid4().hex
        self._limit = limit
        self._lock = threading.Lock()
        self._sent = SlidingWindow(WINDOW_SECONDS)
        self._reads_of: dict[str, SlidingWindow] = {}  # per spender: the reads counted against its share
        self._paused_until = 0.0
        self._seeded = not history

    @property
    def limit(self) -> Limit:
        """The hour's limit now (None: not paced)."""
        return self._limit() if callable(self._limit) else self._limit

    @property
    def needs_history(self) -> bool:
        """True until the last hour's requests have been loaded (`seed`)."""
        return not self._seeded

    def seed(
        self,
        sent_at: Iterable[float],
        paused_until: float | None = None,
        reads_of: Mapping[str, Iterable[float]] | None = None,
    ) -> None:
        """Count requests sent before this process started (`reads_of`: each spender's reads,
        also in `sent_at`); only the first call counts. In the shared store, only when no process
        has counted anything in the hour yet (`SharedHour.seed`): the rows of requests a process
        counted there are the same requests, counted once."""
        with self._lock:
            if self._seeded:
                return
            self._seeded = True
            if (hour := _shared_hour(self.name)) is not None:
                hour.seed(sent_at, paused_until, reads_of or {})
                return
            self._sent.extend(sent_at)
            for spender, stamps in (reads_of or {}).items():
                self._reads(spender).extend(stamps)
            self._paused_until = max(self._paused_until, paused_until or 0.0)

    def reserve(self, kind: RequestKind = RequestKind.READ) -> float:
        """Take one request of `kind` from the budget and return its stamp, or raise `PacingRefused`."""
        limit = self.limit
        spender = share_spender(kind)
        if (hour := _shared_hour(self.name)) is not None:
            return _take_shared(hour, kind, limit, spender, self.clock())
        with self._lock:
            now = self.clock()
            if kind is not RequestKind.ROLLBACK:
                self._check(kind, limit, now)
            if spender is not None:
                self._check_share(spender, limit, now)
                self._reads(spender).add(now)
            self._sent.add(now)
            return now

    def room(self, kind: RequestKind = RequestKind.READ) -> int | None:
        """Requests of `kind` that may still leave this hour (None: no limit), pauses aside;
        a read's room is also within the context's spender's share."""
        limit = self.limit
        if limit is None or kind is RequestKind.ROLLBACK:
            return None
        spender = share_spender(kind)
        with self._lock:
            now = self.clock()
            if (hour := _shared_hour(self.name)) is not None:
                sent, reads = hour.count(now - WINDOW_SECONDS, spender)
            else:
                sent = self._sent.count(now)
                reads = self._reads(spender).count(now) if spender is not None else 0
            room = _ceiling(kind, limit) - sent
            if spender is not None:
                room = min(room, share_of(limit) - reads)
            return max(0, room)

    def release(self, stamp: float) -> None:
        """Give back a reserved request that provably never left (connection refused); called
        in the context that reserved it, so the same spender's share gets it back."""
        spender = _spender.get()
        if (hour := _shared_hour(self.name)) is not None:
            hour.give_back(stamp, spender)
            return
        with self._lock:
            self._sent.remove(stamp)
            if spender in self._reads_of:
                self._reads_of[spender].remove(stamp)

    def pause(self, retry_after: str | None) -> float:
        """After a 429: send nothing until `Retry-After` (clamped) or 10 minutes have passed."""
        with self._lock:
            now = self.clock()
            until = now + pause_seconds(retry_after, now)
            if (hour := _shared_hour(self.name)) is not None:
                return hour.pause(until)
            self._paused_until = max(self._paused_until, until)
            return self._paused_until

    def used(self) -> int:
        """Requests counted in the last hour."""
        with self._lock:
            now = self.clock()
            if (hour := _shared_hour(self.name)) is not None:
                return hour.count(now - WINDOW_SECONDS, None)[0]
            return self._sent.count(now)

    def paused_until(self) -> datetime | None:
        """When the pause after a 429 ends, if one is running."""
        with self._lock:
            hour = _shared_hour(self.name)
            until = hour.paused() if hour is not None else self._paused_until
            return _utc(until) if until > self.clock() else None

    def forget(self) -> None:
        """Drop every count and any pause (in the shared store: for every process), and read no
        history (test suites, benchmarks)."""
        with self._lock:
            if (hour := _shared_hour(self.name)) is not None:
                hour.clear()
            self._sent.clear()
            self._reads_of.clear()
            self._paused_until = 0.0
            self._seeded = True

    def _reads(self, spender: str) -> SlidingWindow:
        """The reads counted against `spender`'s share (call holding the lock)."""
        window = self._reads_of.get(spender)
        if window is None:
            window = self._reads_of[spender] = SlidingWindow(WINDOW_SECONDS)
        return window

    def _check_share(self, spender: str, limit: Limit, now: float) -> None:
        if limit is None:
            return
        share = share_of(limit)
        reads = self._reads(spender)
        used = reads.count(now)
        if used >= share:
            raise _share_refused(used, limit, reads.free_at(share), now)

    def _check(self, kind: RequestKind, limit: Limit, now: float) -> None:
        if now < self._paused_until:
            raise _paused_refused(self._paused_until, now)
        used = self._sent.count(now)
        if limit is None:
            return
        ceiling = _ceiling(kind, limit)
        if used >= ceiling:
            raise _spent_refused(used, limit, kind, self._sent.free_at(ceiling), now)


def _shared_hour(name: str) -> SharedHour | None:
    """The pacer's hour in the shared store, or None when one process serves alone."""
    return SharedHour(name) if shared() is not None else None


def _take_shared(hour: SharedHour, kind: RequestKind, limit: Limit, spender: str | None, now: float) -> float:
    """`Pacer.reserve` in the shared store: the same checks, in one script every process runs."""
    verdict = hour.take(
        now,
        now - WINDOW_SECONDS,
        check=kind is not RequestKind.ROLLBACK,
        ceiling=None if limit is None else _ceiling(kind, limit),
        spender=spender,
        share=None if limit is None else share_of(limit),
    )
    if verdict.outcome == "paused":
        raise _paused_refused(verdict.at, now)
    if verdict.outcome == "spent":
        assert limit is not None  # only a limit refuses
        raise _spent_refused(verdict.used, limit, kind, verdict.at + WINDOW_SECONDS, now)
    if verdict.outcome == "share":
        assert limit is not None
        raise _share_refused(verdict.used, limit, verdict.at + WINDOW_SECONDS, now)
    return now


def _ceiling(kind: RequestKind, limit: int) -> int:
    """How many requests of the hour `kind` may bring the count to."""
    return limit - reserve_of(limit) if kind is RequestKind.READ else limit


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


def _paused_refused(until: float, now: float) -> PacingRefused:
    return PacingRefused(_paused_message(until, now), retry_at=_utc(until))


def _spent_refused(used: int, limit: int, kind: RequestKind, free_at: float, now: float) -> PacingRefused:
    return PacingRefused(_spent_message(used, limit, kind, free_at, now), retry_at=_utc(free_at))


def _share_refused(used: int, limit: int, free_at: float, now: float) -> PacingRefused:
    return PacingRefused(_share_message(used, limit, free_at, now), retry_at=_utc(free_at))


def _spent_message(used: int, limit: int, kind: RequestKind, free_at: float, now: float) -> str:
    if kind is RequestKind.READ and used < limit:
        stop = (
            f"reads stop at {limit - reserve_of(limit)}, keeping the last {reserve_of(limit)} of this "
            f"service's {limit} for changes and their undo"
        )
    else:
        stop = f"this service stops at {limit} to stay under YNAB's limit of 200 an hour"
    return (
        f"Not sent: {used} requests went to YNAB in the last hour, and {stop}. The next request may "
        f"leave at {wait_phrase(free_at, now)}; try again then."
    )


def _share_message(used: int, limit: int, free_at: float, now: float) -> str:
    return (
        f"Not sent: this MCP client's reads took {used} requests to YNAB in the last hour, its whole "
        f"share (half of the {limit - reserve_of(limit)} reads may use, so that no client starves the "
        f"others). Its next read may leave at {wait_phrase(free_at, now)}; other clients can still read."
    )


def _paused_message(until: float, now: float) -> str:
    return (
        "Not sent: YNAB answered 'too many requests' (429), so this service sends nothing until "
        f"{wait_phrase(until, now)}; try again then."
    )


def _utc(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, UTC)


# --- One pacer per YNAB URL and token, for the whole process -------------------------------

_pacers: dict[tuple[str, str], Pacer] = {}
_pacers_lock = threading.Lock()
_history_forgotten = False


def pacer_for(base_url: str, token_tag: str) -> Pacer:
    """The process-wide pacer of a token (by its tag) at a YNAB URL, limited by `hourly_limit`."""
    with _pacers_lock:
        pacer = _pacers.get((base_url, token_tag))
        if pacer is None:
            pacer = _pacers[(base_url, token_tag)] = Pacer(
                limit=lambda: hourly_limit(base_url),
                history=not _history_forgotten,
                name=f"{base_url} {token_tag}",
            )
        return pacer


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


# --- the request log: every attempt, and the hour read back after a restart ----------------

NOT_SENT = "not_sent"
RATE_LIMITED = "rate_limited"


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
    spender: str | None = None  # whose share this read counted against (None: nobody's)


def outcome_for_status(status: int, retry_after: str | None = None) -> str:
    if status == 429:
        return f"{RATE_LIMITED} retry_after={(retry_after or '').strip()[:10]}"
    if 200 <= status < 300:
        return "ok"
    if 400 <= status < 500:
        return "refused"
    return "failed"


@dataclass(frozen=True, slots=True)
class History:
    """The last hour of one token, as pacing needs it after a restart: every request, the
    pause after a 429, and each spender's reads."""

    sent_at: list[float]
    paused_until: float | None
    reads_of: dict[str, list[float]]

    @classmethod
    def of(cls, attempts: Iterable[tuple[float, str, str]]) -> History:
        """The history of `(sent_at, outcome, spender)` attempts that reached YNAB, oldest first."""
        sent: list[float] = []
        paused_until = None
        reads_of: dict[str, list[float]] = {}
        for sent_at, outcome, spender in attempts:
            sent.append(sent_at)
            if outcome.startswith(RATE_LIMITED):
                retry_after = outcome.partition("retry_after=")[2] or None
                paused_until = sent_at + pause_seconds(retry_after, sent_at)
            if spender:
                reads_of.setdefault(spender, []).append(sent_at)
        return cls(sent, paused_until, reads_of)


class RequestLog(Protocol):
    """Where every attempt is recorded and the last hour read back (the hook the client records
    through; `ynab_requests` installs the database's, shared by every process)."""

    async def record(self, attempt: Attempt) -> None: ...

    def last_hour(self, token_tag: str, now: float) -> History: ...

    def requests_last_hour(self, token_tag: str) -> int: ...


class NoRequestLog:
    """Until a log is installed (`use_request_log`): nothing kept, an empty hour, for a process
    that has no database (a script using the client alone)."""

    async def record(self, attempt: Attempt) -> None:
        return None

    def last_hour(self, token_tag: str, now: float) -> History:
        return History([], None, {})

    def requests_last_hour(self, token_tag: str) -> int:
        return 0


request_log: RequestLog = NoRequestLog()


def use_request_log(log: RequestLog) -> None:
    """Record every attempt in `log` from now on (`ynab_requests.apps`, at start-up)."""
    global request_log
    request_log = log
