"""`forecast_balance`: will the money last? The chosen accounts' balance, day by day, to a month's end."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import (
    AccountIdsArg,
    AmountValue,
    PlanIdArg,
    amount_arg,
    check_ids,
    date_arg,
    given_text,
    month_arg,
)
from avenir_mcp.mcp_surface.plan_lookup import open_plan, require_account, today
from avenir_mcp.mcp_surface.presenting import (
    PlanResult,
    account_name,
    money,
    payee_name,
    plural,
    shown_money,
    tool_result,
)
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.flows import CASH_TYPES
from avenir_mcp.tools.logic.forecast import AVERAGE_MONTHS, MAX_MONTHS_AHEAD, Forecast, OneOff, project
from avenir_mcp.tools.logic.recurring import LOOKBACK_MONTHS
from avenir_mcp.values.money import decimal_digits
from avenir_mcp.values.months import add_months, month_end, month_start
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

MAX_ONE_OFFS = 50
LABEL_LIMIT = 80
DEFAULT_MONTHS_AHEAD = 3


class OneOffArg(BaseModel):
    date: str = Field(
        description="When, YYYY-MM-DD, from today to the end of the until month.", max_length=40
    )
    amount: AmountValue = Field(
        description='Currency units as a decimal string like "-450.00" (money out negative, in positive).'
    )
    label: str = Field(description="What it is, e.g. car repair (at most 80 characters).", max_length=80)


class RecurringAssumption(BaseModel):
    payee: str = Field(description="The merchant (normalised payee name).")
    amount: str = Field(description="Its monthly amount, currency units (money out negative).")
    day: int = Field(description="The day of the month it is expected on.")
    months_seen: int = Field(description="In how many of the last 4 full months it was seen.")


class ScheduledAssumption(BaseModel):
    payee: str = Field(description="The schedule's payee (or the account a transfer goes to or comes from).")
    amount: str = Field(description="What each occurrence does to the forecast balance, currency units.")
    frequency: str = Field(description="YNAB's frequency.")
    dates: list[str] = Field(description="The dates it falls on in the forecast, YYYY-MM-DD.")


class OneOffAssumption(BaseModel):
    date: str = Field(description="YYYY-MM-DD.")
    amount: str = Field(description="Currency units.")
    label: str = Field(description="As given.")


class Assumptions(BaseModel):
    recurring: list[RecurringAssumption] = Field(
        description="Recurring charges and income found in the history, less those a counted schedule "
        "already is (matched by payee, direction, and amount or day)."
    )
    variable_monthly: str = Field(
        description="Everything else, per month: the average of the last 3 full months (spending less "
        "non-recurring income; negative = money out), or the amount given."
    )
    monthly_income: str | None = Field(
        description="The monthly income given (it replaces recurring and scheduled income), or null."
    )
    scheduled: list[ScheduledAssumption] = Field(
        description="Scheduled transactions counted, from tomorrow; one more than 20 % off the recurring "
        "flow it is, so likely out of date, is left out for that flow (the notes name it)."
    )
    one_offs: list[OneOffAssumption] = Field(description="The one-offs given.")


class MonthEntry(BaseModel):
    month: str = Field(description="YYYY-MM-01 (the current month counts from today).")
    start: str = Field(description="Balance at the start (today's balance for the current month).")
    inflows: str = Field(description="Money expected in, currency units (≥ 0).")
    outflows: str = Field(description="Money expected out, currency units (≤ 0).")
    end: str = Field(description="Balance at the month's end.")
    lowest: str = Field(description="The lowest end-of-day balance in the month.")


class BalanceForecast(PlanResult):
    message: str = Field(description="The answer in one sentence.")
    accounts: list[str] = Field(description="The accounts whose combined balance is forecast.")
    start_balance: str = Field(description="Their combined balance today, currency units.")
    assumptions: Assumptions = Field(description="What the forecast assumes; tell the person.")
    months: list[MonthEntry] = Field(description="Month by month, from the current month to until.")
    first_shortfall: str | None = Field(
        description="The first month whose lowest daily balance is below zero, YYYY-MM-01; null if none."
    )
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Forecast balance", toolset="insights")
async def forecast_balance(
    plan_id: PlanIdArg = None,
    until: Annotated[
        str | None,
        Field(
            description="The last month to forecast: current, next, YYYY-MM or YYYY-MM-01, at most 24 "
            "months ahead. Omitted: 3 months ahead.",
            max_length=40,
        ),
    ] = None,
    account_ids: Annotated[
        AccountIdsArg,
        Field(
            description="The accounts whose combined balance to forecast, ids from list_accounts. Omitted: "
            "the open on-budget checking, savings and cash accounts.",
            max_length=200,
        ),
    ] = None,
    monthly_income: Annotated[
        AmountValue | None,
        Field(
            description='Monthly income in currency units, like "2800.00": replaces the recurring and '
            "scheduled income found. Omitted: those are used."
        ),
    ] = None,
    variable_monthly: Annotated[
        AmountValue | None,
        Field(
            description='Variable spending per month, 0 or negative, like "-1200.00": replaces the average '
            "of the last 3 full months."
        ),
    ] = None,
    one_offs: Annotated[
        list[OneOffArg] | None,
        Field(
            description="Expected one-off amounts (at most 50), dated today to the end of until.",
            max_length=50,
        ),
    ] = None,
) -> Annotated[CallToolResult, BalanceForecast]:
    """Will the money last? Forecasts the combined balance of the checking, savings and cash
    accounts (or the ones given) day by day until a month, and says when it first goes below zero.

    It counts the scheduled transactions (from tomorrow), the recurring charges and income
    found in the last 4 full months that none of those schedules already is (NETFLIX.COM paid
    and Netflix scheduled count once), and the rest of the spending at
    the average of the last 3 full months, spread over the days. The person can replace the
    income (`monthly_income`), the variable spending (`variable_monthly`) and add one-offs
    (a repair, a bonus). The answer depends on these assumptions: tell the person what they
    are (`assumptions`, `notes`). For what is scheduled use list_scheduled_transactions; for
    how long savings would last without income, get_runway.
    """
    now = today()
    last_month = _until(until, now)
    income = amount_arg(monthly_income, field="monthly_income") if monthly_income is not None else None
    variable = (
        amount_arg(variable_monthly, field="variable_monthly") if variable_monthly is not None else None
    )
    if variable is not None and variable > 0:
        raise Refusal(
            f"variable_monthly {variable_monthly} is above zero: give variable spending a month as a "
            'negative amount or 0, like "-1200.00".'
        )
    extras = [_one_off(item, now, last_month) for item in one_offs or ()]
    accounts = check_ids(account_ids, what="account")
    snapshot = await open_plan(plan_id)
    if accounts is None:
        chosen = default_accounts(snapshot)
    else:
        chosen = [require_account(snapshot, account_id).id for account_id in accounts]
    forecast = project(
        snapshot,
        today=now,
        until=last_month,
        account_ids=chosen,
        decimal_digits=decimal_digits(snapshot.settings.currency_format),
        monthly_income=income,
        variable_monthly=variable,
        one_offs=extras,
    )
    message = _message(snapshot, forecast, last_month)
    result = BalanceForecast(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        accounts=[account_name(snapshot, account_id) for account_id in chosen],
        start_balance=money(snapshot, forecast.start_balance),
        assumptions=_assumptions(snapshot, forecast),
        months=[
            MonthEntry(
                month=month.month.isoformat(),
                start=money(snapshot, month.start),
                inflows=money(snapshot, month.inflows),
                outflows=money(snapshot, month.outflows),
                end=money(snapshot, month.end),
                lowest=money(snapshot, month.lowest),
            )
            for month in forecast.months
        ],
        first_shortfall=forecast.first_shortfall.isoformat() if forecast.first_shortfall else None,
        notes=_notes(snapshot, forecast),
    )
    return tool_result(result, message)


def default_accounts(snapshot: PlanSnapshot) -> list[str]:
    """The open on-budget checking, savings and cash accounts, in name order."""
    found = [
        account
        for account in snapshot.accounts.values()
        if account.on_budget and not account.closed and account.type in CASH_TYPES
    ]
    return [account.id for account in sorted(found, key=lambda a: (a.name.casefold(), a.id))]


def _until(text: str | None, now: date) -> date:
    current = month_start(now)
    latest = add_months(current, MAX_MONTHS_AHEAD)
    if text is None:
        return add_months(current, DEFAULT_MONTHS_AHEAD)
    month = month_arg(text, now)
    span = f"give a month from {current.isoformat()} to {latest.isoformat()}"
    if month < current:
        raise Refusal(f"until {month.isoformat()} is in the past: {span}.")
    if month > latest:
        raise Refusal(f"until {month.isoformat()} is more than {MAX_MONTHS_AHEAD} months ahead: {span}.")
    return month


def _one_off(item: OneOffArg, now: date, last_month: date) -> OneOff:
    day = date_arg(item.date, field="One-off date")
    end = month_end(last_month)
    if not now <= day <= end:
        raise Refusal(
            f"One-off date {day.isoformat()} is outside the forecast: "
            f"give a date from {now.isoformat()} to {end.isoformat()}."
        )
    label = given_text(item.label, field="label", max_length=LABEL_LIMIT) or ""
    return OneOff(day, amount_arg(item.amount, field="One-off amount"), label)


def _message(snapshot: PlanSnapshot, forecast: Forecast, last_month: date) -> str:
    depends = "this depends on the assumptions returned."
    if forecast.first_below_zero is not None:
        balance = shown_money(snapshot, forecast.first_below_zero_balance or 0)
        return (
            f"The balance first goes below zero on {forecast.first_below_zero.isoformat()} ({balance}), "
            f"in {forecast.first_below_zero.replace(day=1).isoformat()}; {depends}"
        )
    lowest = min(forecast.months, key=lambda month: month.lowest)
    return (
        f"The balance stays above zero through {last_month.isoformat()} "
        f"(lowest {shown_money(snapshot, lowest.lowest)} "
        f"on {lowest.lowest_date.isoformat()}); {depends}"
    )


def _assumptions(snapshot: PlanSnapshot, forecast: Forecast) -> Assumptions:
    return Assumptions(
        recurring=[
            RecurringAssumption(
                payee=shown_name(item.merchant),
                amount=money(snapshot, item.amount),
                day=item.day,
                months_seen=item.months_seen,
            )
            for item in forecast.recurring
        ],
        variable_monthly=money(snapshot, forecast.variable_monthly),
        monthly_income=money(snapshot, forecast.monthly_income)
        if forecast.monthly_income is not None
        else None,
        scheduled=[
            ScheduledAssumption(
                payee=payee_name(snapshot, effect.scheduled.payee_id)
                or account_name(snapshot, effect.scheduled.transfer_account_id),
                amount=money(snapshot, effect.amount),
                frequency=effect.scheduled.frequency,
                dates=[day.isoformat() for day in effect.dates],
            )
            for effect in forecast.scheduled
        ],
        one_offs=[
            OneOffAssumption(
                date=item.date.isoformat(), amount=money(snapshot, item.amount), label=shown_name(item.label)
            )
            for item in forecast.one_offs
        ],
    )


def _notes(snapshot: PlanSnapshot, forecast: Forecast) -> list[str]:
    notes = [
        "Scheduled transactions count from tomorrow; transfers between the forecast accounts are left out."
    ]
    for off in forecast.schedules_off_history:
        scheduled, recurring = off.scheduled, off.recurring
        notes.append(
            f"{payee_name(snapshot, scheduled.payee_id)} is scheduled at "
            f"{shown_money(snapshot, scheduled.amount)} "
            f"({scheduled.frequency}) but came to {shown_money(snapshot, recurring.amount)} a month as "
            f"{shown_name(recurring.merchant)} in the last {LOOKBACK_MONTHS} full months: the schedule is "
            "left out and the history counted; ask the person whether the schedule is out of date."
        )
    if forecast.variable_given:
        notes.append("Variable spending is the amount given, spread evenly over each month's days.")
    elif len(forecast.variable_months) < AVERAGE_MONTHS:
        held = len(forecast.variable_months)
        notes.append(
            f"Variable spending is averaged over {plural(held, 'full month')} only (the plan is "
            f"younger than {AVERAGE_MONTHS}), so it is less reliable."
        )
    else:
        notes.append(
            "Variable spending is the average of the last 3 full months, less what already went out "
            "this month, "
            "spread evenly over the days left."
        )
    if forecast.monthly_income is not None:
        notes.append(
            f"Income is the monthly_income given, on day {forecast.income_day} of each month, instead of the "
            "recurring and scheduled income."
        )
    notes.append(
        "Credit cards are not in the forecast: their spending counts when a card payment leaves an account."
    )
    return notes
