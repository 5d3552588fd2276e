"""tools.logic.duplicates: likely duplicates among an account's last 60 days, and what a new
transaction looks like."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.duplicates import Lookalike, Lookalikes, possible_duplicates
from tests.logic.plan_rows import account, payee, snapshot, transaction

TODAY = date(2026, 9, 30)


def plan():
    return snapshot(
        accounts=[account("chk")],
        payees=[payee("p-cafe", "CORNER CAFE"), payee("p-cafe-2", "CB CORNER CAFE 12/09")],
        transactions=[
            transaction("future", "chk", "2026-10-02", -4_500, payee_id="p-cafe"),
            transaction("b", "chk", "2026-09-28", -4_500, payee_id="p-cafe-2"),
            transaction("a", "chk", "2026-09-26", -4_500, payee_id="p-cafe"),
            transaction("old", "chk", "2026-08-05", -4_500, payee_id="p-cafe"),
        ],
    )


def test_a_future_dated_transaction_is_not_yet_a_duplicate_and_every_recent_one_is_read():
    assert possible_duplicates(plan(), "chk", TODAY) == [("b", "a")]


def test_a_new_line_older_than_sixty_days_resembles_nothing():
    lines = [(date(2026, 7, 1), -4_500, "Corner Cafe"), (date(2026, 9, 27), -4_500, "Corner Cafe")]
    found = Lookalikes(plan(), "chk", TODAY, lines)

    assert found.like(0, lines) is None
    assert found.like(1, lines) == Lookalike(date(2026, 9, 28), "CB CORNER CAFE 12/09", "b")


def test_a_line_on_the_calendars_first_day_resembles_nothing_and_the_search_does_not_overflow():
    lines = [(date.min, -4_500, "Corner Cafe"), (date(2026, 9, 27), -4_500, "Corner Cafe")]
    found = Lookalikes(plan(), "chk", TODAY, lines)

    assert found.like(0, lines) is None
    assert found.like(1, lines) == Lookalike(date(2026, 9, 28), "CB CORNER CAFE 12/09", "b")
