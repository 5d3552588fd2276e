"""The write kinds' registry (`oplog.kinds`): every write tool's kind found by its name, the
undoable ones with their undo; the item rule, and what an Reversal and an UndoRecord accept."""

from __future__ import annotations

import json

import pytest

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.oplog.kinds import WriteKind, kind_of, register, undoable_tools
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord, item_state

NOT_UNDOABLE = {
    "import_transactions",
    "create_category",
    "create_account",
    "create_category_group",
    "split_transaction",
}
"""docs/undo.md: what undo_operation refuses for want of an undo (an undo itself aside)."""


def catalog_write_tools() -> set[str]:
    return {spec.name for spec in catalog_specs() if not spec.is_read_only}


def test_every_write_tool_of_the_catalog_has_its_write_kind_registered_by_its_name():
    writes = catalog_write_tools() - {"undo_operation"}  # an undo is itself never undone nor settled

    assert sorted(tool for tool in writes if kind_of(tool) is None) == []
    assert all(kind_of(tool).name == tool for tool in writes)
    assert kind_of("undo_operation") is None


def test_every_undoable_write_tool_of_the_catalog_has_its_reversal_and_its_undo():
    writes = catalog_write_tools()
    undoable = set(undoable_tools()) & writes

    assert undoable == writes - NOT_UNDOABLE - {"undo_operation"}
    assert {"apply_categories", "approve_transactions", "create_transactions"} <= undoable
    for tool in undoable:
        assert type(kind_of(tool)).undo is not WriteKind.undo, f"{tool} has a reversal it cannot send"
    for tool in NOT_UNDOABLE:
        assert not kind_of(tool).undoable, tool


class RegistryTestKind(WriteKind):
    name = "registry_test_tool"


class RegistryTestUndoable(WriteKind):
    name = "registry_test_undoable"

    def reversal(self, snapshot, op) -> Reversal:
        return Reversal(question="Undo: nothing?")

    async def undo(self, client, snapshot, op, reversal) -> UndoRecord:
        return UndoRecord()


def test_a_registered_kind_is_found_by_its_tools_name_and_is_undoable_when_it_has_a_reversal():
    register(RegistryTestKind())
    register(RegistryTestUndoable())

    assert isinstance(kind_of("registry_test_tool"), RegistryTestKind)
    assert isinstance(kind_of("registry_test_undoable"), RegistryTestUndoable)
    assert not kind_of("registry_test_tool").undoable
    assert "registry_test_undoable" in undoable_tools()
    assert "registry_test_tool" not in undoable_tools()
    assert kind_of("registry_never_declared") is None


@pytest.mark.anyio
async def test_a_kind_without_a_reversal_has_none_and_settles_nothing_itself():
    kind = RegistryTestKind()

    assert kind.reversal(None, None) is None
    assert await kind.settle(None, None, None) is None  # judged from its reversal: none, so unknown
    with pytest.raises(NotImplementedError, match="registry_test_tool has no undo"):
        await kind.undo(None, None, None, Reversal(question="?"))


def test_a_second_kind_for_the_same_tool_is_refused_and_the_same_kind_again_is_not():
    class FirstKind(WriteKind):
        name = "registry_twice"

    class SecondKind(WriteKind):
        name = "registry_twice"

    register(FirstKind())
    register(FirstKind())  # the same declaration again (its module imported twice)

    with pytest.raises(ValueError, match="Tool registry_twice already has a write kind: FirstKind"):
        register(SecondKind())
    assert isinstance(kind_of("registry_twice"), FirstKind)


@pytest.mark.parametrize(
    ("current", "state"),
    [(10, "already_as_before"), (20, "restore"), (30, "conflict"), (None, "conflict")],
)
def test_an_item_is_restored_only_when_still_as_left_and_counted_when_back_as_before(current, state):
    assert item_state(current, before=10, after=20) == state


def test_an_item_the_operation_did_not_change_counts_as_already_as_before():
    assert item_state("red", before="red", after="red") == "already_as_before"


def test_a_reversal_has_one_preview_line_per_restorable_item_or_none():
    assert Reversal(question="Undo: budget X?", restorable=({"id": 1},)).restored == 1
    assert Reversal(
        question="Undo?", conflicts=(Conflict("t1", "Market", "it was deleted"),)
    ).nothing_to_restore
    with pytest.raises(ValueError, match="one preview line per restorable item"):
        Reversal(question="Undo?", restorable=(1, 2), lines=("only one",))
    with pytest.raises(ValueError, match="cannot be negative"):
        Reversal(question="Undo?", already_as_before=-1)


def test_reversal_items_keep_each_item_in_its_place_and_in_order():
    items = ReversalItems()
    items.restore({"id": "t1"}, "2026-09-12, Market, 86.40: Dining out → Groceries")
    items.already_as_before()
    items.conflict(Conflict("t2", "2026-09-13, Bakery, 4.20", "it was deleted"))
    items.restore({"id": "t3"}, "2026-09-14, Cinema, 12.00: Fun → (uncategorised)")
    reversal = items.reversal(f"Undo: recategorise {items.restored} transaction(s)?")
    assert reversal == Reversal(
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
    record = UndoRecord.from_stored(stored)

    assert record.stored() == stored
    assert UndoRecord.from_stored(json.loads(json.dumps(record.stored()))) == record


def test_an_undo_row_in_the_stored_form_of_before_the_record_reads_as_its_fields():
    record = UndoRecord.from_stored({"undo_of": "k3P9aQ2mXz7B", "restoring": 2})

    assert (record.undo_of, record.restoring, record.restored, record.deleted_ids) == (
        "k3P9aQ2mXz7B",
        2,
        None,
        None,
    )
    assert UndoRecord.from_stored(None) == UndoRecord()


def test_an_undo_row_holding_a_field_the_record_does_not_know_is_refused():
    with pytest.raises(ValueError, match="extra"):
        UndoRecord.from_stored({"restored": [], "ids": ["t1"]})
