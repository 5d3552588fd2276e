"""AVENIR_MCP_PUBLIC_URL is checked at start-up: an issuer must be an https origin."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

pytestmark = pytest.mark.subprocesses


def check_with(public_url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AVENIR_MCP_PUBLIC_URL": public_url}
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("public_url", ["http://mcp.example.com", "https://mcp.example.com/avenir"])
def test_a_public_url_neither_https_nor_an_origin_stops_the_service(public_url):
    checked = check_with(public_url)

    assert checked.returncode != 0
    assert "AVENIR_MCP_PUBLIC_URL must be an https origin without a path" in checked.stderr


def test_an_https_origin_is_accepted():
    assert check_with("https://mcp.example.com/").returncode == 0
