"""`find_recurring_charges`: what the household pays (or receives) every month, found in its history."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import (
    PagedResult,
    category_name,
    money,
    plural,
    shown_money,
    tool_result,
)
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.recurring import LOOKBACK_MONTHS, Recurring, charges_in, find_recurring
from avenir_mcp.tools.logic.schedule_match import match_schedules, scheduled_flows
from avenir_mcp.values.money import decimal_digits
from avenir_mcp.values.months import add_months, month_start
from avenir_mcp.values.paging import paginate
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot


class RecurringCharge(BaseModel):
    payee: str = Field(description="The merchant: the payee's normalised name (card numbers, dates removed).")
    monthly_amount: str = Field(
        description="The median of its monthly totals, currency units (money out negative, income positive)."
    )
    yearly_amount: str = Field(description="monthly_amount x 12, currency units.")
    day: int = Field(description="The median day of the month it comes on (1-31).")
    months_seen: int = Field(
        description=f"In how many of the {LOOKBACK_MONTHS} months looked at it was seen."
    )
    category: str | None = Field(description="Its most used category; null when it had none.")
    scheduled: bool = Field(
        description="Whether a scheduled transaction of these accounts is this same money: payees matching "
        "(one name within the other, or the same first word of 4+ characters), the same direction, and "
        "monthly amounts within 20 % or days within 3."
    )


class RecurringCharges(PagedResult):
    charges: list[RecurringCharge] = Field(
        description="Recurring charges, the costliest first; then, when asked, recurring income, "
        "the largest first."
    )
    yearly_total: str = Field(
        description="What the recurring charges (income left out) add up to in a year, currency units "
        "(negative)."
    )
    months_looked_at: list[str] = Field(
        description=f"The {LOOKBACK_MONTHS} full months looked at, oldest first."
    )


@read_tool(title="Find recurring charges", toolset="insights")
async def find_recurring_charges(
    plan_id: PlanIdArg = None,
    include_income: Annotated[
        bool, Field(description="Also list recurring income (pay, benefits), after the charges.")
    ] = False,
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> Annotated[CallToolResult, RecurringCharges]:
    """What is paid every month, found in the history: subscriptions, bills, rent, direct debits.

    A payee (its normalised name) recurs when it was charged in at least 3 of the last 4 full
    months, each month's total within 20 % of their median; it is shown at that median, on its
    usual day, with what it costs a year.
    Open on-budget accounts only; transfers left out. `scheduled` tells whether a scheduled
    transaction is the same money, even under another label (list_scheduled_transactions).
    Use it to answer "what am I paying every month without noticing?".
    """
    snapshot = await open_plan(plan_id)
    current = month_start(today())
    months = [add_months(current, -back) for back in range(LOOKBACK_MONTHS, 0, -1)]
    found, covered = recurring_in_plan(snapshot, months, include_income=include_income)
    month_keys = [m.isoformat() for m in months]
    query = {
        "tool": "find_recurring_charges",
        "plan": snapshot.plan_id,
        "months": month_keys,
        "income": include_income,
    }
    page = paginate(found, limit=limit, cursor=cursor, query=query)
    yearly = sum(12 * item.amount for item in found if not item.is_income)
    result = RecurringCharges(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        charges=[_entry(snapshot, item, covered) for item in page.items],
        yearly_total=money(snapshot, yearly),
        months_looked_at=month_keys,
        next_cursor=page.next_cursor,
    )
    charges = sum(1 for item in found if not item.is_income)
    parts = [f"{plural(charges, 'recurring charge')} costing {shown_money(snapshot, -yearly)} a year"]
    if include_income:
        parts.append(plural(len(found) - charges, "recurring income", "recurring incomes"))
    parts.append(f"from {months[0].isoformat()} to {months[-1].isoformat()}")
    if len(page.items) < len(found):
        parts.append(f"{len(page.items)} on this page")
    return tool_result(result, listed(parts) + ".")


def recurring_in_plan(
    snapshot: PlanSnapshot, months: list, *, include_income: bool
) -> tuple[list[Recurring], set[Recurring]]:
    """The recurring merchants of the plan's open on-budget accounts over `months`, and those
    a schedule of these accounts is (docs/conventions.md#heuristics), income matched too so a
    schedule goes to the same flow whether or not income is shown."""
    accounts = {a.id for a in snapshot.accounts.values() if a.on_budget and not a.closed}
    digits = decimal_digits(snapshot.settings.currency_format)
    found = find_recurring(charges_in(snapshot, months, accounts), months, digits)
    schedules = [s for s in snapshot.scheduled_transactions.values() if s.account_id in accounts]
    covered = set(match_schedules(found, scheduled_flows(snapshot, schedules)))
    return [item for item in found if include_income or not item.is_income], covered


def _entry(snapshot: PlanSnapshot, item: Recurring, covered: set[Recurring]) -> RecurringCharge:
    return RecurringCharge(
        payee=shown_name(item.merchant),
        monthly_amount=money(snapshot, item.amount),
        yearly_amount=money(snapshot, 12 * item.amount),
        day=item.day,
        months_seen=item.months_seen,
        category=category_name(snapshot, item.category_id),
        scheduled=item in covered,
    )
