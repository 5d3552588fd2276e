"""What the log says about an operation: summaries and the sentences of write results."""

from __future__ import annotations

from avenir_mcp.oplog import log
from avenir_mcp.oplog.models import Operation


def _op(**fields: object) -> Operation:
    defaults: dict[str, object] = {
        "id": "k3P9xQ2mTa7Z",
        "plan_id": "plan-1",
        "tool": "set_category_budget",
        "preview": "",
        "undoable": True,
    }
    return Operation(**{**defaults, **fields})


def test_the_summary_is_the_previews_question():
    op = _op(
        preview="Recategorise 2 transaction(s)?\n- 2026-09-12, Market, 86.40: (uncategorised) → Groceries"
    )

    assert log.summary(op) == "Recategorise 2 transaction(s)?"


def test_without_a_preview_the_summary_describes_the_tool_or_the_undo():
    assert log.summary(_op(tool="approve_transactions")) == "Approve transactions"
    assert log.summary(_op(tool="undo_operation", undo_of_id="a1B2c3D4e5F6")) == (
        "Undo of operation a1B2c3D4e5F6"
    )


def test_a_long_question_is_cut_to_one_short_line():
    op = _op(preview="  Rename payee ‘" + "X " * 150 + "’?\n- detail")

    text = log.summary(op)

    assert len(text) == log.SUMMARY_LENGTH
    assert text.startswith("Rename payee ‘X X")
    assert text.endswith("…")
    assert "\n" not in text
    assert "  " not in text


def test_an_applied_undoable_write_names_its_operation_and_how_to_undo_it():
    assert log.applied_message(_op()) == (
        "Done as operation k3P9xQ2mTa7Z; undo_operation with that id reverses it."
    )


def test_a_write_that_cannot_be_undone_says_so_and_why():
    message = log.applied_message(_op(tool="create_category", undoable=False))
    unknown_tool = log.applied_message(_op(tool="something_new", undoable=False))

    assert message == (
        "Done as operation k3P9xQ2mTa7Z; it cannot be undone: YNAB's API cannot delete a category; "
        "hiding it in YNAB is the only way back."
    )
    assert (
        unknown_tool
        == "Done as operation k3P9xQ2mTa7Z; it cannot be undone: this kind of change has no undo."
    )


def test_an_undo_says_what_it_undid_and_that_it_cannot_itself_be_undone():
    undo = _op(id="Undo00000001", tool="undo_operation", undoable=False, undo_of_id="k3P9xQ2mTa7Z")

    assert log.applied_message(undo) == (
        "Done as operation Undo00000001, undoing k3P9xQ2mTa7Z; an undo cannot itself be undone."
    )


def test_a_write_without_an_answer_says_it_may_or_may_not_be_in_ynab_and_is_not_resent():
    message = log.unknown_message(_op(), "Check with get_category_balances.")

    assert message == (
        "No answer came back from YNAB for operation k3P9xQ2mTa7Z: the change may or may not be in "
        "YNAB, and it is not sent again. Check with get_category_balances."
    )


def test_only_an_undoable_operation_still_in_effect_and_not_an_undo_can_be_undone():
    assert _op(status="applied").can_be_undone
    assert _op(status="unknown").can_be_undone
    assert not _op(status="pending").can_be_undone
    assert not _op(status="failed").can_be_undone
    assert not _op(status="undone", undone_by_id="x").can_be_undone
    assert not _op(status="applied", undoable=False).can_be_undone
    assert not _op(status="applied", undoable=True, undo_of_id="y").can_be_undone
