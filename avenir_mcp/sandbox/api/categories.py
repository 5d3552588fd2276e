"""Categories: the grouped list (delta), one category (current month), one month's category."""

from __future__ import annotations

from datetime import date
from typing import Any

from avenir_mcp.sandbox.api import params
from avenir_mcp.sandbox.api.http import SandboxRequest, not_found
from avenir_mcp.sandbox.api.params import since
from avenir_mcp.sandbox.ledger.budget import PlanBudget, load_budget
from avenir_mcp.sandbox.models import CategoryGroup, Plan
from avenir_mcp.sandbox.serialize.categories import GROUP_FIELDS, category, category_group
from avenir_mcp.sandbox.serialize.money import MoneyFormat


def list_categories(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    knowledge, last_known = plan.server_knowledge, since(call)
    budget = load_budget(plan)
    money = MoneyFormat(plan.currency_format)
    groups = (
        CategoryGroup.objects.filter(plan=plan)
        .order_by("sort_order", "name")
        .values(*GROUP_FIELDS, "knowledge")
    )
    answer = []
    for group in groups:
        members = [c for c in budget.categories if c["group_id"] == group["id"]]
        if last_known is None:
            if group["deleted"]:
                continue
            members = [c for c in members if not c["deleted"]]
        else:
            members = [c for c in members if c["knowledge"] > last_known]
            if group["knowledge"] <= last_known and not members:
                continue
        item = category_group(group)
        item["categories"] = [category(c, budget, budget.current_month, money) for c in members]
        answer.append(item)
    return {"category_groups": answer, "server_knowledge": knowledge}


def get_category(call: SandboxRequest, plan: Plan, category_id: str) -> dict[str, Any]:
    budget = load_budget(plan)
    return {"category": category_answer(budget, category_id, budget.current_month)}


def get_month_category(call: SandboxRequest, plan: Plan, month: str, category_id: str) -> dict[str, Any]:
    in_month = params.plan_month(month, plan)
    return {"category": category_answer(load_budget(plan), category_id, in_month)}


def category_answer(budget: PlanBudget, category_id: str, month: date) -> dict[str, Any]:
    """A live category with its figures in `month`; 404.2 when there is none."""
    row = next((c for c in budget.categories if c["id"] == category_id and not c["deleted"]), None)
    if row is None:
        raise not_found()
    return category(row, budget, month, MoneyFormat(budget.plan.currency_format))
