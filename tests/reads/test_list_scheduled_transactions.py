"""list_scheduled_transactions: the sandbox's schedules expanded over a window, with totals."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.sandbox.models import ScheduledTransaction
from tests.helpers.reads import call, every_page, milliunits
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_get
from tests.mcp.answers import summary

pytestmark = pytest.mark.anyio


async def held_schedules(plan_id: str) -> dict[str, dict]:
    answer = await sandbox_get(f"/plans/{plan_id}/scheduled_transactions")
    return {s["id"]: s for s in answer["scheduled_transactions"] if not s["deleted"]}


async def test_by_default_it_lists_the_next_30_days_each_schedule_on_its_next_date(demo_plan):
    held = await held_schedules(demo_plan.id)
    start, end = today(), today() + timedelta(days=30)

    listed = ok(await call("list_scheduled_transactions", plan_id=demo_plan.id))

    assert (listed["since_date"], listed["until_date"]) == (start.isoformat(), end.isoformat())
    due = {sid for sid, s in held.items() if start <= date.fromisoformat(s["date_next"]) <= end}
    on_next_date = {
        o["scheduled_id"] for o in listed["occurrences"] if o["date"] == held[o["scheduled_id"]]["date_next"]
    }
    assert due
    assert on_next_date == due
    dates = [o["date"] for o in listed["occurrences"]]
    assert dates == sorted(dates)


async def test_a_year_shows_monthly_schedules_every_month_and_yearly_ones_once(demo_plan):
    held = await held_schedules(demo_plan.id)
    until = today() + timedelta(days=366)

    occurrences, _pages = await every_page(
        "list_scheduled_transactions",
        "occurrences",
        plan_id=demo_plan.id,
        since_date=today().isoformat(),
        until_date=until.isoformat(),
    )

    assert {s["frequency"] for s in held.values()} == {"monthly", "yearly"}
    for scheduled_id, schedule in held.items():
        mine = [o for o in occurrences if o["scheduled_id"] == scheduled_id]
        next_date = date.fromisoformat(schedule["date_next"])
        expected = monthly_dates(next_date, until) if schedule["frequency"] == "monthly" else [next_date]
        assert [o["date"] for o in mine] == [d.isoformat() for d in expected]
        assert {milliunits(o["amount"]) for o in mine} == {schedule["amount"]}


def monthly_dates(first: date, until: date) -> list[date]:
    """`first`, then the same day of each following month (or its last day), up to `until`."""
    dates, year, month = [], first.year, first.month
    while (day := date(year, month, min(first.day, calendar.monthrange(year, month)[1]))) <= until:
        dates.append(day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return dates


async def test_transfers_have_no_category_and_stay_out_of_the_totals_on_every_page(demo_plan):
    window = {"since_date": today().isoformat(), "until_date": (today() + timedelta(days=120)).isoformat()}

    occurrences, pages = await every_page(
        "list_scheduled_transactions", "occurrences", plan_id=demo_plan.id, limit=3, **window
    )

    transfers = [o for o in occurrences if o["transfer"]]
    assert transfers
    assert all(o["category"] is None and o["payee"].startswith("Transfer : ") for o in transfers)
    counted = [milliunits(o["amount"]) for o in occurrences if not o["transfer"]]
    for page in pages:
        assert milliunits(page["inflows"]) == sum(a for a in counted if a > 0)
        assert milliunits(page["outflows"]) == sum(a for a in counted if a < 0)
    assert len(pages) > 1
    first = await call("list_scheduled_transactions", plan_id=demo_plan.id, limit=3, **window)
    span = f"from {window['since_date']} to {window['until_date']}"
    shown = [pages[0][key].replace(".", ",") for key in ("inflows", "outflows")]  # the demo's decimal comma
    totals = f"in {shown[0]}; out {shown[1]} (transfers aside)"
    assert summary(first) == f"{len(occurrences)} scheduled dates {span}: {totals}; more with next_cursor."


async def test_names_memos_and_frequencies_are_the_sandboxs(demo_plan):
    held = await held_schedules(demo_plan.id)
    window = {"since_date": today().isoformat(), "until_date": (today() + timedelta(days=366)).isoformat()}

    occurrences, _pages = await every_page(
        "list_scheduled_transactions", "occurrences", plan_id=demo_plan.id, **window
    )

    for occurrence in occurrences:
        schedule = held[occurrence["scheduled_id"]]
        assert occurrence["frequency"] == schedule["frequency"]
        assert occurrence["account"] == schedule["account_name"]
        assert occurrence["payee"] == (schedule["payee_name"] or "")
        assert occurrence["memo"] == schedule["memo"]
        if not occurrence["transfer"]:
            assert occurrence["category"] == schedule["category_name"]


async def test_a_split_schedule_shows_split_as_its_category(own_demo_plan):
    schedule = await sync_to_async(
        ScheduledTransaction.objects.filter(plan=own_demo_plan, transfer_account__isnull=True).first
    )()
    await sync_to_async(_split_in_two)(schedule)

    listed = ok(await call("list_scheduled_transactions", plan_id=own_demo_plan.id, until_date=_far()))

    mine = [o for o in listed["occurrences"] if o["scheduled_id"] == schedule.id]
    assert mine
    assert {o["category"] for o in mine} == {"Split"}


def _split_in_two(schedule: ScheduledTransaction) -> None:
    from avenir_mcp.sandbox.ledger import rebuild_derived
    from avenir_mcp.sandbox.models import ScheduledSubtransaction

    half = schedule.amount // 2
    for amount in (half, schedule.amount - half):
        ScheduledSubtransaction.objects.create(
            plan=schedule.plan, scheduled_transaction=schedule, amount=amount, category=schedule.category
        )
    rebuild_derived(schedule.plan)


def _far() -> str:
    return (today() + timedelta(days=366)).isoformat()


async def test_account_ids_keep_only_those_accounts(demo_plan):
    accounts = (await sandbox_get(f"/plans/{demo_plan.id}/accounts"))["accounts"]
    visa = next(a for a in accounts if a["type"] == "creditCard")

    listed = ok(
        await call(
            "list_scheduled_transactions",
            plan_id=demo_plan.id,
            account_ids=[visa["id"]] * 2,
            until_date=_far(),
        )
    )

    assert listed["occurrences"]
    assert {o["account"] for o in listed["occurrences"]} == {visa["name"]}


async def test_an_unknown_account_is_refused_after_reading_the_plan(demo_plan):
    result = await call("list_scheduled_transactions", plan_id=demo_plan.id, account_ids=["a1x"])

    assert refusal(result).endswith("No account 'a1x' in this plan; list_accounts gives the valid ids.")


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"since_date": "2026-09-10", "until_date": "2026-09-01"}, "is after until_date"),
        ({"since_date": "2026-01-01", "until_date": "2027-01-03"}, "give at most 366"),
        ({"since_date": "10/09/2026"}, "is not a date: give YYYY-MM-DD"),
        ({"account_ids": ["ok", "no/slash"]}, "is not a valid account id"),
    ],
)
async def test_bad_arguments_are_refused_before_any_ynab_request(live_service, arguments, reason):
    mark = await request_mark()

    result = await call("list_scheduled_transactions", **arguments)

    assert reason in refusal(result)
    assert await requests_after(mark) == []


@pytest.mark.parametrize(
    ("since", "until"),
    [("9999-12-31", "9999-12-31"), ("9999-12-01", "9999-12-31"), ("9999-02-15", "9999-03-17")],
)
async def test_a_window_at_the_calendars_end_is_answered_not_a_crash(demo_plan, since, until):
    """Any day of 9999 once raised OverflowError or MonthError (an internal error): the default end
    is held at 9999-12-31, and schedules repeat up to the calendar's end, not past it."""
    listed = ok(await call("list_scheduled_transactions", plan_id=demo_plan.id, since_date=since))

    assert (listed["since_date"], listed["until_date"]) == (since, until)
    assert all(since <= o["date"] <= listed["until_date"] for o in listed["occurrences"])
