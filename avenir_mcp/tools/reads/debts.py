"""`get_debt_payoff_plan`: when each debt is paid off, and what it costs, under avalanche and snowball."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import AmountValue, PlanIdArg, amount_arg, given_text
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PlanResult, money, shown_money, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.debts import Debt, PayoffPlan, Strategy, debts_of, past_payments, simulate
from avenir_mcp.values.money import decimal_digits
from avenir_mcp.values.months import add_months, month_start
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

MAX_OVERRIDES = 50


class OverrideArg(BaseModel):
    account: str = Field(
        description="The debt account: its name or its id from list_accounts.", max_length=200
    )
    interest_rate: AmountValue | None = Field(
        default=None, description='Interest rate in % a year, like "19.9"; omitted: YNAB\'s.'
    )
    minimum_payment: AmountValue | None = Field(
        default=None, description='Minimum monthly payment in currency units, like "35.00"; omitted: YNAB\'s.'
    )


class DebtEntry(BaseModel):
    account_id: str = Field(description="The account's id.")
    name: str = Field(description="The account's name.")
    type: str = Field(description="YNAB's account type.")
    balance: str = Field(description="What it owes today, currency units (negative, as YNAB).")
    interest_rate: float | None = Field(description="% a year; null when unknown (counted as 0).")
    rate_from: str = Field(description="ynab, override or missing.")
    minimum_payment: str | None = Field(description="Minimum a month, currency units; null when unknown.")
    minimum_from: str = Field(description="ynab, override or missing.")
    escrow: str = Field(description="The part of each payment held in escrow (it does not reduce the debt).")


class DebtOutcome(BaseModel):
    name: str = Field(description="The account's name.")
    payoff_month: str | None = Field(
        description="The month it is paid off, YYYY-MM-01; null if not within max_months."
    )
    months: int | None = Field(description="Months until then, counting from first_month as 1.")
    interest: str = Field(description="Interest paid on it (≥ 0, a magnitude).")
    paid: str = Field(description="Paid into it in all (≥ 0, a magnitude).")


class StrategyPlan(BaseModel):
    strategy: str = Field(description="avalanche (highest rate first) or snowball (smallest balance first).")
    debts: list[DebtOutcome] = Field(description="In the order the strategy pays them.")
    months_to_debt_free: int | None = Field(
        description="Months until every debt is paid; null if not within max_months."
    )
    debt_free_month: str | None = Field(description="The month the last one is paid, YYYY-MM-01, or null.")
    total_interest: str = Field(description="Interest paid in all (≥ 0).")
    total_paid: str = Field(description="Paid in all (≥ 0).")


class DebtPayoffPlan(PlanResult):
    message: str = Field(description="The answer in one sentence.")
    monthly_budget: str | None = Field(
        description="What goes to the debts each month; null when there is no debt."
    )
    budget_from: str | None = Field(description="given, minimum payments or past payments.")
    first_month: str = Field(description="The first month paid, YYYY-MM-01 (next month).")
    debts: list[DebtEntry] = Field(description="The debts: open debt accounts owing money.")
    plans: list[StrategyPlan] = Field(description="One plan per strategy asked.")
    interest_saved_by_avalanche: str | None = Field(
        description="Snowball's total interest minus avalanche's, when both were asked and both finish."
    )
    months_saved_by_avalanche: int | None = Field(
        description="Snowball's months minus avalanche's, likewise."
    )
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Get debt payoff plan", toolset="insights")
async def get_debt_payoff_plan(
    plan_id: PlanIdArg = None,
    strategy: Annotated[
        Literal["avalanche", "snowball", "both"],
        Field(description="avalanche (highest rate first), snowball (smallest balance first), or both."),
    ] = "both",
    monthly_budget: Annotated[
        AmountValue | None,
        Field(
            description='What can go to debts each month, currency units above 0, like "600.00". Omitted: '
            "the minimum payments, else the average paid over the last 3 complete months."
        ),
    ] = None,
    overrides: Annotated[
        list[OverrideArg] | None,
        Field(
            description="Terms to use instead of YNAB's, 1-50 debts.", min_length=1, max_length=MAX_OVERRIDES
        ),
    ] = None,
    max_months: Annotated[
        int, Field(ge=12, le=1200, description="Stop after this many months, 12-1200.")
    ] = 600,
) -> Annotated[CallToolResult, DebtPayoffPlan]:
    """When will the debts be paid off, and what will they cost in interest? Pays the open
    debt accounts (cards, loans) month by month with a monthly budget, under avalanche
    (highest rate first, least interest) and snowball (smallest balance first).

    Rates, minimum payments and escrow are YNAB's (loan accounts), unless `overrides` gives
    them (cards have none in YNAB: ask the person for the card's rate). Each month interest
    is added, minimums are paid and the rest goes to the first debt of the strategy; a
    paid-off debt's minimum rolls over. For balances over time, use get_net_worth_trend.
    """
    budget = _budget_arg(monthly_budget)
    wanted = [_override_arg(item) for item in overrides or ()]
    snapshot = await open_plan(plan_id)
    now = today()
    debts = debts_of(snapshot, now)
    for account, rate, minimum in wanted:
        debts = _overridden(debts, account, rate, minimum)
    first_month = add_months(month_start(now), 1)
    if not debts:
        message = "No open debt account owes money, so there is nothing to pay off."
        return tool_result(_empty(snapshot, message, first_month), message)
    minimums = sum(debt.minimum or 0 for debt in debts)
    budget_from = "given"
    if budget is not None and budget < minimums:
        shown = money(snapshot, minimums)
        raise Refusal(
            f"monthly_budget {money(snapshot, budget)} is below the minimum payments ({shown}): "
            f"give at least {shown}."
        )
    if budget is None and minimums > 0:
        budget, budget_from = minimums, "minimum payments"
    digits = decimal_digits(snapshot.settings.currency_format)
    if budget is None:
        budget, budget_from = past_payments(snapshot, debts, now, digits), "past payments"
        if budget <= 0:
            raise Refusal(
                "No minimum payment is known and nothing was paid to these debts in the last 3 complete "
                "months: "
                "give monthly_budget (what can go to debts each month) or overrides with minimum_payment."
            )
    strategies: list[Strategy] = ["avalanche", "snowball"] if strategy == "both" else [strategy]
    payoffs = [simulate(debts, budget, chosen, max_months, digits) for chosen in strategies]
    saved_interest = saved_months = None
    if len(payoffs) == 2 and payoffs[0].months is not None and payoffs[1].months is not None:
        saved_interest = money(snapshot, payoffs[1].total_interest - payoffs[0].total_interest)
        saved_months = payoffs[1].months - payoffs[0].months
    message = _message(snapshot, payoffs, budget, budget_from, first_month, max_months)
    result = DebtPayoffPlan(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        monthly_budget=money(snapshot, budget),
        budget_from=budget_from,
        first_month=first_month.isoformat(),
        debts=[_debt(snapshot, debt) for debt in debts],
        plans=[_strategy_plan(snapshot, payoff, first_month) for payoff in payoffs],
        interest_saved_by_avalanche=saved_interest,
        months_saved_by_avalanche=saved_months,
        notes=_notes(debts, payoffs, max_months),
    )
    return tool_result(result, message)


def _budget_arg(value: AmountValue | None) -> int | None:
    if value is None:
        return None
    budget = amount_arg(value, field="monthly_budget")
    if budget <= 0:
        raise Refusal(
            f'monthly_budget {value} is not above 0: give what can go to debts each month, like "600.00".'
        )
    return budget


def _override_arg(item: OverrideArg) -> tuple[str, int | None, int | None]:
    account = given_text(item.account, field="account", max_length=200) or ""
    rate = amount_arg(item.interest_rate, field="interest_rate") if item.interest_rate is not None else None
    minimum = (
        amount_arg(item.minimum_payment, field="minimum_payment")
        if item.minimum_payment is not None
        else None
    )
    if rate is not None and rate < 0:
        raise Refusal(
            f'interest_rate {item.interest_rate} is negative: give the yearly rate in %, like "19.9".'
        )
    if minimum is not None and minimum < 0:
        raise Refusal(
            f'minimum_payment {item.minimum_payment} is negative: give it as a positive amount, like "35.00".'
        )
    return account, rate, minimum


def _overridden(debts: list[Debt], account: str, rate: int | None, minimum: int | None) -> list[Debt]:
    match = next((d for d in debts if d.account.id == account), None) or next(
        (d for d in debts if d.account.name.casefold() == account.casefold()), None
    )
    if match is None:
        listed = ", ".join(shown_name(d.account.name) for d in debts) or "none"
        raise Refusal(
            f"No debt '{shown_name(account)}' in this plan; give one of these debts by name or id: {listed}."
        )
    changed = match
    if rate is not None:
        changed = replace(changed, rate=rate, rate_from="override")
    if minimum is not None:
        changed = replace(changed, minimum=minimum, minimum_from="override")
    return [changed if d is match else d for d in debts]


def _debt(snapshot: PlanSnapshot, debt: Debt) -> DebtEntry:
    return DebtEntry(
        account_id=debt.account.id,
        name=shown_name(debt.account.name),
        type=debt.account.type,
        balance=money(snapshot, -debt.owed),
        interest_rate=float(Decimal(debt.rate).scaleb(-3)) if debt.rate is not None else None,
        rate_from=debt.rate_from,
        minimum_payment=money(snapshot, debt.minimum) if debt.minimum is not None else None,
        minimum_from=debt.minimum_from,
        escrow=money(snapshot, debt.escrow),
    )


def _month_of(first_month: date, months: int | None) -> str | None:
    return add_months(first_month, months - 1).isoformat() if months else None


def _strategy_plan(snapshot: PlanSnapshot, payoff: PayoffPlan, first_month: date) -> StrategyPlan:
    return StrategyPlan(
        strategy=payoff.strategy,
        debts=[
            DebtOutcome(
                name=shown_name(outcome.debt.account.name),
                payoff_month=_month_of(first_month, outcome.months),
                months=outcome.months,
                interest=money(snapshot, outcome.interest),
                paid=money(snapshot, outcome.paid),
            )
            for outcome in payoff.debts
        ],
        months_to_debt_free=payoff.months,
        debt_free_month=_month_of(first_month, payoff.months),
        total_interest=money(snapshot, payoff.total_interest),
        total_paid=money(snapshot, payoff.total_paid),
    )


def _empty(snapshot: PlanSnapshot, message: str, first_month: date) -> DebtPayoffPlan:
    return DebtPayoffPlan(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        monthly_budget=None,
        budget_from=None,
        first_month=first_month.isoformat(),
        debts=[],
        plans=[],
        interest_saved_by_avalanche=None,
        months_saved_by_avalanche=None,
        notes=["Debts are open debt-type accounts (cards, lines of credit, loans) with a negative balance."],
    )


def _message(
    snapshot: PlanSnapshot,
    payoffs: list[PayoffPlan],
    budget: int,
    budget_from: str,
    first_month: date,
    limit: int,
) -> str:
    parts = []
    for payoff in payoffs:
        if payoff.months is None:
            parts.append(f"{payoff.strategy} does not pay them off within {limit} months")
        else:
            cost = listed(
                [f"{payoff.months} months", f"{shown_money(snapshot, payoff.total_interest)} interest"]
            )
            parts.append(
                f"{payoff.strategy} pays them off in {_month_of(first_month, payoff.months)} ({cost})"
            )
    return f"With {shown_money(snapshot, budget)} a month ({budget_from}): {listed(parts)}."


def _notes(debts: list[Debt], payoffs: list[PayoffPlan], limit: int) -> list[str]:
    notes = ["Payments start next month; interest is added monthly at the yearly rate ÷ 12."]
    missing_rate = [shown_name(d.account.name) for d in debts if d.rate is None]
    if missing_rate:
        notes.append(f"No interest rate known for {', '.join(missing_rate)}: counted as 0 %; give overrides.")
    missing_minimum = [shown_name(d.account.name) for d in debts if d.minimum is None]
    if missing_minimum:
        notes.append(f"No minimum payment known for {', '.join(missing_minimum)}: counted as 0.")
    if any(payoff.months is None for payoff in payoffs):
        notes.append(
            f"Some debts are not paid off within {limit} months: the budget barely covers the interest."
        )
    return notes
