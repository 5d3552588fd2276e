"""apply_categories through the SDK's real client: every confirmation path, refusals, faults, undo data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.write_cases.apply_categories import recategorising
from tests.writes.harness import (
    CONFIRMED_PATHS,
    FAULT_PATHS,
    Env,
    WriteCase,
    case_shared_by_module,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(home: Household) -> WriteCase:
    return recategorising(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: recategorising(household())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(CONFIRMED_PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await CONFIRMED_PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(CONFIRMED_PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await CONFIRMED_PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULT_PATHS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULT_PATHS[path](case, Env(settings, monkeypatch))
