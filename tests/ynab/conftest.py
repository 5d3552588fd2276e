"""Fixtures for the YNAB client's tests: a client on the live sandbox, plans of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from avenir_mcp.sandbox import faults
from avenir_mcp.ynab_client.cache import PlanCache
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.pacing import Pacer
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.sandbox_side import SandboxLog


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def no_faults(live_service) -> Iterator[None]:
    faults.clear_faults()
    yield
    faults.clear_faults()


@pytest.fixture
def client(sandbox_url: str) -> YnabClient:
    """A client of the live sandbox with its own pacer and no waiting between retries."""
    return YnabClient(
        base_url=sandbox_url, token=settings.SANDBOX_TOKEN, pacer=Pacer(history=False), delays=(0, 0)
    )


@pytest.fixture
def cache() -> PlanCache:
    """A cache of this test's own (the process's cache is shared by every test)."""
    return PlanCache()


@pytest.fixture
def demo_plan_id(live_service) -> str:
    """A fresh copy of the demo household, under an id no other test uses."""
    return demo_plan_copy().id


@pytest.fixture
def sandbox_log(live_service) -> SandboxLog:
    return SandboxLog()
