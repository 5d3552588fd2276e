"""Fixtures for the confirmation tests: a plan of their own, a store of their own, a server.

Their helpers (the plan row, elicitation answers, pinned sessions) are in `tests.helpers.confirmations`.
"""

from __future__ import annotations

import datetime
import uuid

import pytest
from mcp.server.mcpserver import MCPServer

from avenir_mcp.confirmations.codes import ConfirmationStore
from avenir_mcp.sandbox.models import Category, CategoryGroup, MonthCategory, Plan
from avenir_mcp.tokens.auth import Principal
from tests.confirmations.write_server import build_server
from tests.helpers.confirmations import MONTH, START, BudgetRow


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def budget_row() -> BudgetRow:
    month = datetime.date.fromisoformat(MONTH)
    plan = Plan.objects.create(
        id=str(uuid.uuid4()), name="Confirmations", first_month=month, last_month=month
    )
    group = CategoryGroup.objects.create(plan=plan, name="Everyday")
    category = Category.objects.create(plan=plan, group=group, name="Restaurants")
    row = MonthCategory.objects.create(plan=plan, category=category, month=month, budgeted=START)
    return BudgetRow(plan_id=plan.id, category_id=category.id, pk=row.pk)


@pytest.fixture
def store() -> ConfirmationStore:
    return ConfirmationStore()


@pytest.fixture
def alice() -> Principal:
    return Principal.local("alice")


@pytest.fixture
def server(alice: Principal, store: ConfirmationStore) -> MCPServer:
    return build_server(alice, store)
