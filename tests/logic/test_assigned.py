"""tools.logic.assigned: budgeting and moving assigned money, and undoing it (pure)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.assigned import (
    AssignedWords,
    Logged,
    assignments_now,
    budget_setting,
    money_move,
    move_refusal,
    standing_together,
)
from avenir_mcp.values.refusal import Refusal
from tests.logic.month_plans import category, figures, group, month, plan
from tests.logic.plan_rows import currency

SEPT = date(2026, 9, 1)
EVERYDAY, INTERNAL, CARDS = (
    group("g1", "Everyday"),
    group("g0", "Internal Master Category", internal=True),
    group("g2", "Credit Card Payments"),
)
TENNIS = category("c-tennis", "Tennis", "g1")
RESTAURANTS = category("c-rest", "Restaurants", "g1")
HIDDEN = category("c-hidden", "Old hobby", "g1", hidden=True)
VISA = category("c-visa", "Visa", "g2")
READY = category("c-rta", "Inflow: Ready to Assign", "g0", internal=True)
UNCATEGORIZED = category("c-unc", "Uncategorized", "g0", internal=True)


def household(**september: tuple[int, int]):
    """September figures per category id: (assigned, available); the rest zero."""
    categories = [TENNIS, RESTAURANTS, HIDDEN, VISA, READY, UNCATEGORIZED]
    rows = [
        figures(c, assigned=september.get(c.id, (0, 0))[0], available=september.get(c.id, (0, 0))[1])
        for c in categories
        if c.id in september
    ]
    return plan([EVERYDAY, INTERNAL, CARDS], categories, {SEPT: (month(SEPT), rows)})


def test_a_budget_setting_goes_from_the_months_assigned_amount_to_the_new_one():
    snapshot = household(**{"c-rest": (120_000, 40_000)})

    setting = budget_setting(snapshot, SEPT, "c-rest", 150_000)

    assert (setting.before, setting.after, setting.available_before, setting.available_after) == (
        120_000,
        150_000,
        40_000,
        70_000,
    )
    assert not setting.unchanged
    assert setting.logged() == Logged("c-rest", 120_000, 150_000)


def test_the_same_amount_is_unchanged_and_a_month_without_figures_counts_as_zero():
    snapshot = household(**{"c-rest": (120_000, 40_000)})

    assert budget_setting(snapshot, SEPT, "c-rest", 120_000).unchanged
    assert budget_setting(snapshot, SEPT, "c-tennis", 0).unchanged
    assert budget_setting(snapshot, date(2026, 10, 1), "c-rest", 5_000).before == 0


@pytest.mark.parametrize("category_id", ["c-hidden", "c-visa"])
def test_hidden_and_card_payment_categories_can_be_budgeted(category_id):
    assert budget_setting(household(), SEPT, category_id, 10_000).after == 10_000


def test_an_unknown_category_is_refused_with_where_ids_come_from():
    with pytest.raises(Refusal, match=r"^No category 'c-gone' in this plan; get_category_balances gives"):
        budget_setting(household(), SEPT, "c-gone", 10_000)


def test_ready_to_assign_is_refused_with_what_to_do_instead():
    with pytest.raises(
        Refusal, match=r"is Ready to Assign.*raise that category's amount with set_category_budget"
    ):
        budget_setting(household(), SEPT, "c-rta", 10_000)


def test_other_internal_categories_are_refused():
    with pytest.raises(Refusal, match="'Uncategorized' is one of YNAB's internal categories"):
        money_move(household(), SEPT, "c-tennis", "c-unc", 10_000)


@pytest.mark.parametrize(
    ("source", "destination", "amount", "reason"),
    [
        ("c-tennis", "c-tennis", 10_000, "the same category"),
        ("c-tennis", "c-rest", 0, "above zero"),
        ("c-tennis", "c-rest", -10_000, "above zero"),
    ],
)
def test_a_move_is_refused_from_its_arguments_alone(source, destination, amount, reason):
    assert reason in str(move_refusal(source, destination, amount))
    with pytest.raises(Refusal, match=reason):
        money_move(household(), SEPT, source, destination, amount)


def test_a_move_takes_from_the_source_and_gives_to_the_destination_even_into_overspending():
    snapshot = household(**{"c-tennis": (80_000, 32_000), "c-rest": (120_000, 40_000)})

    move = money_move(snapshot, SEPT, "c-tennis", "c-rest", 50_000)

    assert (move.source.before, move.source.after, move.source.available_after) == (80_000, 30_000, -18_000)
    assert (move.destination.before, move.destination.after, move.destination.available_after) == (
        120_000,
        170_000,
        90_000,
    )


@given(
    st.integers(-(10**12), 10**12),
    st.integers(-(10**12), 10**12),
    st.integers(-(10**12), 10**12),
    st.integers(1, 10**12),
)
def test_a_move_never_changes_the_total_assigned(tennis, restaurants, available, amount):
    snapshot = household(**{"c-tennis": (tennis, available), "c-rest": (restaurants, available)})

    move = money_move(snapshot, SEPT, "c-tennis", "c-rest", amount)

    assert move.source.after + move.destination.after == tennis + restaurants
    assert move.source.before - move.source.after == amount
    assert move.source.available_after - move.source.available_before == -amount


# --- undo -------------------------------------------------------------------------------------------


def logged_move() -> tuple[Logged, Logged]:
    return Logged("c-tennis", 80_000, 50_000), Logged("c-rest", 120_000, 150_000)


def states(snapshot, items) -> list[str]:
    return [item.state for item in standing_together(assignments_now(snapshot, SEPT, items))]


@pytest.mark.parametrize(
    ("tennis", "restaurants", "expected"),
    [
        (50_000, 150_000, ["restore", "restore"]),
        (80_000, 120_000, ["already_as_before", "already_as_before"]),
        (50_000, 120_000, ["restore", "already_as_before"]),  # the second write never landed
        (50_000, 160_000, ["conflict", "conflict"]),  # one changed since: both left alone
        (70_000, 120_000, ["conflict", "conflict"]),
    ],
)
def test_a_move_is_undone_as_a_pair(tennis, restaurants, expected):
    snapshot = household(**{"c-tennis": (tennis, 0), "c-rest": (restaurants, 0)})

    assert states(snapshot, logged_move()) == expected


def test_a_deleted_category_is_a_conflict_and_takes_its_partner_with_it():
    snapshot = plan([EVERYDAY], [TENNIS], {SEPT: (month(SEPT), [figures(TENNIS, assigned=50_000)])})

    now = standing_together(assignments_now(snapshot, SEPT, logged_move()))

    assert [item.state for item in now] == ["conflict", "conflict"]
    assert (now[1].category, now[1].assigned) == (None, None)


# --- words ------------------------------------------------------------------------------------------


def test_amounts_use_the_plans_digits_and_separator_without_symbol_or_grouping():
    euros = AssignedWords(currency(2, ","))  # with a group separator, never shown
    yen = AssignedWords(currency(0, "."))

    assert euros.budget_question("Restaurants", SEPT, 120_000, 1_500_000) == (
        "Budget Restaurants for 2026-09-01: 120,00 → 1500,00?"
    )
    assert yen.move_question(30_000, "Tennis", "Restaurants", SEPT) == (
        "Move 30 from Tennis to Restaurants for 2026-09-01?"
    )
    assert euros.assigned_line("Tennis", 80_000, -12_500, 32_000, -60_500) == (
        "Tennis: assigned 80,00 → -12,50; available 32,00 → -60,50"
    )


def test_undo_questions_reverse_the_original():
    words = AssignedWords(None)

    assert words.budget_question("Restaurants", SEPT, 150_000, 120_000, undo=True) == (
        "Undo: budget Restaurants for 2026-09-01: 150.00 → 120.00?"
    )
    assert words.move_question(30_000, "Restaurants", "Tennis", SEPT, undo=True) == (
        "Undo: move 30.00 from Restaurants to Tennis for 2026-09-01?"
    )


def test_names_from_ynab_are_one_line_and_cut():
    shown = AssignedWords.name(category("c-x", "Fun\u202e\nmoney " + "x" * 100, "g1"))

    assert shown.startswith("Fun money xxx")
    assert "\u202e" not in shown
    assert len(shown) == 80
    assert shown.endswith("…")


def test_the_overspending_note_appears_only_when_the_source_ends_below_zero():
    snapshot = household(**{"c-tennis": (80_000, 32_000), "c-rest": (120_000, 40_000)})
    words = AssignedWords(None)

    assert words.overspent_note(money_move(snapshot, SEPT, "c-tennis", "c-rest", 32_000).source) is None
    assert words.overspent_note(money_move(snapshot, SEPT, "c-tennis", "c-rest", 32_001).source) == (
        "This leaves Tennis overspent by 0.001 for 2026-09-01."
    )


def test_the_overspending_note_names_every_category_left_below_zero_source_first():
    snapshot = household(**{"c-tennis": (80_000, 32_000), "c-rest": (120_000, -50_000)})
    move = money_move(snapshot, SEPT, "c-tennis", "c-rest", 40_000)
    words = AssignedWords(None)

    assert words.overspent_note(move.source, move.destination) == (
        "This leaves 2 categories overspent: Tennis by 8.00 for 2026-09-01; "
        "Restaurants by 10.00 for 2026-09-01."
    )
    assert (
        words.overspent_note(move.destination) == "This leaves Restaurants overspent by 10.00 for 2026-09-01."
    )


def test_a_category_whose_name_shows_as_nothing_is_named_by_its_id():
    invisible = category("c-blank", "\u200b\u2060", "g1")

    assert AssignedWords.name(invisible) == "category c-blank"
    assert AssignedWords.name(None, "c-gone") == "category c-gone"
