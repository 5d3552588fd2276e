"""Fixtures for the undo tests: writes on, a fresh demo plan, the operation of `budgets`.

The agents, logged operations and the sandbox's side are `tests.helpers.undo` and
`tests.helpers.sandbox_side`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings

from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Plan
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.undo import Budgets, make_budgets  # registers the framework tests' write kind


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _writes_on() -> Iterator[None]:
    """Write tools listed (the root conftest gives each test the whole YNAB budget)."""
    previous = settings.AVENIR_MCP_WRITE, settings.AVENIR_MCP_REQUIRE_ELICITATION
    settings.AVENIR_MCP_WRITE, settings.AVENIR_MCP_REQUIRE_ELICITATION = True, False
    yield
    settings.AVENIR_MCP_WRITE, settings.AVENIR_MCP_REQUIRE_ELICITATION = previous
    faults.clear_faults()


@pytest.fixture
def demo_plan(live_service) -> Plan:
    """A fresh copy of the demo household under an id no other test uses."""
    return demo_plan_copy()


@pytest.fixture
async def budgets(demo_plan: Plan) -> Budgets:
    return await make_budgets(demo_plan)
