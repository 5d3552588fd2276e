"""Read what the arithmetic needs from the database, as plain values (no per-row ORM objects)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date

from django.db.models import QuerySet

from avenir_mcp.sandbox.budget_math.age_of_money import CashFlow
from avenir_mcp.sandbox.budget_math.effects import AccountRules, Line, PlanRules, TransactionView
from avenir_mcp.sandbox.ledger.rows import PreparedRows, fetch
from avenir_mcp.sandbox.models import Account, Category, Payee, Plan, Subtransaction, Transaction

STARTING_BALANCE = "Starting Balance"
_TRANSACTION_FIELDS = ("id", "account_id", "date", "amount", "cleared", "payee_id", "category_id")


_ROLES = PreparedRows(lambda plan_id: Category.objects.filter(plan_id=plan_id).values_list("id", "role"))
_PAYMENT_CATEGORIES = PreparedRows(
    lambda plan_id: (
        Category.objects.filter(plan_id=plan_id, role=Category.ROLE_CREDIT_CARD_PAYMENT, deleted=False)
        .exclude(linked_account=None)
        .values_list("linked_account_id", "id")
    )
)
_ACCOUNTS = PreparedRows(
    lambda plan_id: Account.objects.filter(plan_id=plan_id).values_list("id", "on_budget")
)
_STARTING_BALANCE_PAYEE = PreparedRows(
    lambda plan_id: Payee.objects.filter(
        plan_id=plan_id, name=STARTING_BALANCE, transfer_account=None, deleted=False
    ).values_list("id")[:1]
)


def load_rules(plan: Plan) -> PlanRules:
    """The plan's accounts and special categories, as `budget_math.effects` needs them."""
    roles = dict(_ROLES.fetch(plan.pk))
    payment_of = dict(_PAYMENT_CATEGORIES.fetch(plan.pk))
    accounts = {
        account_id: AccountRules(on_budget=on_budget, payment_category_id=payment_of.get(account_id))
        for account_id, on_budget in _ACCOUNTS.fetch(plan.pk)
    }
    return PlanRules(
        accounts=accounts,
        ready_to_assign_id=_role(roles, Category.ROLE_READY_TO_ASSIGN),
        uncategorized_id=_role(roles, Category.ROLE_UNCATEGORIZED),
        ordinary_category_ids=frozenset(c for c, role in roles.items() if role == Category.ROLE_NONE),
        starting_balance_payee_id=starting_balance_payee_id(plan),
    )


def starting_balance_payee_id(plan: Plan) -> str | None:
    return next((row[0] for row in _STARTING_BALANCE_PAYEE.fetch(plan.pk)), None)


def _role(roles: dict[str, str], role: str) -> str:
    for category_id, category_role in roles.items():
        if category_role == role:
            return category_id
    raise LookupError(f"The plan has no {role} category; was it made with create_plan?")


def load_views(plan: Plan, transaction_ids: Iterable[str] | None = None) -> dict[str, TransactionView]:
    """Non-deleted transactions (all, or the given ids) with their lines, keyed by id."""
    rows = Transaction.objects.filter(plan=plan, deleted=False)
    subs = Subtransaction.objects.filter(plan=plan, deleted=False)
    if transaction_ids is not None:
        ids = list(transaction_ids)
        rows, subs = rows.filter(id__in=ids), subs.filter(transaction_id__in=ids)
    lines_of: dict[str, list[Line]] = defaultdict(list)
    sub_rows = fetch(
        subs.order_by().values_list("transaction_id", "amount", "category_id", "transfer_account_id")
    )
    for transaction_id, amount, category_id, transfer_account_id in sub_rows:
        lines_of[transaction_id].append(Line(amount, category_id, transfer_account_id))
    fields = (*_TRANSACTION_FIELDS, "transfer_account_id")
    return {row[0]: _view(row, lines_of.get(row[0])) for row in rows.order_by().values_list(*fields)}


def _view(row: tuple, sub_lines: list[Line] | None) -> TransactionView:
    _id, account_id, day, amount, cleared, payee_id, category_id, transfer_account_id = row
    lines = tuple(sub_lines) if sub_lines else (Line(amount, category_id, transfer_account_id),)
    return TransactionView(account_id, day, amount, cleared, payee_id, lines)


def cash_flows(plan: Plan, since: date | None = None) -> list[CashFlow]:
    """The plan's cash flows for age of money (see `budget_math.age_of_money`), dated `since`
    or later: lines of on-budget accounts that are not transfers between two on-budget accounts."""
    if since is None:
        rows = _WHOLE_FLOWS.fetch(plan.pk) + _LINE_FLOWS.fetch(plan.pk)
    else:
        rows = _WHOLE_FLOWS_SINCE.fetch(plan.pk, since) + _LINE_FLOWS_SINCE.fetch(plan.pk, since)
    return [CashFlow(day, amount) for day, amount in rows]


def _live_flows(plan_id: str, since: date | None) -> QuerySet[Transaction]:
    live = Transaction.objects.filter(plan_id=plan_id, deleted=False, account__on_budget=True)
    return live if since is None else live.filter(date__gte=since)


def _whole_flows(plan_id: str, since: date | None = None) -> QuerySet:
    """Transactions that are not splits (a split's lines are its flows)."""
    split_ids = Subtransaction.objects.filter(plan_id=plan_id, deleted=False).values("transaction_id")
    whole = _live_flows(plan_id, since).exclude(transfer_account__on_budget=True).exclude(id__in=split_ids)
    return whole.order_by().values_list("date", "amount")


def _line_flows(plan_id: str, since: date | None = None) -> QuerySet:
    lines = Subtransaction.objects.filter(
        plan_id=plan_id, deleted=False, transaction__in=_live_flows(plan_id, since).values("id")
    ).exclude(transfer_account__on_budget=True)
    return lines.order_by().values_list("transaction__date", "amount")


# Every cash flow of a plan (50,000 on a heavy one): plain columns, no converters.
_WHOLE_FLOWS = PreparedRows(_whole_flows, plain=True)
_LINE_FLOWS = PreparedRows(_line_flows, plain=True)
_WHOLE_FLOWS_SINCE = PreparedRows(_whole_flows, str, date, plain=True)
_LINE_FLOWS_SINCE = PreparedRows(_line_flows, str, date, plain=True)
