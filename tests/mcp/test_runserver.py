"""`manage.py runserver` (what `make run` starts), as a real process: it serves its own port,
says where after each reload, watches only the project's code, and Ctrl+C ends it quickly and
quietly even with an MCP session open."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from tests.helpers.mcp_http import mcp_over_http
from tests.mcp.test_stdio import port_nobody_serves, this_runs_database_url

pytestmark = pytest.mark.anyio


class Served:
    """The process and every line it printed so far.

    `env` adds to (or overrides) the environment it starts with; `umask` is its umask (-1: this
    process's); `reload` False starts it with `--noreload` (no restart when another test touches
    a code file)."""

    def __init__(
        self, port: int, *, env: dict[str, str] | None = None, umask: int = -1, reload: bool = True
    ) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": this_runs_database_url(),
            "PORT": "",  # the port comes from the command line, as `make run` gives it
            "AVENIR_MCP_SELF_URL": "",
            "AVENIR_MCP_YNAB_URL": "",
            "YNAB_API_KEY": "",
            **(env or {}),
        }
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "runserver",
                f"127.0.0.1:{port}",
                *([] if reload else ["--noreload"]),
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, as a terminal's Ctrl+C reaches it
            umask=umask,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, *, count: int = 1, seconds: float = 60) -> list[str]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = [line for line in self.lines if re.search(pattern, line)]
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no {count}× {pattern!r} in:\n" + "\n".join(self.lines))

    def ctrl_c(self) -> float:
        """Seconds from Ctrl+C to the end of every process of the group."""
        started = time.monotonic()
        os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=30)
        return time.monotonic() - started

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def served():
    server = Served(port_nobody_serves())
    yield server
    server.stop()


def start_then_reload(served: Served, url: str) -> tuple[str, dict]:
    """Waits for the first start, reads /api/health, touches a code file, waits for the restart.

    Returns the reloader's "Will watch" line and the health answer."""
    announced = re.escape(f"avenir-mcp on {url}/ (MCP {url}/mcp")
    served.wait_for(announced)
    [watching] = served.wait_for("Will watch for changes in these directories")
    health = httpx2.get(f"{url}/api/health", timeout=30).json()
    (settings.BASE_DIR / "avenir_site" / "home.py").touch()  # a code change: the worker restarts
    served.wait_for(announced, count=2)
    return watching, health


async def test_it_serves_its_port_says_where_on_each_start_and_ctrl_c_ends_it_cleanly(served, issue_token):
    _row, token = await sync_to_async(issue_token)()
    url = f"http://127.0.0.1:{served.process.args[-1].rsplit(':', 1)[1]}"

    watching, health = await anyio.to_thread.run_sync(start_then_reload, served, url)
    with anyio.fail_after(60):
        async with mcp_over_http(url, token, mode="legacy") as client:  # holds a GET stream open
            await client.list_tools()
            seconds = await anyio.to_thread.run_sync(served.ctrl_c)

    watched = {Path(path) for path in re.findall(r"'([^']+)'", watching)}
    project = {
        settings.BASE_DIR / name for name in ("avenir_site", "sandbox", "tools", "confirmations", "oauth")
    }
    assert health["ynab"]["base_url"] == f"{url}/sandbox/v1"  # its own sandbox, on its own port
    assert watched == project  # not .venv
    assert seconds < 10, served.lines
    assert not [line for line in served.lines if "ERROR" in line or "Traceback" in line]
