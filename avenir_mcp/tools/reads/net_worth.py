"""`get_net_worth_trend`: what the household owns less what it owes, at each month's end."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import PlanIdArg
from avenir_mcp.mcp_surface.plan_lookup import open_plan, today
from avenir_mcp.mcp_surface.presenting import PlanResult, money, plural, shown_money, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.net_worth import net_worth_by_month
from avenir_mcp.tools.logic.trends import MAX_MONTHS
from avenir_mcp.values.months import add_months, month_start
from avenir_mcp.values.text import listed, shown_name


class MonthNetWorth(BaseModel):
    month: str = Field(description="YYYY-MM-01; figures are at the month's last day.")
    assets: str = Field(description="What the accounts held, currency units.")
    debts: str = Field(description="What debt-type accounts owed, currency units (≤ 0).")
    net_worth: str = Field(description="assets + debts, currency units.")


class CountedAccount(BaseModel):
    account_id: str = Field(description="The account's id.")
    name: str = Field(description="The account's name.")
    type: str = Field(description="YNAB's account type.")
    on_budget: bool = Field(description="False for a tracking account.")
    closed: bool = Field(description="Closed now (counted for the months it held a balance).")


class NetWorthTrend(PlanResult):
    months: list[MonthNetWorth] = Field(description="Oldest first, ending with the current month.")
    first_net_worth: str = Field(description="Net worth at the end of the first month listed.")
    last_net_worth: str = Field(description="Net worth at the end of the current month (today's).")
    change: str = Field(description="last_net_worth - first_net_worth, currency units.")
    accounts: list[CountedAccount] = Field(description="The accounts counted, tracking ones included.")


@read_tool(title="Get net worth trend", toolset="insights")
async def get_net_worth_trend(
    plan_id: PlanIdArg = None,
    months_count: Annotated[
        int,
        Field(ge=1, le=MAX_MONTHS, description=f"How many months, the current one included, 1-{MAX_MONTHS}."),
    ] = 12,
) -> Annotated[CallToolResult, NetWorthTrend]:
    """Net worth month by month: what every account held (assets) and what the debt accounts
    owed (debts, negative), at each month's end, for the last `months_count` months up to now.

    Tracking accounts (a house, a retirement fund, a loan) count; a closed account counts for
    the months it held a balance. Debt-type accounts (cards, lines of credit, loans) are debts.
    Balances at a month's end are today's minus what came later. For where money went, use
    get_spending_trends; for debts and when they end, get_debt_payoff_plan.
    """
    snapshot = await open_plan(plan_id)
    current = month_start(today())
    months = [add_months(current, -back) for back in range(months_count - 1, -1, -1)]
    months = [m for m in months if snapshot.first_month is None or m >= snapshot.first_month] or [current]
    worth, counted = net_worth_by_month(snapshot, months)
    first, last = worth[0].net_worth, worth[-1].net_worth
    result = NetWorthTrend(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        months=[
            MonthNetWorth(
                month=row.month.isoformat(),
                assets=money(snapshot, row.assets),
                debts=money(snapshot, row.debts),
                net_worth=money(snapshot, row.net_worth),
            )
            for row in worth
        ],
        first_net_worth=money(snapshot, first),
        last_net_worth=money(snapshot, last),
        change=money(snapshot, last - first),
        accounts=[
            CountedAccount(
                account_id=account.id,
                name=shown_name(account.name),
                type=account.type,
                on_budget=account.on_budget,
                closed=account.closed,
            )
            for account in sorted(
                (snapshot.accounts[account_id] for account_id in counted),
                key=lambda a: (a.closed, not a.on_budget, a.name.casefold(), a.id),
            )
        ],
    )
    text = listed(
        [
            f"Net worth {shown_money(snapshot, last)} at the end of {months[-1].isoformat()}",
            f"{_signed(shown_money(snapshot, last - first))} since the end of {months[0].isoformat()} "
            f"({plural(len(months), 'month')}, {plural(len(counted), 'account')}).",
        ]
    )
    return tool_result(result, text)


def _signed(amount: str) -> str:
    return amount if amount.startswith("-") else f"+{amount}"
