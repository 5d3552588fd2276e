"""The pure parts of the scheduled-transaction writes (tools.logic.schedule_writes)."""

from __future__ import annotations

from datetime import date

import pytest

from avenir_mcp.tools.logic.schedule_writes import check_schedule_date, years_later
from avenir_mcp.values.refusal import Refusal


@pytest.mark.parametrize(
    ("day", "later"),
    [(date(2026, 12, 4), date(2031, 12, 4)), (date(2028, 2, 29), date(2033, 2, 28))],
)
def test_five_years_ahead_is_the_same_calendar_day_or_the_28th_of_february(day, later):
    assert years_later(day, 5) == later


def test_a_schedule_date_runs_from_tomorrow_to_five_years_ahead():
    today = date(2028, 2, 29)

    assert check_schedule_date(date(2028, 3, 1), today) == date(2028, 3, 1)
    assert check_schedule_date(date(2033, 2, 28), today) == date(2033, 2, 28)
    with pytest.raises(Refusal, match="must be from 2028-03-01 to 2033-02-28"):
        check_schedule_date(date(2033, 3, 1), today)
    with pytest.raises(Refusal, match="not after today"):
        check_schedule_date(today, today)
