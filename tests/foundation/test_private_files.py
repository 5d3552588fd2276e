"""Files the service writes are readable by its user only: the SQLite database and its WAL side
files are 0600, everything under AVENIR_MCP_DATA_DIR is 0600 in 0700 folders, whatever the
umask it was started with (avenir_mcp/avenir_site/private_database.py, avenir_mcp/ynab_client/store.py)."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import anyio
import pytest
from django.conf import settings
from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabase

from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.processes import port_nobody_serves
from tests.helpers.runserver import Served

pytestmark = pytest.mark.anyio


def mode_of(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def modes_under(folder: Path) -> dict[str, str]:
    """The mode of `folder` and of everything under it, by path relative to it."""
    return {str(path.relative_to(folder)): mode_of(path) for path in [folder, *folder.rglob("*")]}


def prepared(env: dict[str, str], umask: int) -> str:
    """`make run`'s first steps under `umask` (migrate, bootstrap); the MCP token bootstrap printed."""
    for command in (["migrate", "--noinput"], ["bootstrap"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=settings.BASE_DIR,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            umask=umask,
        )
    return re.search(r"MCP token created \(shown once; only its hash is kept\): (\S+)", done.stdout)[1]


@pytest.mark.subprocesses
async def test_the_database_and_the_data_folder_are_private_whatever_the_umask(tmp_path):
    """Started under the loosest umask (0o000), with a data folder already there and open to all:
    the service makes its own files and folders private, and tightens the folder it was given."""
    umask = 0o000
    database, data_dir = tmp_path / "avenir.sqlite3", tmp_path / "data"
    data_dir.mkdir()
    data_dir.chmod(0o777)
    env = {
        "DATABASE_URL": f"sqlite:///{database}",  # SQLite whatever this run uses: its file is the point
        "AVENIR_MCP_DATA_DIR": str(data_dir),
        "DJANGO_SECRET_KEY": "private files test key",  # nothing written to the checkout's .local/
        "YNAB_API_KEY": "",
        "AVENIR_MCP_YNAB_URL": "",
        "AVENIR_MCP_SELF_URL": "",
    }
    token = await anyio.to_thread.run_sync(prepared, env, umask)
    served = Served(port_nobody_serves(), env=env, umask=umask, reload=False)
    try:
        await anyio.to_thread.run_sync(served.wait_for, re.escape(f"Uvicorn running on {served.url}"))
        with anyio.fail_after(60):
            async with mcp_over_http(served.url, token) as client:
                result = await client.call_tool("list_accounts", {"plan_id": DEMO_PLAN_ID})
        with closing(sqlite3.connect(database)) as reader:  # beside the service's: -wal and -shm open
            (requests,) = reader.execute("SELECT count(*) FROM tools_ynabrequest").fetchone()
            database_modes = {path.name: mode_of(path) for path in tmp_path.glob("avenir.sqlite3*")}
        await anyio.to_thread.run_sync(served.ctrl_c)  # the plan is stored by then (at once, or at shutdown)
    finally:
        served.stop()

    assert not result.is_error, result.content[0].text
    assert requests >= 1  # the read reached YNAB (the sandbox) and was recorded in this database
    assert database_modes == {
        "avenir.sqlite3": "0o600",
        "avenir.sqlite3-wal": "0o600",
        "avenir.sqlite3-shm": "0o600",
    }
    [plan_file] = [name for name in modes_under(data_dir) if name.endswith(".plan")]
    assert modes_under(data_dir) == {".": "0o700", "plans": "0o700", plan_file: "0o600"}


def test_a_database_made_before_the_rule_is_made_private_by_the_first_connection(tmp_path):
    path = tmp_path / "older.sqlite3"
    older = sqlite3.connect(path)  # left open: its -wal and -shm stay
    older.execute("PRAGMA journal_mode=WAL")
    older.execute("CREATE TABLE kept (value)")
    older.commit()
    for made in tmp_path.iterdir():
        made.chmod(0o644)
    connection = SQLiteDatabase({**settings.DATABASES["default"], "NAME": str(path)}, alias="older")

    try:
        connection.ensure_connection()
        after = {made.name: mode_of(made) for made in tmp_path.iterdir()}
    finally:
        connection.close()
        older.close()

    assert after == dict.fromkeys(["older.sqlite3", "older.sqlite3-wal", "older.sqlite3-shm"], "0o600")
