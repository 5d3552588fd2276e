"""Spending per category over the last full months, and its average rounded once (the rounding
itself: tests/logic/test_money.py)."""

from __future__ import annotations

from datetime import date

import pytest

from avenir_mcp.tools.logic.trends import full_months_before, spending_trends
from tests.logic.month_plans import category, figures, group, month, plan

JUNE, JULY, AUGUST, SEPTEMBER = (date(2026, m, 1) for m in (6, 7, 8, 9))


def test_the_months_are_the_last_full_ones_oldest_first_without_the_current_one():
    assert full_months_before(date(2026, 9, 17), 3, first_month=None) == [JUNE, JULY, AUGUST]
    assert full_months_before(date(2026, 2, 1), 2, first_month=None) == [date(2025, 12, 1), date(2026, 1, 1)]


def test_months_before_the_plan_began_are_left_out():
    assert full_months_before(date(2026, 9, 17), 6, first_month=JULY) == [JULY, AUGUST]
    assert full_months_before(date(2026, 9, 17), 6, first_month=SEPTEMBER) == []


@pytest.mark.parametrize("months_count", [0, 25])
def test_a_months_count_out_of_bounds_is_a_programming_error(months_count):
    with pytest.raises(ValueError, match="months_count"):
        full_months_before(date(2026, 9, 17), months_count, first_month=None)


def test_it_lists_categories_with_activity_aligned_with_the_months_biggest_spending_first():
    internal, bills, old = group("g0", "Internal", internal=True), group("g1", "Bills"), group("g2", "Old")
    ready = category("c-rta", "Inflow: Ready to Assign", "g0", internal=True)
    rent, phone = category("c-rent", "Rent", "g1"), category("c-phone", "Phone", "g1")
    gym = category("c-gym", "Old Gym", "g2", hidden=True)
    refunds, idle = category("c-ref", "Refunds", "g1"), category("c-idle", "Idle", "g1")
    snapshot = plan(
        [internal, bills, old],
        [ready, rent, phone, gym, refunds, idle],
        {
            JUNE: (month(JUNE), [figures(ready, activity=3_000_000), figures(rent, activity=-950_000)]),
            JULY: (month(JULY), [figures(rent, activity=-950_000), figures(gym, activity=-29_900)]),
            AUGUST: (
                month(AUGUST),
                [
                    figures(rent, activity=-950_000),
                    figures(phone, activity=-19_990),
                    figures(refunds, activity=12_000),
                    figures(idle, assigned=5_000, available=5_000),
                ],
            ),
        },
    )

    trends = spending_trends(snapshot, [JUNE, JULY, AUGUST], 2)

    assert [(t.category_id, t.activity) for t in trends] == [
        ("c-rent", (-950_000, -950_000, -950_000)),
        ("c-gym", (0, -29_900, 0)),
        ("c-phone", (0, 0, -19_990)),
        ("c-ref", (0, 0, 12_000)),
    ]
    assert [(t.total, t.average) for t in trends] == [
        (-2_850_000, -950_000),
        (-29_900, -9_970),  # -9.9666…
        (-19_990, -6_660),  # -6.6633…
        (12_000, 4_000),
    ]
    assert [t.group for t in trends] == ["Bills", "Old", "Bills", "Bills"]


def test_no_months_means_no_trends():
    rent = category("c-rent", "Rent", "g1")
    snapshot = plan([group("g1", "Bills")], [rent], {JUNE: (month(JUNE), [figures(rent, activity=-1)])})

    assert spending_trends(snapshot, [], 2) == []
