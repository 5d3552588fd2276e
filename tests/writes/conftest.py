"""Fixtures every write tool's tests share: the live sandbox, no faults left, and a fresh plan
of each kind the tests write to (`home`: transactions; `budget`: assigned amounts).

The write tools use the process's YNAB client, pointed at the live sandbox by `live_service`.
The path matrix and the helpers are in `tests.writes.harness`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from avenir_mcp.sandbox import faults
from tests.helpers.shared_plans import read_only
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.households import Household, household


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_faults_left(live_service) -> Iterator[None]:
    """A fault a test injected and did not use up never reaches the next test."""
    faults.clear_faults()
    yield
    faults.clear_faults()


@pytest.fixture
def home(live_service) -> Household:
    """A fresh household plan with transactions to categorise, approve and import."""
    return household()


@pytest.fixture
def budget(live_service) -> BudgetHome:
    """A fresh plan with categories assigned this month, to budget and move money in."""
    return budget_home()


@pytest.fixture(scope="module")
def shared_home(live_service) -> Iterator[Household]:
    """`home` shared by a module's tests that must write nothing (refusals); checked unchanged after."""
    shared = household()
    with read_only(shared.home.plan):
        yield shared


@pytest.fixture(scope="module")
def shared_budget(live_service) -> Iterator[BudgetHome]:
    """`budget` shared by a module's tests that must write nothing (refusals); checked unchanged after."""
    shared = budget_home()
    with read_only(shared.home.plan):
        yield shared
