"""Plan months (list with delta, one month with its categories) and money movements."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.api import params
from avenir_mcp.sandbox.api.http import SandboxRequest
from avenir_mcp.sandbox.api.params import since
from avenir_mcp.sandbox.ledger.budget import load_budget
from avenir_mcp.sandbox.models import MoneyMovement, MoneyMovementGroup, Month, Plan
from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.money_movements import (
    GROUP_FIELDS,
    MOVEMENT_FIELDS,
    money_movement,
    money_movement_group,
)
from avenir_mcp.sandbox.serialize.months import month_detail, month_summary

MONTH_FIELDS = ("month", "note", "age_of_money", "deleted", "knowledge")


def list_months(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    knowledge, last_known = plan.server_knowledge, since(call)
    budget = load_budget(plan)
    rows = {row["month"]: row for row in Month.objects.filter(plan=plan).values(*MONTH_FIELDS)}
    money = MoneyFormat(plan.currency_format)
    months = []
    for month in budget.months:
        row = rows.get(month)
        stamp = row["knowledge"] if row else 0
        if last_known is not None and stamp <= last_known:
            continue
        if last_known is None and row and row["deleted"]:
            continue
        months.append(month_summary(budget, month, row, money))
    months.reverse()  # YNAB lists the newest month first
    return {"months": months, "server_knowledge": knowledge}


def get_month(call: SandboxRequest, plan: Plan, month: str) -> dict[str, Any]:
    in_month = params.plan_month(month, plan)
    budget = load_budget(plan)
    row = Month.objects.filter(plan=plan, month=in_month).values(*MONTH_FIELDS).first()
    return {"month": month_detail(budget, in_month, row, MoneyFormat(plan.currency_format))}


def list_money_movements(call: SandboxRequest, plan: Plan, month: str | None = None) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = MoneyMovement.objects.filter(plan=plan)
    if month is not None:
        rows = rows.filter(month=params.plan_month(month, plan))
    money = MoneyFormat(plan.currency_format)
    movements = [money_movement(row, money) for row in rows.values(*MOVEMENT_FIELDS)]
    return {"money_movements": movements, "server_knowledge": knowledge}


def list_money_movement_groups(call: SandboxRequest, plan: Plan, month: str | None = None) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = MoneyMovementGroup.objects.filter(plan=plan)
    if month is not None:
        rows = rows.filter(month=params.plan_month(month, plan))
    groups = [money_movement_group(row) for row in rows.values(*GROUP_FIELDS)]
    return {"money_movement_groups": groups, "server_knowledge": knowledge}
