"""The command a desktop client runs (`manage.py mcp_stdio`), pointed at this run's database,
sandbox and data folder, and measured by coverage.py when the run is."""

from __future__ import annotations

import os
import sys

from django.conf import settings
from mcp import StdioServerParameters

from tests.helpers.processes import this_runs_database_url


def measured(env: dict[str, str]) -> dict[str, str]:
    """`env` plus coverage.py's own variables when this run measures coverage (`make test`): a
    stdio client starts its server with a bare environment, which would leave it unmeasured."""
    coverage = {
        name: os.environ[name]
        for name in ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")
        if name in os.environ
    }
    return {**env, **coverage}


def stdio_server(sandbox_url: str, *options: str, writes: bool = False) -> StdioServerParameters:
    """The command a desktop client runs, pointed at this run's database and sandbox."""
    return StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio", *options],
        cwd=str(settings.BASE_DIR),
        env=measured(
            {
                "DATABASE_URL": this_runs_database_url(),
                "AVENIR_MCP_YNAB_URL": sandbox_url,
                "AVENIR_MCP_WRITE": "1" if writes else "0",
                "YNAB_API_KEY": "",
                "SANDBOX_TOKEN": settings.SANDBOX_TOKEN,
                "AVENIR_MCP_DATA_DIR": str(settings.AVENIR_MCP_DATA_DIR),  # the run's own, not .local
            }
        ),
    )
