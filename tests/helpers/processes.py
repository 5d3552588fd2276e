"""Service processes a test starts (a stdio server, runserver, a manage.py command, a writer it
kills): pointed at this run's database and data folder, never the checkout's, and waited on for
what they say, under a deadline a loaded machine does not reach.

A deadline here bounds a wait for an event (a line printed, a process ended); it never paces a
test. `PROCESS_SECONDS` is far beyond what a process takes on a busy two-core machine under
coverage (Django's set-up, the first requests): only a process that is stuck reaches it.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import quote

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream
from django.conf import settings

PROCESS_SECONDS = 300


def this_runs_database_url() -> str:
    """DATABASE_URL of the database this test run uses (SQLite file or PostgreSQL)."""
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{database['NAME']}"
    credentials = f"{quote(database['USER'])}:{quote(database['PASSWORD'])}"
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"


def service_env(**extra: str) -> dict[str, str]:
    """This process's environment for a service process, without the settings this run sets
    for itself (AVENIR_MCP_*, DATABASE_URL), on this run's database and data folder, plus `extra`."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("AVENIR_MCP_", "DATABASE_URL"))
    }
    env.update(
        DATABASE_URL=this_runs_database_url(),
        AVENIR_MCP_DATA_DIR=str(settings.AVENIR_MCP_DATA_DIR),  # the run's own, not the checkout's .local
        **extra,
    )
    return env


def port_nobody_serves() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def next_line(lines: BufferedByteReceiveStream, *, stderr: Path | None = None) -> bytes:
    """The next line a process printed (without its newline), however long it takes to print it
    (up to `PROCESS_SECONDS`). A process that ends first fails the test, with what it wrote to
    `stderr` (a file) when given."""
    try:
        with anyio.fail_after(PROCESS_SECONDS):
            return await lines.receive_until(b"\n", 10_000)
    except (anyio.EndOfStream, anyio.IncompleteRead):
        said = await anyio.Path(stderr).read_text(errors="replace") if stderr is not None else ""
        raise AssertionError(f"the process ended before printing a line; its stderr:\n{said}") from None
