"""Schedules expanded at YNAB's 13 frequencies, and the totals of a window."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.schedules import FREQUENCIES, occurrence_dates, totals, upcoming
from tests.logic.plan_rows import account, payee, scheduled, scheduled_line, snapshot

D = date.fromisoformat


def dates(frequency: str, first: str, since: str, until: str, next_: str | None = None) -> list[str]:
    found = occurrence_dates(D(first), D(next_ or first), frequency, D(since), D(until))
    return [day.isoformat() for day in found]


def test_there_are_ynabs_13_frequencies():
    assert len(FREQUENCIES) == 13
    assert len(set(FREQUENCIES)) == 13


def test_never_falls_once_on_its_next_date():
    assert dates("never", "2026-09-20", "2026-09-01", "2026-12-31") == ["2026-09-20"]
    assert dates("never", "2026-09-20", "2026-09-21", "2026-12-31") == []


@pytest.mark.parametrize(
    ("frequency", "until", "expected"),
    [
        ("daily", "2026-09-05", ["2026-09-01", "2026-09-02", "2026-09-03", "2026-09-04", "2026-09-05"]),
        ("weekly", "2026-09-05", ["2026-09-05"]),
        ("everyOtherWeek", "2026-09-05", ["2026-09-05"]),
        ("every4Weeks", "2026-09-30", ["2026-09-19"]),
    ],
)
def test_day_frequencies_step_from_the_next_date_skipping_steps_before_the_window(frequency, until, expected):
    assert dates(frequency, "2026-08-22", "2026-09-01", until) == expected


def test_monthly_from_the_31st_clamps_to_each_months_end_and_comes_back():
    assert dates("monthly", "2026-01-31", "2026-01-01", "2026-05-31") == [
        "2026-01-31",
        "2026-02-28",
        "2026-03-31",
        "2026-04-30",
        "2026-05-31",
    ]


def test_monthly_keeps_the_first_dates_day_when_the_next_date_was_clamped():
    assert dates("monthly", "2026-01-31", "2026-02-01", "2026-04-30", next_="2026-02-28") == [
        "2026-02-28",
        "2026-03-31",
        "2026-04-30",
    ]


def test_a_next_date_moved_by_the_person_sets_the_day():
    assert dates("monthly", "2026-01-10", "2026-03-01", "2026-05-31", next_="2026-03-12") == [
        "2026-03-12",
        "2026-04-12",
        "2026-05-12",
    ]


@pytest.mark.parametrize(
    ("frequency", "expected"),
    [
        (
            "everyOtherMonth",
            ["2026-01-15", "2026-03-15", "2026-05-15", "2026-07-15", "2026-09-15", "2026-11-15"],
        ),
        ("every3Months", ["2026-01-15", "2026-04-15", "2026-07-15", "2026-10-15"]),
        ("every4Months", ["2026-01-15", "2026-05-15", "2026-09-15"]),
        ("twiceAYear", ["2026-01-15", "2026-07-15"]),
        ("yearly", ["2026-01-15"]),
        ("everyOtherYear", ["2026-01-15"]),
    ],
)
def test_month_frequencies_step_whole_months(frequency, expected):
    assert dates(frequency, "2026-01-15", "2026-01-01", "2026-12-31") == expected


def test_yearly_on_29_february_falls_on_the_28th_in_other_years_and_back_on_leap_years():
    assert dates("yearly", "2024-02-29", "2025-01-01", "2028-12-31", next_="2025-02-28") == [
        "2025-02-28",
        "2026-02-28",
        "2027-02-28",
        "2028-02-29",
    ]


def test_a_window_far_after_the_next_date_jumps_the_periods_before_it():
    assert dates("everyOtherMonth", "2026-01-15", "2030-02-01", "2030-06-30") == ["2030-03-15", "2030-05-15"]


def test_a_day_step_that_would_fall_after_the_calendars_last_day_falls_nowhere():
    assert dates("every4Weeks", "9999-12-01", "9999-12-30", "9999-12-31") == []
    assert dates("weekly", "9999-12-01", "9999-12-29", "9999-12-31") == ["9999-12-29"]


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        ("2026-01-01", ["2026-01-01", "2026-01-16", "2026-02-01", "2026-02-16"]),
        ("2026-01-15", ["2026-01-15", "2026-01-30", "2026-02-15", "2026-02-28"]),
        ("2026-01-20", ["2026-01-20", "2026-02-05", "2026-02-20"]),
    ],
)
def test_twice_a_month_falls_on_the_day_and_fifteen_days_apart(first, expected):
    assert dates("twiceAMonth", first, "2026-01-01", "2026-02-28") == expected


def test_an_unknown_frequency_is_shown_once_never_guessed():
    assert dates("everyFullMoon", "2026-09-20", "2026-09-01", "2026-12-31") == ["2026-09-20"]


@given(
    st.sampled_from(FREQUENCIES),
    st.dates(date(2020, 1, 1), date(2030, 12, 31)),
    st.integers(-400, 400),
    st.integers(0, 366),
)
def test_occurrences_are_in_the_window_ascending_distinct_and_never_before_the_next_date(
    frequency, next_date, since_shift, length
):
    since = next_date + timedelta(days=since_shift)
    until = since + timedelta(days=length)

    found = occurrence_dates(next_date, next_date, frequency, since, until)

    assert found == sorted(set(found))
    assert all(since <= day <= until and day >= next_date for day in found)
    if since <= next_date <= until:
        assert found[0] == next_date


@given(st.sampled_from(sorted({"monthly", "yearly", "every3Months"})), st.integers(1, 31))
def test_month_frequencies_fall_on_the_day_or_the_months_last_day(frequency, day):
    first = date(2026, 1, min(day, 31))
    for found in occurrence_dates(first, first, frequency, date(2026, 1, 1), date(2027, 12, 31)):
        last_day = (found.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        assert found.day == min(day, last_day.day)


def plan_with_schedules():
    return snapshot(
        accounts=[account("chk"), account("sav", "Savings"), account("visa", "Visa")],
        payees=[payee("p-rent", "Rent Co"), payee("p-pay", "Employer")],
        scheduled_transactions=[
            scheduled("rent", "chk", "2026-10-05", -950_000, payee_id="p-rent"),
            scheduled("pay", "chk", "2026-10-27", 3_150_000, payee_id="p-pay"),
            scheduled("save", "chk", "2026-10-28", -200_000, transfer_account_id="sav"),
            scheduled("split", "visa", "2026-10-10", -100_000),
            scheduled("gone", "chk", "2026-10-12", -7_000, transfer_account_id="deleted-account"),
        ],
        scheduled_subtransactions=[
            scheduled_line("s1", "split", -60_000),
            scheduled_line("s2", "split", -50_000, transfer_account_id="sav"),
            scheduled_line("s3", "split", 10_000),
        ],
    )


def test_upcoming_lists_each_date_in_order_and_filters_accounts():
    plan = plan_with_schedules()

    every = upcoming(plan, D("2026-10-01"), D("2026-11-30"))
    on_visa = upcoming(plan, D("2026-10-01"), D("2026-11-30"), ["visa"])

    assert [(o.date.isoformat(), o.scheduled.id) for o in every[:5]] == [
        ("2026-10-05", "rent"),
        ("2026-10-10", "split"),
        ("2026-10-12", "gone"),
        ("2026-10-27", "pay"),
        ("2026-10-28", "save"),
    ]
    assert len(every) == 10
    assert [o.scheduled.id for o in on_visa] == ["split", "split"]


def test_totals_leave_out_transfers_between_the_plans_accounts_line_by_line():
    plan = plan_with_schedules()

    window = totals(plan, upcoming(plan, D("2026-10-01"), D("2026-10-31")))

    # rent -950, pay +3150, split lines -60 and +10 (the transfer line left out), and the
    # transfer to an account no longer in the plan counts as money out (-7).
    assert window.inflows == 3_150_000 + 10_000
    assert window.outflows == -950_000 - 60_000 - 7_000
