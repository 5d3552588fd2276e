"""Fixtures for the distribution's tests: the wheel, built once per run outside the checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.helpers.processes import PROCESS_SECONDS


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built as `make dist` builds it, into a temporary folder."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), "."],
        check=True,
        capture_output=True,
        timeout=PROCESS_SECONDS,
        cwd=settings.BASE_DIR,
    )
    (built,) = out.glob("avenir_mcp-*.whl")
    return built
