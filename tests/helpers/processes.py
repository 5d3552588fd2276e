"""Service processes a test starts (a stdio server, runserver, a manage.py command, a writer it
kills): the database this run uses, and a port nobody serves."""

from __future__ import annotations

import socket
from urllib.parse import quote

from django.conf import settings


def this_runs_database_url() -> str:
    """DATABASE_URL of the database this test run uses (SQLite file or PostgreSQL)."""
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{database['NAME']}"
    credentials = f"{quote(database['USER'])}:{quote(database['PASSWORD'])}"
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"


def port_nobody_serves() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
