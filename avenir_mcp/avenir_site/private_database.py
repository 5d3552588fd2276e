"""The SQLite database and its WAL side files are readable by the service's user only.

The database holds every preview, payee and amount the service has seen (with the sandbox, the
whole plan). SQLite creates the main file, empty, when a connection opens, 0644 (less what the
umask removes); it creates `-wal` and `-shm` later with the main file's own mode (measured with
SQLite 3.40, under umask 022 and 000). So every new connection makes the three files
0600: a new database is private before anything is written to it, and one made before this
rule (or copied in with another mode) is mended by the service's first connection.

Connected to Django's `connection_created` for SQLite only, in `avenir_mcp/avenir_site/apps.py`;
PostgreSQL keeps its own files. A database that is not a file (`:memory:`, a `file:` URI) has
nothing to change here.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper

PRIVATE_FILE_MODE = 0o600
SIDE_FILES = ("-wal", "-shm")


def keep_database_private(sender: type, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """Make the database file and its `-wal` and `-shm` files 0600 (those that exist)."""
    name = str(connection.settings_dict["NAME"])
    for path in (name, *(f"{name}{suffix}" for suffix in SIDE_FILES)):
        _make_private(path)


def _make_private(path: str) -> None:
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return  # a side file SQLite has not made yet (it will take the main file's mode)
    if mode != PRIVATE_FILE_MODE:
        os.chmod(path, PRIVATE_FILE_MODE)
