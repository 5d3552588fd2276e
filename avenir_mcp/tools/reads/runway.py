"""`get_runway`: how many months the money at hand would last at the usual spending."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import PlanIdArg, given_text
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PlanResult, money, plural, shown_money, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.flows import complete_months, first_activity_month
from avenir_mcp.tools.logic.runway import liquid, money_out, runway_tenths
from avenir_mcp.tools.logic.trends import MAX_MONTHS
from avenir_mcp.values.money import average, decimal_digits
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client.snapshot import CategoryGroup, PlanSnapshot

MAX_GROUPS = 50
GROUP_NAME_LIMIT = 100


class EssentialRunway(BaseModel):
    monthly_spending: str = Field(description="Average money out a month in the essential groups (negative).")
    runway_months: float | None = Field(description="liquid ÷ that, one decimal; null when it is zero.")


class MonthSpending(BaseModel):
    month: str = Field(description="YYYY-MM-01, a complete month.")
    spending: str = Field(description="Money out of on-budget accounts that month (negative).")
    essential: str | None = Field(description="Its part in the essential groups; null when none were given.")


class RunwayAccount(BaseModel):
    name: str = Field(description="The account's name.")
    type: str = Field(description="YNAB's account type.")
    balance: str = Field(description="Its balance today, currency units.")


class LeftOutAccount(RunwayAccount):
    why: str = Field(description="Why it is not liquid money here.")


class Runway(PlanResult):
    message: str = Field(description="The answer in one sentence.")
    liquid: str = Field(description="Cash, checking and savings (if included) minus what cards owe.")
    owed_on_cards: str = Field(description="What on-budget cards and lines of credit owe (≥ 0, a magnitude).")
    monthly_spending: str = Field(description="Average money out a month over the months listed (negative).")
    runway_months: float | None = Field(
        description="liquid ÷ monthly spending, one decimal; null when nothing was spent."
    )
    essential: EssentialRunway | None = Field(
        description="The same on essential groups only; null if none given."
    )
    essential_groups: list[str] = Field(description="The essential groups' names.")
    months: list[MonthSpending] = Field(description="The complete months averaged, oldest first.")
    accounts: list[RunwayAccount] = Field(description="The accounts counted in liquid.")
    left_out: list[LeftOutAccount] = Field(description="Open accounts not counted, and why.")
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Get runway", toolset="insights")
async def get_runway(
    plan_id: PlanIdArg = None,
    months_count: Annotated[
        int,
        Field(ge=1, le=MAX_MONTHS, description=f"Complete months to average spending over, 1-{MAX_MONTHS}."),
    ] = 6,
    essential_groups: Annotated[
        list[str] | None,
        Field(
            description="Category groups that are essential (names or ids, at most 50), for a second "
            "runway on essentials only, e.g. Bills.",
            max_length=MAX_GROUPS,
        ),
    ] = None,
    include_savings: Annotated[bool, Field(description="Count savings accounts as liquid money.")] = True,
) -> Annotated[CallToolResult, Runway]:
    """How long could the person live on their money without income? Liquid money (checking,
    savings, cash, minus what on-budget cards owe) divided by the average money out a month.

    Spending is money out of on-budget accounts over the last complete months (refunds not
    deducted, transfers between own accounts and to tracking assets left out, loan payments
    counted); months before the first transaction are skipped. With `essential_groups`
    (e.g. Bills, Everyday) it also gives the runway on those categories alone. For when the
    balance would go below zero with income, use forecast_balance.
    """
    wanted = [
        given_text(text, field="essential_groups", max_length=GROUP_NAME_LIMIT) or ""
        for text in essential_groups or ()
    ]
    snapshot = await open_plan(plan_id)
    groups = [_group(snapshot, text) for text in wanted]
    group_ids = {group.id for group in groups}
    essential_categories = {c.id for c in snapshot.categories.values() if c.category_group_id in group_ids}
    months = complete_months(today(), months_count, first_activity_month(snapshot))
    rows = money_out(snapshot, months, essential_categories)
    digits = decimal_digits(snapshot.settings.currency_format)
    monthly = average([row.spending for row in rows], digits)
    at_hand = liquid(snapshot, include_savings=include_savings)
    runway = _months(runway_tenths(at_hand.total, monthly))
    essential = None
    if groups:
        essential_monthly = average([row.essential for row in rows], digits)
        essential = EssentialRunway(
            monthly_spending=money(snapshot, essential_monthly),
            runway_months=_months(runway_tenths(at_hand.total, essential_monthly)),
        )
    message = _message(snapshot, at_hand.total, monthly, runway, essential, len(months))
    result = Runway(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        liquid=money(snapshot, at_hand.total),
        owed_on_cards=money(snapshot, at_hand.owed_on_cards),
        monthly_spending=money(snapshot, monthly),
        runway_months=runway,
        essential=essential,
        essential_groups=[shown_name(group.name) for group in groups],
        months=[
            MonthSpending(
                month=row.month.isoformat(),
                spending=money(snapshot, row.spending),
                essential=money(snapshot, row.essential) if groups else None,
            )
            for row in rows
        ],
        accounts=[
            RunwayAccount(name=shown_name(a.name), type=a.type, balance=money(snapshot, a.balance))
            for a in at_hand.counted
        ],
        left_out=[
            LeftOutAccount(name=shown_name(a.name), type=a.type, balance=money(snapshot, a.balance), why=why)
            for a, why in at_hand.left_out
        ],
        notes=_notes(len(months), months_count, include_savings),
    )
    return tool_result(result, message)


def _group(snapshot: PlanSnapshot, text: str) -> CategoryGroup:
    """The group with this id, else with this name (case-insensitive); internal ones never."""
    groups = [g for g in snapshot.category_groups.values() if not g.internal]
    for group in groups:
        if group.id == text:
            return group
    for group in groups:
        if group.name.casefold() == text.casefold():
            return group
    valid = ", ".join(sorted((shown_name(g.name) for g in groups), key=str.casefold))
    raise Refusal(f"No category group '{shown_name(text)}' in this plan; give names or ids of: {valid}.")


def _months(tenths: int | None) -> float | None:
    return None if tenths is None else float(Decimal(tenths).scaleb(-1))


def _message(
    snapshot: PlanSnapshot,
    total: int,
    monthly: int,
    runway: float | None,
    essential: EssentialRunway | None,
    held: int,
) -> str:
    at_hand = shown_money(snapshot, total)
    if runway is None:
        return f"No spending in a complete month yet, so no runway to measure; liquid money is {at_hand}."
    parts = [
        f"Liquid money of {at_hand} would last {runway} months at {shown_money(snapshot, -monthly)} a month "
        f"(the average of {plural(held, 'complete month')})"
    ]
    if essential is not None and essential.runway_months is not None:
        parts.append(f"{essential.runway_months} months on essentials alone")
    return listed(parts) + "."


def _notes(held: int, asked: int, include_savings: bool) -> list[str]:
    notes = [
        "Spending is money out of on-budget accounts; refunds are not deducted, transfers between own "
        "accounts and to tracking assets are left out, loan payments count."
    ]
    if held < asked:
        notes.append(
            f"Only {plural(held, 'complete month')} with transactions: earlier months are skipped, "
            "not counted as zero."
        )
    if not include_savings:
        notes.append("Savings accounts are left out of liquid money, as asked.")
    notes.append("Income is not counted: the runway is how long the money lasts without any.")
    return notes
