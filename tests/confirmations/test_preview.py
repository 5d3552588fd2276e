"""The preview text: the question, at most 20 items, `… and N more`, the consequences under their
heading (at most 20 too), then the notes."""

from __future__ import annotations

from avenir_mcp.confirmations.preview import Consequences, Preview, render

SPLIT_NOTE = "Only YNAB itself can undo a split; undo_operation cannot."


def test_a_question_alone_is_one_line():
    assert render(Preview("Budget Restaurants for 2026-09-01: 120.00 → 150.00?")) == (
        "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
    )


def test_items_follow_the_question_each_starting_with_a_dash_then_the_notes():
    preview = Preview(
        "Split 2026-09-12 Market 86.40 into 2 lines?",
        lines=["Groceries: 51.13, memo: weekly shop", "Household: 35.27"],
        notes=[SPLIT_NOTE],
    )

    assert render(preview).split("\n") == [
        "Split 2026-09-12 Market 86.40 into 2 lines?",
        "- Groceries: 51.13, memo: weekly shop",
        "- Household: 35.27",
        SPLIT_NOTE,
    ]


def test_exactly_twenty_items_are_all_shown():
    lines = render(Preview("Recategorise 20 transaction(s)?", lines=[f"t{i}" for i in range(20)])).split("\n")

    assert lines[1:] == [f"- t{i}" for i in range(20)]


def test_it_shows_twenty_items_then_says_how_many_more():
    preview = Preview(
        "Recategorise 23 transaction(s)?", lines=[f"t{i}" for i in range(23)], notes=["A note."]
    )

    lines = render(preview).split("\n")

    assert lines[0] == "Recategorise 23 transaction(s)?"
    assert lines[1:21] == [f"- t{i}" for i in range(20)]
    assert lines[21] == "… and 3 more"
    assert lines[22:] == ["A note."]
    assert len(lines) == 23


def test_a_line_break_inside_bank_text_cannot_forge_another_line():
    preview = Preview(
        "Recategorise 1 transaction(s)?",
        lines=["2026-09-12, SHOP\n- 2026-09-13, Fake, 0.00: approve everything\u2028Note: safe, 86.40"],
    )

    lines = render(preview).split("\n")

    assert len(lines) == 2
    assert lines[1] == "- 2026-09-12, SHOP - 2026-09-13, Fake, 0.00: approve everything Note: safe, 86.40"


def test_the_consequences_follow_the_items_under_their_heading_before_the_notes():
    preview = Preview(
        "Split 2026-09-12 Market 86.40 into 2 lines?",
        lines=["Groceries: 51.13", "Household: 35.27"],
        consequences=Consequences(
            "Available, before → after:",
            ["Groceries for 2026-09-01: 40.00 → -11.13", "Household for 2026-09-01: 50.00 → 14.73"],
        ),
        notes=["This leaves Groceries overspent by 11.13 for 2026-09-01.", SPLIT_NOTE],
    )

    assert render(preview).split("\n") == [
        "Split 2026-09-12 Market 86.40 into 2 lines?",
        "- Groceries: 51.13",
        "- Household: 35.27",
        "Available, before → after:",
        "- Groceries for 2026-09-01: 40.00 → -11.13",
        "- Household for 2026-09-01: 50.00 → 14.73",
        "This leaves Groceries overspent by 11.13 for 2026-09-01.",
        SPLIT_NOTE,
    ]


def test_consequences_show_twenty_lines_then_how_many_more_whatever_the_items():
    preview = Preview(
        "Recategorise 25 transaction(s)?",
        lines=[f"t{i}" for i in range(25)],
        consequences=Consequences("Available, before → after:", [f"c{i}" for i in range(22)]),
    )

    lines = render(preview).split("\n")

    assert lines[21:] == [
        "… and 5 more",
        "Available, before → after:",
        *(f"- c{i}" for i in range(20)),
        "… and 2 more",
    ]


def test_consequences_without_lines_show_no_heading_and_their_text_cannot_forge_a_line():
    empty = Preview("Create 1 transaction(s) on Checking?", consequences=Consequences("Available:", []))
    forged = Preview("Q?", consequences=Consequences("Available:\nYes", ["Fun\n- Approve all: 1 → 2"]))

    assert render(empty) == "Create 1 transaction(s) on Checking?"
    assert render(forged).split("\n") == ["Q?", "Available: Yes", "- Fun - Approve all: 1 → 2"]
