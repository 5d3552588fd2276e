"""GET /plans/{plan_id}: the whole plan in one answer (YNAB's `*Base` shapes, no money
companions), or with `last_knowledge_of_server=N` every entity changed since N.

Built from `.values_list()` rows straight into dicts: no model instances per row.
"""

from __future__ import annotations

from typing import Any

from sandbox.api.delta import changed, since
from sandbox.api.http import Call
from sandbox.api.plans_lookup import mark_opened
from sandbox.ledger.budget import load_budget
from sandbox.models import (
    Account,
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
from sandbox.serialize.accounts import ACCOUNT_FIELDS, account_base
from sandbox.serialize.categories import GROUP_FIELDS, category_base, category_group
from sandbox.serialize.months import month_detail_base
from sandbox.serialize.names import load_names
from sandbox.serialize.payees import LOCATION_FIELDS, PAYEE_FIELDS, payee, payee_location
from sandbox.serialize.plans import plan_summary
from sandbox.serialize.scheduled import (
    SCHEDULED_KEYS,
    SCHEDULED_SUB_FIELDS,
    scheduled_base,
    scheduled_sub_base,
)
from sandbox.serialize.transactions import (
    SUB_FIELDS,
    TRANSACTION_FIELDS,
    subtransaction_base,
    transaction_base,
)

MONTH_FIELDS = ("month", "note", "age_of_money", "deleted", "knowledge")


def get_plan(call: Call, plan: Plan) -> dict[str, Any]:
    last_known = since(call)
    knowledge = plan.server_knowledge
    mark_opened(plan)
    detail = plan_summary(plan)
    detail["accounts"] = [
        account_base(row)
        for row in changed(Account.objects.filter(plan=plan), last_known).values(*ACCOUNT_FIELDS)
    ]
    detail["payees"] = [
        payee(row) for row in changed(Payee.objects.filter(plan=plan), last_known).values(*PAYEE_FIELDS)
    ]
    locations = changed(PayeeLocation.objects.filter(plan=plan), last_known).values(*LOCATION_FIELDS)
    detail["payee_locations"] = [payee_location(row) for row in locations]
    groups = changed(CategoryGroup.objects.filter(plan=plan), last_known).values(*GROUP_FIELDS)
    detail["category_groups"] = [category_group(row) for row in groups]
    detail.update(_budget(plan, last_known))
    detail.update(_transactions(plan, last_known))
    detail.update(_scheduled(plan, last_known))
    return {"plan": detail, "server_knowledge": knowledge}


def _budget(plan: Plan, last_known: int | None) -> dict[str, Any]:
    budget = load_budget(plan)
    current = budget.current_month
    if last_known is None:
        categories = [c for c in budget.categories if not c["deleted"]]
    else:
        categories = [c for c in budget.categories if c["knowledge"] > last_known]
    rows = {row["month"]: row for row in Month.objects.filter(plan=plan).values(*MONTH_FIELDS)}
    months = [
        month_detail_base(budget, month, rows.get(month))
        for month in budget.months
        if _month_wanted(rows.get(month), last_known)
    ]
    return {"categories": [category_base(c, budget, current) for c in categories], "months": months}


def _month_wanted(row: dict[str, Any] | None, last_known: int | None) -> bool:
    if last_known is None:
        return not (row and row["deleted"])
    return bool(row) and row["knowledge"] > last_known


def _transactions(plan: Plan, last_known: int | None) -> dict[str, Any]:
    names = load_names(plan)
    rows = changed(Transaction.objects.filter(plan=plan), last_known).order_by("date", "id")
    subs = changed(Subtransaction.objects.filter(plan=plan), last_known).order_by(
        "transaction_id", "sort_order"
    )
    return {
        "transactions": [transaction_base(row) for row in rows.values_list(*TRANSACTION_FIELDS)],
        "subtransactions": [subtransaction_base(row, names) for row in subs.values_list(*SUB_FIELDS)],
    }


def _scheduled(plan: Plan, last_known: int | None) -> dict[str, Any]:
    names = load_names(plan)
    rows = changed(ScheduledTransaction.objects.filter(plan=plan), last_known)
    subs = changed(ScheduledSubtransaction.objects.filter(plan=plan), last_known)
    return {
        "scheduled_transactions": [scheduled_base(row) for row in rows.values_list(*SCHEDULED_KEYS)],
        "scheduled_subtransactions": [
            scheduled_sub_base(row, names) for row in subs.values_list(*SCHEDULED_SUB_FIELDS)
        ],
    }
