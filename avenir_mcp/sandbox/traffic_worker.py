"""The one thread that does the traffic layer's database work, off the event loop.

Why a thread of its own: a request must never wait for a thread that something else may
be holding (Django's shared thread-sensitive executor can be held by a sync caller that is
itself waiting on this same server).

Why it keeps its connection while busy: opening and closing a SQLite connection per unit
of work costs about a millisecond each time (closing the last connection checkpoints the
WAL), which made the layer add 3 to 5 ms to every sandbox request instead of about 1 ms.
So the connection stays open while work keeps coming and is closed once the thread has
been idle for `LINGER_SECONDS`, or at once after a database error (the next unit of work
reconnects), so no connection is held for long by a sandbox nobody calls.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from django.db import DatabaseError, connections

T = TypeVar("T")

LINGER_SECONDS = 0.5

_Job = tuple[Future, Callable[..., Any], tuple[Any, ...]]


class DatabaseWorker:
    """Runs database work, one unit at a time, on a daemon thread started on first use."""

    def __init__(self, linger_seconds: float = LINGER_SECONDS) -> None:
        self._linger = linger_seconds
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """Run `work(*args)` on the worker's thread and wait for its result (or exception)."""
        future: Future[T] = Future()
        self._ensure_started()
        self._jobs.put((future, work, args))
        return await asyncio.wrap_future(future)

    def _ensure_started(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="sandbox-traffic-db", daemon=True)
                self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self._linger)
            except queue.Empty:
                connections.close_all()  # idle: give the connection back until work comes
                job = self._jobs.get()
            self._do(*job)

    @staticmethod
    def _do(future: Future, work: Callable[..., Any], args: tuple[Any, ...]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(work(*args))
        except DatabaseError as error:
            connections.close_all()  # it may be broken; the next unit of work reconnects
            future.set_exception(error)
        except Exception as error:
            future.set_exception(error)


# The one worker of the traffic layer (claiming faults, writing the request log).
database_worker = DatabaseWorker()
