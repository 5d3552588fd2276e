"""Transaction lists (all, by account, by month; by category and payee as hybrid rows) and
one transaction.

Filters, as YNAB's: `since_date` (default one year ago, except by month), `until_date`,
`type=unapproved` (not approved) or `type=uncategorized` (on-budget, not a transfer, not a
split, no category or "Uncategorized"), and `last_knowledge_of_server` (deletions included).
Pending transactions do not exist in the sandbox.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.db.models import Q, QuerySet

from avenir_mcp.sandbox.api import params
from avenir_mcp.sandbox.api.http import SandboxRequest, not_found
from avenir_mcp.sandbox.api.params import changed, since
from avenir_mcp.sandbox.budget_math.calendar import add_months
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.ledger.rows import fetch
from avenir_mcp.sandbox.models import Account, Category, Payee, Plan, Subtransaction, Transaction
from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.names import load_names
from avenir_mcp.sandbox.serialize.transactions import (
    SUB_FIELDS,
    TRANSACTION_FIELDS,
    hybrid,
    transaction_detail,
)


def list_transactions(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    return _details(call, plan, Transaction.objects.filter(plan=plan))


def list_by_account(call: SandboxRequest, plan: Plan, account_id: str) -> dict[str, Any]:
    if not Account.objects.filter(plan=plan, pk=account_id, deleted=False).exists():
        raise not_found()
    return _details(call, plan, Transaction.objects.filter(plan=plan, account_id=account_id))


def list_by_month(call: SandboxRequest, plan: Plan, month: str) -> dict[str, Any]:
    first = params.plan_month(month, plan)
    rows = Transaction.objects.filter(plan=plan, date__gte=first, date__lt=add_months(first, 1))
    return _details(call, plan, rows, default_since=False)


def list_by_category(call: SandboxRequest, plan: Plan, category_id: str) -> dict[str, Any]:
    if not Category.objects.filter(plan=plan, pk=category_id, deleted=False).exists():
        raise not_found()
    return _hybrids(call, plan, Q(category_id=category_id), Q(category_id=category_id))


def list_by_payee(call: SandboxRequest, plan: Plan, payee_id: str) -> dict[str, Any]:
    if not Payee.objects.filter(plan=plan, pk=payee_id, deleted=False).exists():
        raise not_found()
    return _hybrids(call, plan, Q(payee_id=payee_id), Q(payee_id=payee_id))


def get_transaction(call: SandboxRequest, plan: Plan, transaction_id: str) -> dict[str, Any]:
    return {
        "transaction": transaction_answer(plan, transaction_id),
        "server_knowledge": plan.server_knowledge,
    }


def transaction_answer(plan: Plan, transaction_id: str, *, deleted: bool = False) -> dict[str, Any]:
    """One transaction as TransactionDetail; 404.2 unless it exists (and is deleted or not, as asked)."""
    rows = Transaction.objects.filter(plan=plan, pk=transaction_id, deleted=deleted)
    found = details_of(plan, rows)
    if not found:
        raise not_found()
    return found[0]


def details_of(plan: Plan, rows: QuerySet) -> list[dict[str, Any]]:
    """TransactionDetail for each of `rows`, with its subtransactions, by date."""
    found = fetch(rows.order_by("date", "id").values_list(*TRANSACTION_FIELDS))
    subs_of = _subtransactions(rows)
    names, money = load_names(plan), MoneyFormat(plan.currency_format)
    deleted_at = TRANSACTION_FIELDS.index("deleted")
    return [
        transaction_detail(
            row, [s for s in subs_of.get(row[0], ()) if s[-1] == row[deleted_at]], names, money
        )
        for row in found
    ]


def _details(
    call: SandboxRequest, plan: Plan, rows: QuerySet, *, default_since: bool = True
) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = _filtered(call, plan, rows, default_since)
    return {"transactions": details_of(plan, rows), "server_knowledge": knowledge}


def _filtered(call: SandboxRequest, plan: Plan, rows: QuerySet, default_since: bool) -> QuerySet:
    rows = changed(rows, since(call))
    start = params.iso_day(call.query("since_date"), "since_date")
    if start is None and default_since:
        start = utc_today() - timedelta(days=365)
    end = params.iso_day(call.query("until_date"), "until_date")
    kind = params.transaction_type(call.query("type"))
    if start:
        rows = rows.filter(date__gte=start)
    if end:
        rows = rows.filter(date__lte=end)
    if kind == "unapproved":
        rows = rows.filter(approved=False)
    elif kind == "uncategorized":
        rows = rows.filter(
            Q(category=None) | Q(category__role=Category.ROLE_UNCATEGORIZED),
            transfer_account=None,
            account__on_budget=True,
        )
    return rows


def _subtransactions(rows: QuerySet) -> dict[str, list[tuple]]:
    """The lines of the split transactions among `rows`, by transaction id, in their order."""
    lines = Subtransaction.objects.filter(transaction__in=rows.values("id")).order_by(
        "transaction_id", "sort_order"
    )
    subs_of: dict[str, list[tuple]] = defaultdict(list)
    for sub in fetch(lines.values_list(*SUB_FIELDS)):
        subs_of[sub[1]].append(sub)
    return subs_of


def _hybrids(call: SandboxRequest, plan: Plan, on_parent: Q, on_line: Q) -> dict[str, Any]:
    """Transactions matching `on_parent` (not splits) and split lines matching `on_line`."""
    knowledge = plan.server_knowledge
    parents = _filtered(call, plan, Transaction.objects.filter(plan=plan), True)
    names, money = load_names(plan), MoneyFormat(plan.currency_format)
    split_ids = set(
        Subtransaction.objects.filter(transaction__in=parents).values_list("transaction_id", flat=True)
    )
    found = []
    for row in parents.filter(on_parent).order_by("date", "id").values_list(*TRANSACTION_FIELDS):
        if row[0] not in split_ids:
            found.append((row[1], hybrid(row, names, money)))
    lines = Subtransaction.objects.filter(on_line, transaction__in=parents).values_list(*SUB_FIELDS)
    line_rows = list(lines)
    by_id = {
        row[0]: row
        for row in parents.filter(pk__in={s[1] for s in line_rows}).values_list(*TRANSACTION_FIELDS)
    }
    for sub in line_rows:
        parent = by_id[sub[1]]
        found.append((parent[1], hybrid(parent, names, money, sub)))
    found.sort(key=lambda pair: pair[0])
    return {"transactions": [item for _, item in found], "server_knowledge": knowledge}
