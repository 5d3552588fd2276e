"""apply_categories through the SDK's real client: every confirmation path, refusals, faults, undo data."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from oplog.models import Operation
from tests.writes.checks import ynab
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
from tools.writes.apply_categories import (
    CHECK,
    CategoryAssigned,
    LoggedRecategorisation,
    RecategorisationSubject,
    RecategorisationUndo,
)

pytestmark = pytest.mark.anyio


async def categories(home: Household, *transaction_ids: str) -> dict[str, str | None]:
    """What YNAB holds: each transaction's category id."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    held = {t["id"]: t["category_id"] for t in data["transactions"]}
    return {transaction_id: held.get(transaction_id) for transaction_id in transaction_ids}


async def set_category(home: Household, transaction_id: str, category_id: str | None) -> None:
    body = {"transactions": [{"id": transaction_id, "category_id": category_id}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)


@pytest.fixture
def case(home: Household) -> WriteCase:
    return recategorising(home)


def recategorising(home: Household) -> WriteCase:
    """Market and Salary get a category, the cafe moves from Dining Out to Groceries."""
    h = home.home
    wanted = {home.market: h.groceries, home.salary: h.ready_to_assign, home.cafe: h.groceries}
    before = {home.market: None, home.salary: None, home.cafe: h.dining}

    async def restore() -> None:
        for transaction_id, category_id in before.items():
            await set_category(home, transaction_id, category_id)

    def check_log(op: Operation) -> None:
        changes = [{"transaction_id": t, "category_id": c} for t, c in wanted.items()]
        # Sorted by content, not by str(): a JSON column may give the keys back in another order.
        assert sorted(op.subject["changes"], key=_canonical) == sorted(changes, key=_canonical)
        logged = [{"id": t, "before": before[t], "after": c} for t, c in wanted.items()]
        assert sorted(op.undo_data["transactions"], key=_canonical) == sorted(logged, key=_canonical)

    return WriteCase(
        tool="apply_categories",
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "assignments": [{"transaction_id": t, "category_id": c} for t, c in wanted.items()],
        },
        state=lambda: categories(home, *wanted),
        expected_after=wanted,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        change_plan=lambda: set_category(home, home.cafe, h.groceries),
        restore=restore,
        private_values=home.private,
        check_log=check_log,
    )


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: recategorising(household())) as case:
        yield case


@pytest.mark.parametrize("path", paths_that_write(CONFIRMED_PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await CONFIRMED_PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.parametrize("path", paths_that_write_nothing(CONFIRMED_PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await CONFIRMED_PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.parametrize("path", FAULT_PATHS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULT_PATHS[path](case, Env(settings, monkeypatch))


def _canonical(item: dict) -> str:
    return json.dumps(item, sort_keys=True)


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
