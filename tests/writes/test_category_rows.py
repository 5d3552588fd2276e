"""The rows of set_category_budget, move_money, set_category_target, update_category and
create_category: rows written before their values were typed read back, and are stored, as before.

The JSON here is what those tools logged (docs/confirmation.md#subjects-and-the-fingerprint for
the subjects, docs/undo.md for the undo data): a row in the log must stay readable by undo and
settling, and the subjects' fingerprints must not move.
"""

from __future__ import annotations

from datetime import date

import pytest

from avenir_mcp.tools.logic.assigned import Logged
from avenir_mcp.tools.logic.targets import NO_TARGET, Target
from avenir_mcp.tools.writes.assigned_pair import AssignedUndo
from avenir_mcp.tools.writes.create_category import CategoryCreation, CategoryCreationSubject
from avenir_mcp.tools.writes.move_money import MoveSubject
from avenir_mcp.tools.writes.set_category_budget import BudgetSubject
from avenir_mcp.tools.writes.set_category_target import TargetChange, TargetSubject
from avenir_mcp.tools.writes.update_category import CategoryPlace, CategoryUpdate, CategoryUpdateSubject

SEPT = date(2026, 9, 1)
BUDGETED = {
    "month": "2026-09-01",
    "categories": [{"category_id": "c-rest", "before": 120_000, "after": 150_000}],
}
MOVED = {
    "month": "2026-09-01",
    "categories": [
        {"category_id": "c-tennis", "before": 80_000, "after": 50_000},
        {"category_id": "c-rest", "before": 120_000, "after": 150_000},
    ],
}
HALF_MOVED = MOVED | {"outcome": "half_done", "landed": ["c-tennis"], "unsure": []}
UNDO_PAIR_FAILED = {"month": "2026-09-01", "outcome": "unknown", "landed": [], "unsure": ["c-rest"]}


@pytest.mark.parametrize("row", [BUDGETED, MOVED, HALF_MOVED, UNDO_PAIR_FAILED])
def test_assigned_amounts_read_back_and_are_stored_as_they_were(row):
    assert AssignedUndo.from_stored(row).stored() == row


def test_assigned_amounts_read_back_typed():
    budgeted = AssignedUndo(month=SEPT, categories=(Logged("c-rest", 120_000, 150_000),))
    assert AssignedUndo.from_stored(BUDGETED) == budgeted

    logged = AssignedUndo.from_stored(HALF_MOVED)

    assert logged.month == SEPT
    assert logged.categories == (Logged("c-tennis", 80_000, 50_000), Logged("c-rest", 120_000, 150_000))
    assert (logged.outcome, logged.landed, logged.unsure) == ("half_done", ("c-tennis",), ())


TARGET_ROW = {
    "category_id": "c-holidays",
    "before": {
        "kind": "none",
        "amount": None,
        "by_date": None,
        "whole": None,
        "ynab_name": None,
        "snoozed": False,
    },
    "after": {
        "kind": "by_date",
        "amount": 1_200_000,
        "by_date": "2027-06-01",
        "whole": True,
        "ynab_name": None,
        "snoozed": False,
    },
    "restore": {"goal_target": None},
}


@pytest.mark.parametrize("restore", [{"goal_target": None}, None])
def test_a_target_change_reads_back_and_is_stored_as_it_was(restore):
    row = TARGET_ROW | {"restore": restore}

    logged = TargetChange.from_stored(row)

    assert (logged.before, logged.after) == (NO_TARGET, Target("by_date", 1_200_000, date(2027, 6, 1), True))
    assert logged.restore == restore
    assert logged.stored() == row


def test_a_category_update_reads_back_and_is_stored_as_it_was():
    row = {
        "category_id": "c-tennis",
        "before": {"name": "Tennis", "group_id": "g-leisure", "group": "Leisure"},
        "after": {"name": "Sport", "group_id": "g-leisure", "group": "Leisure"},
    }

    logged = CategoryUpdate.from_stored(row)

    assert logged.before == CategoryPlace(name="Tennis", group_id="g-leisure", group="Leisure")
    assert logged.stored() == row


@pytest.mark.parametrize("category_id", [None, "c-pets"])
def test_a_category_creation_reads_back_and_is_stored_as_it_was(category_id):
    row = {"category_id": category_id, "group_id": "g-everyday"}

    assert CategoryCreation.from_stored(row).stored() == row


@pytest.mark.parametrize(
    ("subject", "row"),
    [
        (
            BudgetSubject(category_id="c-rest", month=SEPT, amount=150_000),
            {"category_id": "c-rest", "month": "2026-09-01", "amount": 150_000},
        ),
        (
            MoveSubject(month=SEPT, from_category_id="c-tennis", to_category_id="c-rest", amount=30_000),
            {
                "month": "2026-09-01",
                "from_category_id": "c-tennis",
                "to_category_id": "c-rest",
                "amount": 30_000,
            },
        ),
        (
            TargetSubject(
                category_id="c-holidays", fields={"goal_target": 1_200_000, "goal_frequency": "yearly"}
            ),
            {"category_id": "c-holidays", "fields": {"goal_target": 1_200_000, "goal_frequency": "yearly"}},
        ),
        (
            CategoryUpdateSubject(category_id="c-tennis", name="Sport", category_group_id="g-leisure"),
            {"category_id": "c-tennis", "name": "Sport", "category_group_id": "g-leisure"},
        ),
        (
            CategoryCreationSubject(category_group_id="g-everyday", name="Pets"),
            {"category_group_id": "g-everyday", "name": "Pets"},
        ),
    ],
    ids=["set_category_budget", "move_money", "set_category_target", "update_category", "create_category"],
)
def test_each_subject_is_fingerprinted_and_stored_as_the_documented_dict(subject, row):
    assert subject.fingerprinted() == row
    assert subject.stored() == row
    assert type(subject).from_stored(row) == subject
