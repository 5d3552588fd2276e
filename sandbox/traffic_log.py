"""The traffic layer's database work, done off the event loop, and the token tags it logs.

Database work runs on a small pool of threads of its own rather than Django's shared
thread-sensitive executor: a request must never wait for a thread that something else
(a sync caller waiting on this same server) may be holding. Each unit of work opens and
closes its connection as a Django request does (`CONN_MAX_AGE` applies), so these threads
hold no connection the settings did not ask for.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, close_old_connections

from sandbox.models import RequestLogEntry

logger = logging.getLogger(__name__)

T = TypeVar("T")

_db_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sandbox-traffic")


async def in_db_thread(work: Callable[..., T], *args: object) -> T:
    """Run `work(*args)` on the traffic layer's database threads and wait for it."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_db_threads, partial(_unit_of_work, work, *args))


def _unit_of_work(work: Callable[..., T], *args: object) -> T:
    close_old_connections()
    try:
        return work(*args)
    finally:
        close_old_connections()


async def write_entry(entry: RequestLogEntry) -> None:
    """Save one request-log row; a database failure is logged, never turned into the answer."""
    try:
        await in_db_thread(entry.save)
    except DatabaseError:
        logger.exception("The sandbox could not log %s %s", entry.method, entry.path)


def bearer_token(headers: list[tuple[bytes, bytes]]) -> str:
    """The bearer token of an ASGI request's `Authorization` header, "" when there is none."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


def token_tag(token: str) -> str:
    """A short tag telling tokens apart in the log, from which the token cannot be recovered.

    Keyed with the secret key, so even a short, guessable token (`sandbox`) cannot be found
    by hashing candidates. "" for no token.
    """
    if not token:
        return ""
    digest = hmac.new(settings.SECRET_KEY.encode(), token.encode(), hashlib.sha256).hexdigest()
    return digest[:12]
