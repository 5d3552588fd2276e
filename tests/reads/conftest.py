"""Fixtures for the read tools' tests: a fresh demo plan, and what reached the sandbox (the
stand-in for YNAB) while a test ran. The agent connected in memory is `tests.helpers.reads`.

The tools use the process's YNAB client, pointed at the live sandbox by `live_service`.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

import pytest
from asgiref.sync import sync_to_async

from sandbox import faults
from sandbox.models import Plan
from sandbox.seeding import seed_demo_plan
from tests.reads.month_truth import SandboxPlan


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def demo_plan(live_service) -> Plan:
    """A fresh copy of the demo household under an id no other test uses."""
    return seed_demo_plan(plan_id=str(uuid.uuid4()))


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
