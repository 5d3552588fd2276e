"""update_category's note (docs/tools.md#update_category): set with its line breaks, removed with "",
previewed on one line, refused when it breaks the text rules; the log keeps it before and after for undo."""

from __future__ import annotations

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.update_category import CHECK
from tests.writes.assigned_plans import BudgetHome
from tests.writes.category_plans import category, change_category
from tests.writes.harness import (
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    before,
    call,
    connected,
    content,
    documented_fingerprint,
    error_text,
    expect_nothing_written,
    paths_for,
    standing,
)

pytestmark = pytest.mark.anyio

NOTE = "Market on Saturdays\nno more than 80 a week"


def note_case(budget: BudgetHome, note: str = NOTE, **arguments) -> WriteCase:
    """Dining Out's note set (none before), its name and group kept unless `arguments` say."""
    dining = budget.home.dining

    def check_log(op: Operation) -> None:
        subject = {
            "category_id": dining,
            "name": "Dining Out",
            "category_group_id": budget.home.everyday_group,
        }
        assert op.subject == subject
        assert op.fingerprint == documented_fingerprint(budget.id, {**subject, "note": NOTE})
        assert op.undo_data["note"] == {"before": None, "after": NOTE}

    async def held_note() -> str | None:
        return (await category(budget.id, dining))["note"]

    return WriteCase(
        tool="update_category",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "category_id": dining, "note": note, **arguments},
        state=held_note,
        expected_after=NOTE,
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/categories/{dining}$",
        check=CHECK,
        restore=lambda: change_category(budget.id, dining, note=None),
        private_values=budget.private,
        check_log=check_log,
    )


FAULTS = paths_for("update_category", FAULT_PATHS)


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, budget, settings, monkeypatch):
    """A note's lost answer is settled from YNAB's state like a rename's (its reversal)."""
    await FAULTS[path](note_case(budget), Env(settings, monkeypatch))


async def _agreed(budget: BudgetHome, note: str, **arguments) -> dict:
    case = note_case(budget, note, **arguments)
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        assert first["status"] == "confirmation_required", first
        applied = content(await call(client, case, confirmation=first["confirmation"]))
    assert applied["status"] == "applied", applied
    return {"preview": first["preview"], **applied}


async def test_a_note_is_set_with_its_line_breaks_and_previewed_on_one_line(budget):
    applied = await _agreed(budget, " Market on Saturdays  \r\nno more than 80 a week ")

    assert applied["preview"] == (
        "Change category ‘Dining Out’ (Everyday) to ‘Dining Out’ (Everyday), "
        "note none → ‘Market on Saturdays no more than 80 a week’?"
    )
    assert (await category(budget.id, budget.home.dining))["note"] == NOTE
    op = await Operation.objects.aget(pk=applied["operation_id"])
    assert op.undo_data["note"] == {"before": None, "after": NOTE}
    assert "note" not in op.subject  # the person's text stays in the preview and the undo data


async def test_a_rename_and_a_note_go_in_one_request_and_an_empty_note_removes_it(budget):
    await change_category(budget.id, budget.home.dining, note="x" * 90)

    applied = await _agreed(budget, "", name="Restaurants")

    assert applied["preview"] == (
        f"Change category ‘Dining Out’ (Everyday) to ‘Restaurants’ (Everyday), note ‘{'x' * 79}…’ → none?"
    )
    held = await category(budget.id, budget.home.dining)
    assert (held["name"], held["note"]) == ("Restaurants", None)


async def test_the_same_note_changes_nothing(budget):
    await change_category(budget.id, budget.home.dining, note=NOTE)
    case = note_case(budget, NOTE + "\n")
    start = await standing(case)

    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert (answer["status"], answer["message"]) == (
        "nothing_to_do",
        "Nothing to change: the category is already ‘Dining Out’ (Everyday), with that note.",
    )
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("note", "refusal"),
    [
        ("n" * 501, "note is 501 characters long: give at most 500."),
        (
            "tab\there",
            "note contains U+0009, a control or invisible character: give text with visible characters and "
            "line breaks only.",
        ),
        (
            "hidden\u202eorder",
            "note contains U+202E (RIGHT-TO-LEFT OVERRIDE), a control or invisible character: give text with "
            "visible characters and line breaks only.",
        ),
        (
            "line\u2028separator",
            "note contains U+2028 (LINE SEPARATOR), a control or invisible character: give text with visible "
            "characters and line breaks only.",
        ),
    ],
)
async def test_a_note_breaking_the_text_rules_is_refused_before_asking(shared_budget, note, refusal):
    case = note_case(shared_budget, note)
    start = await before(case)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(case, start)
