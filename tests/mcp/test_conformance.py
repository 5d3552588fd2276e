"""The MCP conformance suite (npm @modelcontextprotocol/conformance, the protocol's own referee)
against /mcp served for real: what each protocol revision requires, at that revision's wire
(the handshake of 2025-11-25, the stateless requests of 2026-07-28), and then every scenario.

The suite's checks that need fixtures of its own (tools, prompts and resources named test_*, the
tasks extension) are listed, each with its reason, in conformance/expected_failures.yaml; every
other check must pass, and an entry there that starts passing fails the run too (the suite's
own rules for a baseline).

The suite cannot send a bearer token (it has no option for one), so it talks to the service
through a wrapper that adds one to each request, a token issued the way the owner issues
them. Everything else is /mcp as deployed: the service's MCP application under uvicorn.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.types import Receive, Scope, Send

from avenir_mcp.mcp_surface.http import McpHttpApp
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.tokens.models import McpToken
from tests.helpers.npm import node_22, npm_package
from tests.helpers.processes import PROCESS_SECONDS
from tests.served import ServedApp

pytestmark = pytest.mark.subprocesses

SUITE_VERSION = "0.2.0-alpha.12"
EXPECTED_FAILURES = Path(__file__).parent / "conformance" / "expected_failures.yaml"
RUNS = {
    "what 2025-11-25 requires": ["--requirements", "2025-11-25"],
    "what 2026-07-28 requires": ["--requirements", "2026-07-28"],
    "every scenario": ["--suite", "all"],
}


@pytest.fixture(scope="module")
def suite() -> list[str]:
    """The command that starts the conformance suite."""
    package = npm_package("@modelcontextprotocol/conformance", SUITE_VERSION)
    return [str(node_22()), str(package / "dist" / "index.js")]


@pytest.fixture(scope="module")
def bearer_added(live_service: ServedApp) -> Iterator[ServedApp]:
    """/mcp as the service serves it (`McpHttpApp` of the service's servers, under uvicorn),
    each request given a read-write token (module docstring); YNAB is `live_service`'s sandbox."""
    _row, token = McpToken.issue(f"conformance suite {uuid.uuid4().hex[:12]}", read_only=False)
    authorization = (b"authorization", f"Bearer {token}".encode())
    mcp_app = McpHttpApp(HttpServers.build())

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await mcp_app.serve_lifespan(receive, send)
        else:
            await mcp_app({**scope, "headers": [*scope["headers"], authorization]}, receive, send)

    with ServedApp(app) as served:
        yield served


@pytest.mark.parametrize("run", RUNS)
def test_the_conformance_suite_passes(suite, bearer_added, tmp_path, run):
    done = subprocess.run(
        [
            *suite,
            "server",
            "--url",
            f"{bearer_added.url}/mcp",
            *RUNS[run],
            "--expected-failures",
            str(EXPECTED_FAILURES),
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=PROCESS_SECONDS,
        cwd=tmp_path,
    )

    checks = _checks(tmp_path)
    assert done.returncode == 0, _unexpected(done.stdout, done.stderr)
    assert len(checks) >= 40, checks  # the suite ran its scenarios, not nothing
    assert any(check["status"] == "SUCCESS" for check in checks)


def _checks(results: Path) -> list[dict]:
    return [check for path in results.rglob("checks.json") for check in json.loads(path.read_text())]


def _unexpected(stdout: str, stderr: str) -> str:
    """The suite's verdict: its lines from the summary on (unexpected failures, stale entries)."""
    lines = stdout.splitlines()
    start = next((at for at, line in enumerate(lines) if "Total:" in line or "unexpected" in line.lower()), 0)
    return "\n".join(lines[max(start - 80, 0) :]) + ("\n" + stderr[-3000:] if stderr else "")
