"""A month's figures per category and in total, straight from YNAB's month data."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.budget import (
    CategoryMonth,
    budget_categories,
    month_spending,
    month_totals,
    overspent_categories,
    utilisation_pct,
    utilisation_tenths,
)
from tests.logic.month_plans import category, figures, group, month, plan

SEPT, OCT = date(2026, 9, 1), date(2026, 10, 1)

INTERNAL = group("g0", "Internal Master Category", internal=True)
CARDS = group("g1", "Credit Card Payments")
BILLS = group("g2", "bills")
FUN = group("g3", "Fun")
ARCHIVE = group("g4", "Archive", hidden=True)

READY = category("c-rta", "Inflow: Ready to Assign", "g0", internal=True)
VISA = category("c-visa", "Visa", "g1")
RENT = category("c-rent", "Rent", "g2")
ELECTRICITY = category("c-elec", "electricity", "g2")
OLD_GYM = category("c-gym", "Old Gym", "g3", hidden=True)
BOOKS = category("c-books", "Books", "g3")
ATTIC = category("c-attic", "Attic", "g4")
EVERYTHING = [READY, VISA, RENT, ELECTRICITY, OLD_GYM, BOOKS, ATTIC]


def household(september: list, october: list | None = None, **totals):
    months = {SEPT: (month(SEPT, **totals), september)}
    if october is not None:
        months[OCT] = (month(OCT), october)
    return plan([INTERNAL, CARDS, BILLS, FUN, ARCHIVE], EVERYTHING, months)


def test_it_shows_the_budget_view_in_group_then_name_order_leaving_out_hidden_and_internal_ones():
    every_one_with_money = [figures(c, assigned=1_000, available=1_000) for c in EVERYTHING]
    snapshot = household(every_one_with_money)

    rows = budget_categories(snapshot, SEPT, include_empty=False)

    # "bills" sorts before "Credit Card Payments" case-folded; the credit card payment stays.
    assert [row.category_id for row in rows] == ["c-elec", "c-rent", "c-visa", "c-books"]
    assert [row.group for row in rows] == ["bills", "bills", "Credit Card Payments", "Fun"]


def test_it_takes_the_figures_of_the_month_asked_for():
    snapshot = household(
        [figures(RENT, assigned=950_000, activity=-950_000, available=0)],
        [figures(RENT, assigned=900_000, activity=-120_500, available=779_500)],
    )

    (september,) = budget_categories(snapshot, SEPT, include_empty=False)
    (october,) = budget_categories(snapshot, OCT, include_empty=False)

    assert (september.assigned, september.activity, september.available) == (950_000, -950_000, 0)
    assert (october.assigned, october.activity, october.available) == (900_000, -120_500, 779_500)


def test_it_leaves_out_all_zero_categories_unless_asked_and_then_shows_them_as_zero():
    snapshot = household([figures(RENT, available=5)])

    shown = budget_categories(snapshot, SEPT, include_empty=False)
    every = budget_categories(snapshot, SEPT, include_empty=True)

    assert [row.category_id for row in shown] == ["c-rent"]
    assert [row.category_id for row in every] == ["c-elec", "c-rent", "c-visa", "c-books"]
    assert {(row.assigned, row.activity, row.available) for row in every if row.category_id != "c-rent"} == {
        (0, 0, 0)
    }


def test_overspent_takes_every_category_below_zero_hidden_ones_too_but_never_internal_ones_worst_first():
    snapshot = household(
        [
            figures(READY, available=-1),
            figures(OLD_GYM, activity=-29_900, available=-29_900),
            figures(BOOKS, assigned=30_000, activity=-30_010, available=-10),
            figures(RENT, available=0),
        ]
    )

    overspent = overspent_categories(snapshot, SEPT)

    assert [(row.category_id, row.available) for row in overspent] == [("c-gym", -29_900), ("c-books", -10)]


def test_month_totals_are_ynabs_own_figures_for_the_month():
    snapshot = household(
        [figures(BOOKS, available=-10)],
        income=3_150_000,
        assigned=2_900_000,
        activity=-2_750_250,
        ready_to_assign=-12_340,
        age_of_money=41,
    )

    totals = month_totals(snapshot, SEPT)

    assert (totals.income, totals.assigned, totals.activity) == (3_150_000, 2_900_000, -2_750_250)
    assert (totals.ready_to_assign, totals.age_of_money) == (-12_340, 41)
    assert [row.category_id for row in totals.overspent] == ["c-books"]


def test_spending_leaves_out_card_payment_and_internal_categories_and_keeps_hidden_ones():
    snapshot = household(
        [
            figures(RENT, activity=-950_000),
            figures(BOOKS, activity=-30_000),  # a card purchase: -30.00 here ...
            figures(VISA, activity=30_000),  # ... and +30.00 into the card's payment category
            figures(OLD_GYM, activity=-12_000),  # hidden: still money out
            figures(ELECTRICITY, activity=5_000),  # a refund counts against spending
            figures(READY, activity=3_150_000),  # income, not spending
        ],
        [figures(RENT, activity=-900_000)],
    )

    assert month_spending(snapshot, SEPT) == -950_000 - 30_000 - 12_000 + 5_000
    assert month_totals(snapshot, SEPT).spending == -987_000
    assert month_spending(snapshot, OCT) == -900_000


@pytest.mark.parametrize(
    ("activity", "assigned", "expected"),
    [
        (-50_000, 100_000, Decimal("50.0")),
        (-150_000, 100_000, Decimal("150.0")),
        (0, 100_000, Decimal("0.0")),
        (20_000, 100_000, Decimal("-20.0")),  # money received into the category
        (-1, 3, Decimal("33.3")),
        (-2, 3, Decimal("66.7")),
        (-1, 2_000, Decimal("0.1")),  # 0.05 % exactly: half away from zero
        (1, 2_000, Decimal("-0.1")),
        (-5_000, 0, None),  # nothing assigned
        (-5_000, -1_000, None),  # a negative assignment is no budget to measure against
    ],
)
def test_utilisation_is_spending_over_assigned_in_percent_with_one_decimal(activity, assigned, expected):
    assert utilisation_pct(activity, assigned) == expected


@given(st.integers(-(10**15), 10**15), st.integers(1, 10**15))
def test_utilisation_is_the_exact_percentage_rounded_once(activity, assigned):
    exact = Fraction(-activity * 1000, assigned)

    tenths = utilisation_tenths(activity, assigned)

    assert abs(Fraction(tenths) - exact) <= Fraction(1, 2)
    if abs(Fraction(tenths) - exact) == Fraction(1, 2):
        assert abs(tenths) > abs(exact)  # a half goes away from zero


@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12))
def test_over_budget_means_more_spent_than_assigned_and_overspent_means_below_zero(
    activity, assigned, available
):
    row = CategoryMonth("c1", "Food", "Bills", assigned=assigned, activity=activity, available=available)

    exact = Fraction(-activity * 100, assigned) if assigned > 0 else None
    assert row.is_over_budget == (exact is not None and exact > 100)
    assert row.is_overspent == (available < 0)


def test_a_category_whose_group_is_gone_shows_the_group_name_its_month_data_carries():
    orphan = replace(figures(BOOKS, assigned=2_000, available=2_000), category_group_id="g-gone")
    orphan = replace(orphan, category_group_name="Old group")
    snapshot = plan([INTERNAL, FUN], [orphan], {SEPT: (month(SEPT), [orphan])})

    (row,) = budget_categories(snapshot, SEPT, include_empty=False)

    assert (row.category_id, row.group) == ("c-books", "Old group")
