"""Fixtures for the read tools' tests: the demo plan (a module's shared one, or a test's own),
and what reached the sandbox (the stand-in for YNAB) while a test ran. The agent connected in
memory is `tests.helpers.reads`.

The tools use the process's YNAB client, pointed at the live sandbox by `live_service`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Plan
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.shared_plans import read_only
from tests.reads.month_truth import SandboxPlan


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def demo_plan(live_service) -> Iterator[Plan]:
    """The demo household, seeded once for a module whose tests only read it (checked after)."""
    with read_only(demo_plan_copy()) as plan:
        yield plan


@pytest.fixture
def own_demo_plan(live_service) -> Plan:
    """A fresh copy of the demo household for one test, which may change it."""
    return demo_plan_copy()


@pytest.fixture
def sandbox(demo_plan: Plan, sandbox_url: str) -> SandboxPlan:
    """The demo plan as the sandbox's own API serves it: the truth a month tool is checked against."""
    return SandboxPlan(sandbox_url, demo_plan.id)


@pytest.fixture
async def ynab_requests(live_service) -> Callable[[], Awaitable[list]]:
    """`await ynab_requests()`: what reached the sandbox since the test began, oldest first."""
    mark = await sync_to_async(faults.last_request_id)()

    async def served() -> list:
        return await sync_to_async(faults.requests_since)(mark)

    return served


@pytest.fixture
def own_sandbox(own_demo_plan: Plan, sandbox_url: str) -> SandboxPlan:
    """`sandbox` for a test that changes the plan: its own demo plan, as the sandbox serves it."""
    return SandboxPlan(sandbox_url, own_demo_plan.id)
