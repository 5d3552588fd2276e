"""tools.logic.targets: reading YNAB's goal fields, predicting what a change leaves, undoing it."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from avenir_mcp.tools.logic.targets import (
    YNAB_NAMES,
    Target,
    TargetRequest,
    predicted,
    restore_fields,
    target_from_goal,
)
from tests.logic.month_plans import category

DEC = date(2026, 12, 31)
BASE = category("c1", "Holidays", "g1")


def test_a_need_every_other_month_is_shown_as_ynab_names_it_not_as_a_monthly_target():
    goal = replace(BASE, goal_type="NEED", goal_target=50_000, goal_cadence=1, goal_cadence_frequency=2)

    target = target_from_goal(goal, card=False)

    assert target == Target("other", 50_000, None, None, ynab_name="Plan Your Spending")
    assert not target.recreatable


def test_a_date_on_a_card_payment_category_means_paid_off_by_that_date():
    before = Target("card_monthly", 100_000)

    after = predicted(before, TargetRequest(200_000, DEC, None), card=True)

    assert after == Target("card_by_date", 200_000, DEC)


def test_a_date_on_a_balance_target_keeps_ynabs_balance_by_date_kind():
    for name in (YNAB_NAMES["TB"], YNAB_NAMES["TBD"]):
        before = Target("other", 300_000, None, ynab_name=name, snoozed=True)

        after = predicted(before, TargetRequest(400_000, DEC, None), card=False)

        assert after == Target("other", 400_000, DEC, ynab_name=YNAB_NAMES["TBD"], snoozed=True)


def test_undoing_a_date_set_on_a_card_payment_target_clears_the_date():
    before = Target("card_monthly", 100_000)

    assert restore_fields(before, Target("card_by_date", 200_000, DEC)) == {
        "goal_target": 100_000,
        "goal_target_date": None,
    }
    assert restore_fields(before, Target("card_monthly", 200_000)) == {"goal_target": 100_000}
