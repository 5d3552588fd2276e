"""avenir_mcp/avenir_site/settings.py executed afresh, to see what it makes of an environment."""

from __future__ import annotations

import runpy
from typing import Any

import pytest

from avenir_mcp.avenir_site import settings as settings_module


def settings_under(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """The settings module's values, executed afresh with `env` added to the environment."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(settings_module.__file__)
