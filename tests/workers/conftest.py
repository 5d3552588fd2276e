"""The Redis database the service processes of a module share (their key prefix is the
service's own, `avenir-mcp`): one per module and per pytest-xdist worker, whose test databases
differ, so no two sets of processes meet in the store."""

from __future__ import annotations

import os

import pytest
from redis import Redis

MODULES = ("test_any_worker", "test_hourly_budget")


@pytest.fixture(scope="module")
def store(request, redis_url: str) -> str:
    """REDIS_URL for this module's processes: a database of the store of its own, emptied."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    index = 1 + worker * len(MODULES) + MODULES.index(request.module.__name__.rpartition(".")[2])
    url = f"{redis_url.rsplit('/', 1)[0]}/{index}"
    Redis.from_url(url).flushdb()
    return url
