"""Months are named strictly and resolved to their first day; dates and windows likewise."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.values.months import (
    DateError,
    add_months,
    check_window,
    month_end,
    month_range,
    month_start,
    parse_date,
    resolve_month,
    years_earlier,
)
from avenir_mcp.values.refusal import Refusal

DAYS = st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31))
MONTH_NAMES = st.one_of(
    st.sampled_from(["current", "next"]),
    DAYS.map(lambda day: day.strftime("%Y-%m")),
    DAYS.map(lambda day: day.strftime("%Y-%m-01")),
)
TODAY = date(2026, 9, 17)


@given(MONTH_NAMES, DAYS)
def test_it_resolves_a_month_to_a_first_day_that_resolves_to_itself(name, today):
    month = resolve_month(name, today)

    assert month.day == 1
    assert resolve_month(month.isoformat(), today) == month
    assert resolve_month(month.strftime("%Y-%m"), today) == month


@given(st.one_of(st.text(max_size=12), st.from_regex(r"[0-9]{4}-[0-9]{2}(-[0-9]{2})?", fullmatch=True)), DAYS)
def test_it_accepts_no_month_text_but_the_four_forms(text, today):
    try:
        month = resolve_month(text, today)
    except Refusal:
        return
    year_month = f"{month.year:04d}-{month.month:02d}"

    assert text in {"current", "next", year_month, f"{year_month}-01"}


@given(DAYS, st.integers(min_value=0, max_value=120))
def test_its_month_arithmetic_agrees_with_its_month_ranges(day, n):
    first = month_start(day)

    assert month_range(first, add_months(first, n)) == [add_months(first, k) for k in range(n + 1)]
    assert add_months(add_months(first, n), -n) == first


@given(DAYS)
def test_its_month_end_is_the_day_before_the_next_month(day):
    assert month_end(day) == add_months(day, 1) - timedelta(days=1)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("current", date(2026, 9, 1)),
        ("next", date(2026, 10, 1)),
        ("2026-09", date(2026, 9, 1)),
        ("2026-09-01", date(2026, 9, 1)),
        ("1999-12", date(1999, 12, 1)),
    ],
)
def test_it_resolves_the_accepted_month_forms(name, expected):
    assert resolve_month(name, TODAY) == expected


def test_it_counts_next_month_across_the_year_end():
    assert resolve_month("next", date(2026, 12, 31)) == date(2027, 1, 1)


def test_it_takes_a_datetime_as_today_and_still_returns_a_date():
    month = resolve_month("current", datetime(2026, 9, 17, 23, 59))

    assert month == date(2026, 9, 1)
    assert type(month) is date


@pytest.mark.parametrize(
    "name",
    ["2026-13", "2026-00", "0000-01", "sept", " 2026-09", "2026-09 ", "previous", "Current", "2026/09",
     "2026-9", "26-09", "2026-09-01\n", "", "２０２６-09"],
)  # fmt: skip
def test_it_refuses_other_month_forms_listing_the_accepted_ones(name):
    with pytest.raises(Refusal, match="give current, next, YYYY-MM or YYYY-MM-01"):
        resolve_month(name, TODAY)


def test_it_refuses_a_day_other_than_the_first_naming_the_month_to_give():
    with pytest.raises(Refusal, match=r"'2026-09-15' is not the first of a month: give 2026-09\.$"):
        resolve_month("2026-09-15", TODAY)


def test_it_shows_invisible_characters_in_a_refused_month():
    with pytest.raises(Refusal, match=r"'2026-09\\u200b'"):
        resolve_month("2026-09\u200b", TODAY)


def test_it_refuses_a_month_beyond_the_calendar():
    with pytest.raises(Refusal, match="beyond the calendar"):
        resolve_month("next", date(9999, 12, 1))


def test_it_lists_months_inclusively_from_any_days_of_them():
    assert month_range(date(2026, 11, 30), date(2027, 2, 1)) == [
        date(2026, 11, 1),
        date(2026, 12, 1),
        date(2027, 1, 1),
        date(2027, 2, 1),
    ]
    assert month_range(date(2026, 3, 1), date(2026, 2, 1)) == []


def test_it_ends_february_on_the_leap_day():
    assert month_end(date(2024, 2, 1)) == date(2024, 2, 29)
    assert month_end(date(2026, 2, 14)) == date(2026, 2, 28)


def test_it_counts_years_back_to_the_same_day_and_a_leap_day_to_the_28th():
    assert years_earlier(date(2026, 9, 17), 5) == date(2021, 9, 17)
    assert years_earlier(date(2028, 2, 29), 5) == date(2023, 2, 28)


@given(DAYS)
def test_it_reads_back_every_date_it_writes(day):
    assert parse_date(day.isoformat()) == day


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("2026-02-30", "not a calendar date"),
        ("2026-9-1", "not a date"),
        ("20260901", "not a date"),
        ("2026-09-01T00:00", "not a date"),
        (" 2026-09-01", "not a date"),
        ("", "not a date"),
    ],
)
def test_it_refuses_dates_not_written_yyyy_mm_dd(text, said):
    with pytest.raises(DateError, match=f"^since_date .* {said}: give YYYY-MM-DD"):
        parse_date(text, field="since_date")


def test_it_accepts_a_window_up_to_366_days_apart():
    check_window(date(2026, 1, 1), date(2027, 1, 2))
    check_window(date(2026, 1, 1), date(2026, 1, 1))


def test_it_refuses_a_window_one_day_too_long_saying_how_to_shorten_it():
    with pytest.raises(DateError, match=r"367 days apart: give at most 366, e\.g\. until_date 2027-01-02"):
        check_window(date(2026, 1, 1), date(2027, 1, 3))


def test_it_refuses_a_backwards_window():
    with pytest.raises(DateError, match="give since_date on or before until_date"):
        check_window(date(2026, 2, 1), date(2026, 1, 31))


def test_it_takes_a_tighter_window_limit_when_asked():
    with pytest.raises(DateError, match="at most 30"):
        check_window(date(2026, 1, 1), date(2026, 2, 1), max_days=30)
