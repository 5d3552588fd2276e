"""The undo handler registry: one handler per tool, the item rule, and what an UndoPlan accepts."""

from __future__ import annotations

import json

import pytest

from oplog.undo import (
    Conflict,
    UndoItems,
    UndoPlan,
    UndoRecord,
    handler_for,
    item_state,
    undo_handler,
    undoable_tools,
)


class _Handler:
    def plan(self, snapshot, op) -> UndoPlan:
        return UndoPlan(question="Undo: nothing?")

    async def apply(self, client, snapshot, op, plan) -> dict:
        return {}


def test_every_undoable_write_tool_of_the_catalog_has_its_handler_registered():
    tools = set(undoable_tools())

    assert {"apply_categories", "approve_transactions"} <= tools
    assert handler_for("import_transactions") is None
    assert handler_for("undo_operation") is None


def test_a_registered_handler_is_found_by_its_tools_name():
    @undo_handler("registry_test_tool")
    class RegistryTestUndo(_Handler):
        pass

    assert isinstance(handler_for("registry_test_tool"), RegistryTestUndo)


def test_a_second_handler_for_the_same_tool_is_refused():
    @undo_handler("registry_twice")
    class FirstUndo(_Handler):
        pass

    with pytest.raises(ValueError, match="already has an undo handler"):

        @undo_handler("registry_twice")
        class SecondUndo(_Handler):
            pass


def test_a_class_without_plan_and_apply_is_refused():
    with pytest.raises(TypeError, match="needs plan"):

        @undo_handler("registry_incomplete")
        class Incomplete:
            def plan(self, snapshot, op) -> UndoPlan:
                return UndoPlan(question="?")


@pytest.mark.parametrize(
    ("current", "state"),
    [(10, "already_as_before"), (20, "restore"), (30, "conflict"), (None, "conflict")],
)
def test_an_item_is_restored_only_when_still_as_left_and_counted_when_back_as_before(current, state):
    assert item_state(current, before=10, after=20) == state


def test_an_item_the_operation_did_not_change_counts_as_already_as_before():
    assert item_state("red", before="red", after="red") == "already_as_before"


def test_an_undo_plan_has_one_preview_line_per_restorable_item_or_none():
    assert UndoPlan(question="Undo: budget X?", restorable=({"id": 1},)).restored == 1
    assert UndoPlan(
        question="Undo?", conflicts=(Conflict("t1", "Market", "it was deleted"),)
    ).nothing_to_restore
    with pytest.raises(ValueError, match="one preview line per restorable item"):
        UndoPlan(question="Undo?", restorable=(1, 2), lines=("only one",))
    with pytest.raises(ValueError, match="cannot be negative"):
        UndoPlan(question="Undo?", already_as_before=-1)


def test_undo_items_keep_each_item_in_its_place_and_in_order():
    items = UndoItems()
    items.restore({"id": "t1"}, "2026-09-12, Market, 86.40: Dining out → Groceries")
    items.already_as_before()
    items.conflict(Conflict("t2", "2026-09-13, Bakery, 4.20", "it was deleted"))
    items.restore({"id": "t3"}, "2026-09-14, Cinema, 12.00: Fun → (uncategorised)")
    plan = items.plan(f"Undo: recategorise {items.restored} transaction(s)?")
    assert plan == UndoPlan(
        question="Undo: recategorise 2 transaction(s)?",
        restorable=({"id": "t1"}, {"id": "t3"}),
        lines=(
            "2026-09-12, Market, 86.40: Dining out → Groceries",
            "2026-09-14, Cinema, 12.00: Fun → (uncategorised)",
        ),
        already_as_before=1,
        conflicts=(Conflict("t2", "2026-09-13, Bakery, 4.20", "it was deleted"),),
    )


@pytest.mark.parametrize(
    "stored",
    [
        {"undo_of": "k3P9aQ2mXz7B", "restoring": 2},  # begun; kept when the answer is lost
        {"month": "2026-09-01", "restored": [{"category_id": "c1", "assigned": 120000}]},
        {"restored": [{"transaction_id": "t1", "category_id": None}]},
        {"cleared_ids": ["t1", "t2"], "deleted_ids": ["adj"]},
        {"cleared_ids": ["t1"]},  # cleared, then deleting the adjustment failed
        {"unapproved_ids": ["t1"]},
        {"deleted_ids": []},
        {},
    ],
)
def test_an_undo_rows_stored_json_reads_back_and_is_stored_again_unchanged(stored):
    record = UndoRecord.from_json(stored)

    assert record.to_json() == stored
    assert UndoRecord.from_json(json.loads(json.dumps(record.to_json()))) == record


def test_an_undo_row_in_the_stored_form_of_before_the_record_reads_as_its_fields():
    record = UndoRecord.from_json({"undo_of": "k3P9aQ2mXz7B", "restoring": 2})

    assert (record.undo_of, record.restoring, record.restored, record.deleted_ids) == (
        "k3P9aQ2mXz7B",
        2,
        None,
        None,
    )
    assert UndoRecord.from_json(None) == UndoRecord()
