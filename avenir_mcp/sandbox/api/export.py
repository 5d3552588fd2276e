"""GET /plans/{plan_id}: the whole plan in one answer (YNAB's `*Base` shapes, no money
companions), or with `last_knowledge_of_server=N` every entity changed since N.

Built from raw `values_list` rows straight into dicts (no model instance per row); a delta
computes month figures and loads names only when something that shows them changed, so a
delta after one change stays small and quick on a 50,000-transaction plan.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from avenir_mcp.sandbox.api.http import SandboxRequest, mark_opened
from avenir_mcp.sandbox.api.params import changed, since
from avenir_mcp.sandbox.ledger.budget import load_budget
from avenir_mcp.sandbox.ledger.rows import fetch
from avenir_mcp.sandbox.models import (
    Account,
    Category,
    CategoryGroup,
    Month,
    Payee,
    PayeeLocation,
    Plan,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)
from avenir_mcp.sandbox.serialize.accounts import ACCOUNT_FIELDS, account_base
from avenir_mcp.sandbox.serialize.categories import GROUP_FIELDS, category_base, category_group
from avenir_mcp.sandbox.serialize.months import month_detail_base
from avenir_mcp.sandbox.serialize.names import load_names
from avenir_mcp.sandbox.serialize.payees import LOCATION_FIELDS, PAYEE_FIELDS, payee_location
from avenir_mcp.sandbox.serialize.plans import plan_summary
from avenir_mcp.sandbox.serialize.scheduled import (
    SCHEDULED_KEYS,
    SCHEDULED_SUB_FIELDS,
    scheduled_base,
    scheduled_sub_base,
)
from avenir_mcp.sandbox.serialize.transactions import (
    SUB_FIELDS,
    TRANSACTION_FIELDS,
    subtransaction_base,
    transaction_base,
)

MONTH_FIELDS = ("month", "note", "age_of_money", "deleted", "knowledge")


DELTA_KEYS = (
    "accounts",
    "payees",
    "payee_locations",
    "category_groups",
    "categories",
    "months",
    "transactions",
    "subtransactions",
    "scheduled_transactions",
    "scheduled_subtransactions",
)


def get_plan(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    last_known = since(call)
    knowledge = plan.server_knowledge  # read before the entities: a write meanwhile is sent again
    mark_opened(plan)
    detail = plan_summary(plan)
    if last_known is not None and last_known >= knowledge:
        # Every write raises the plan's knowledge, so nothing changed: no entity query needed.
        # This is the answer a warm client gets on most tool calls.
        detail.update({key: [] for key in DELTA_KEYS})
        return {"plan": detail, "server_knowledge": knowledge}
    names = cache(lambda: load_names(plan))
    detail.update(_directory(plan, last_known))
    detail.update(_budget(plan, last_known))
    detail.update(_transactions(plan, last_known, names))
    detail.update(_scheduled(plan, last_known, names))
    return {"plan": detail, "server_knowledge": knowledge}


def _directory(plan: Plan, last_known: int | None) -> dict[str, Any]:
    accounts = changed(Account.objects.filter(plan=plan), last_known).values(*ACCOUNT_FIELDS)
    payees = changed(Payee.objects.filter(plan=plan), last_known).order_by()
    locations = changed(PayeeLocation.objects.filter(plan=plan), last_known).values(*LOCATION_FIELDS)
    groups = changed(CategoryGroup.objects.filter(plan=plan), last_known).values(*GROUP_FIELDS)
    return {
        "accounts": [account_base(row) for row in accounts],
        "payees": [
            dict(zip(PAYEE_FIELDS, row, strict=True)) for row in fetch(payees.values_list(*PAYEE_FIELDS))
        ],
        "payee_locations": [payee_location(row) for row in locations],
        "category_groups": [category_group(row) for row in groups],
    }


def _budget(plan: Plan, last_known: int | None) -> dict[str, Any]:
    """Categories (current month figures) and months (each with its categories' figures)."""
    month_rows = {row["month"]: row for row in Month.objects.filter(plan=plan).values(*MONTH_FIELDS)}
    if last_known is not None and not _budget_changed(plan, last_known, month_rows):
        return {"categories": [], "months": []}
    budget = load_budget(plan)
    if last_known is None:
        categories = [c for c in budget.categories if not c["deleted"]]
    else:
        categories = [c for c in budget.categories if c["knowledge"] > last_known]
    months = [
        month_detail_base(budget, month, month_rows.get(month))
        for month in budget.months
        if _month_wanted(month_rows.get(month), last_known)
    ]
    return {
        "categories": [category_base(c, budget, budget.current_month) for c in categories],
        "months": months,
    }


def _budget_changed(plan: Plan, last_known: int, month_rows: dict[Any, dict[str, Any]]) -> bool:
    if any(row["knowledge"] > last_known for row in month_rows.values()):
        return True
    return Category.objects.filter(plan=plan, knowledge__gt=last_known).exists()


def _month_wanted(row: dict[str, Any] | None, last_known: int | None) -> bool:
    if last_known is None:
        return not (row and row["deleted"])
    return bool(row) and row["knowledge"] > last_known


def _transactions(plan: Plan, last_known: int | None, names: Any) -> dict[str, Any]:
    rows = fetch(
        changed(Transaction.objects.filter(plan=plan), last_known).order_by().values_list(*TRANSACTION_FIELDS)
    )
    subs = changed(Subtransaction.objects.filter(plan=plan), last_known).order_by(
        "transaction_id", "sort_order"
    )
    sub_rows = fetch(subs.values_list(*SUB_FIELDS))
    return {
        "transactions": [transaction_base(row) for row in rows],
        "subtransactions": [subtransaction_base(row, names()) for row in sub_rows],
    }


def _scheduled(plan: Plan, last_known: int | None, names: Any) -> dict[str, Any]:
    rows = changed(ScheduledTransaction.objects.filter(plan=plan), last_known).values_list(*SCHEDULED_KEYS)
    subs = changed(ScheduledSubtransaction.objects.filter(plan=plan), last_known)
    sub_rows = list(subs.values_list(*SCHEDULED_SUB_FIELDS))
    return {
        "scheduled_transactions": [scheduled_base(row) for row in rows],
        "scheduled_subtransactions": [scheduled_sub_base(row, names()) for row in sub_rows],
    }
