"""apply_categories through the SDK's real client: every confirmation path, refusals, faults, undo data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from avenir_mcp.tools.writes.apply_categories import (
    CategoryAssigned,
    LoggedRecategorisation,
    RecategorisationSubject,
    RecategorisationUndo,
)
from tests.helpers.write_cases.apply_categories import recategorising
from tests.writes.harness import (
    CONFIRMED_PATHS,
    FAULT_PATHS,
    Env,
    WriteCase,
    case_shared_by_module,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

PATHS = paths_for("apply_categories", CONFIRMED_PATHS)
FAULTS = paths_for("apply_categories", FAULT_PATHS)


@pytest.fixture
def case(home: Household) -> WriteCase:
    return recategorising(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: recategorising(household())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


def test_the_log_keeps_each_category_before_and_after_as_rows_already_hold_them():
    old_row = {
        "transactions": [
            {"id": "t-market", "before": None, "after": "groceries"},
            {"id": "t-dining", "before": "groceries", "after": "dining"},
        ]
    }

    logged = RecategorisationUndo.from_stored(old_row)
    assert logged.transactions[0] == LoggedRecategorisation(id="t-market", before=None, after="groceries")
    assert logged.stored() == old_row
    subject = RecategorisationSubject(
        changes=(CategoryAssigned(transaction_id="t-market", category_id="groceries"),)
    )
    expected = {"changes": [{"transaction_id": "t-market", "category_id": "groceries"}]}
    assert subject.fingerprinted() == subject.stored() == expected
