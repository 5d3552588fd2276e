"""`manage.py runserver` (what `make run` starts), as a real process: it serves its own port,
says where after each reload, watches only the project's code, and Ctrl+C ends it quickly and
quietly even with an MCP session open.

It runs from a copy of the project in the test's own folder: the reload is a touch of a code
file, which in the checkout would restart a `make run` serving from it. The copy's process is
not measured by coverage.py (its files are not the checkout's); what only it runs,
`watched_dirs`, is tested in process (test_runserver_address.py)."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async

from tests.helpers.checkout import PROJECT, copy_of_project
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.processes import port_nobody_serves
from tests.helpers.runserver import Served

pytestmark = [pytest.mark.anyio, pytest.mark.subprocesses]


@pytest.fixture
def project(tmp_path) -> Path:
    return copy_of_project(tmp_path)


@pytest.fixture
def served(project):
    unmeasured = {"COVERAGE_PROCESS_CONFIG": "", "COVERAGE_PROCESS_START": ""}
    server = Served(port_nobody_serves(), project=project, env=unmeasured)
    yield server
    server.stop()


def start_then_reload(served: Served, url: str, project: Path) -> tuple[str, dict]:
    """Waits for the first start, reads /api/health, touches a code file, waits for the restart.

    Returns the reloader's "Will watch" line and the health answer."""
    announced = re.escape(f"avenir-mcp on {url}/ (MCP {url}/mcp")
    served.wait_for(announced)
    [watching] = served.wait_for("Will watch for changes in these directories")
    health = httpx2.get(f"{url}/api/health", timeout=30).json()
    (project / "avenir_mcp" / "avenir_site" / "home.py").touch()  # a code change: the worker restarts
    served.wait_for(announced, count=2)
    return watching, health


async def test_it_serves_its_port_says_where_on_each_start_and_ctrl_c_ends_it_cleanly(
    served, project, issue_token
):
    _row, token = await sync_to_async(issue_token)()
    url = f"http://127.0.0.1:{served.process.args[-1].rsplit(':', 1)[1]}"

    watching, health = await anyio.to_thread.run_sync(start_then_reload, served, url, project)
    with anyio.fail_after(60):
        async with mcp_over_http(url, token, mode="legacy") as client:  # holds a GET stream open
            await client.list_tools()
            seconds = await anyio.to_thread.run_sync(served.ctrl_c)

    watched = {Path(path) for path in re.findall(r"'([^']+)'", watching)}
    assert health["ynab"]["base_url"] == f"{url}/sandbox/v1"  # its own sandbox, on its own port
    assert watched == {project / package for package in PROJECT}  # the copy's code, not .venv
    # SHUTDOWN_GRACE_SECONDS (3) and the processes' exit; without the grace the open stream would
    # hold it forever. The bound is far from both, so a loaded machine does not reach it.
    assert seconds < 30, served.lines
    assert not [line for line in served.lines if "ERROR" in line or "Traceback" in line]
