"""Creating plans and accounts with everything YNAB creates alongside them."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db import transaction

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.ledger.figures import ensure_months
from avenir_mcp.sandbox.ledger.loading import STARTING_BALANCE
from avenir_mcp.sandbox.ledger.session import plan_write
from avenir_mcp.sandbox.models import Account, Category, CategoryGroup, Payee, Plan, Transaction, new_id

USD = {
    "iso_code": "USD",
    "example_format": "123,456.78",
    "decimal_digits": 2,
    "decimal_separator": ".",
    "symbol_first": True,
    "group_separator": ",",
    "currency_symbol": "$",
    "display_symbol": True,
}
US_DATES = {"format": "MM/DD/YYYY"}
INTERNAL_GROUP = "Internal Master Category"
CREDIT_CARD_GROUP = "Credit Card Payments"
# Tracking (off-budget) unless told otherwise: assets, liabilities and loans.
OFF_BUDGET_TYPES = frozenset(
    {
        "otherAsset",
        "otherLiability",
        "mortgage",
        "autoLoan",
        "studentLoan",
        "personalLoan",
        "medicalDebt",
        "otherDebt",
    }
)


def create_plan(
    *,
    name: str,
    first_month: date,
    plan_id: str | None = None,
    currency_format: dict | None = None,
    date_format: dict | None = None,
) -> Plan:
    """A new plan with YNAB's internal categories, the credit card group and its months."""
    first = month_of(first_month)
    with transaction.atomic():
        plan = Plan.objects.create(
            id=plan_id or new_id(),
            name=name,
            first_month=first,
            last_month=first,
            currency_format=currency_format or dict(USD),
            date_format=date_format or dict(US_DATES),
        )
        with plan_write(plan.id) as write:
            _internal_categories(write.plan, write.knowledge)
            next_month = add_months(month_of(write.today), 1)
            ensure_months(write.plan, first, max(first, next_month), write.knowledge)
    plan.refresh_from_db()
    return plan


def _internal_categories(plan: Plan, knowledge: int) -> None:
    stamp = {"plan": plan, "knowledge": knowledge}
    internal = CategoryGroup.objects.create(name=INTERNAL_GROUP, internal=True, sort_order=0, **stamp)
    CategoryGroup.objects.create(name=CREDIT_CARD_GROUP, sort_order=1, **stamp)
    for order, (category_name, role, hidden) in enumerate(
        [
            ("Inflow: Ready to Assign", Category.ROLE_READY_TO_ASSIGN, False),
            ("Uncategorized", Category.ROLE_UNCATEGORIZED, False),
            ("Split", Category.ROLE_SPLIT, True),
        ]
    ):
        Category.objects.create(
            group=internal,
            name=category_name,
            role=role,
            internal=True,
            hidden=hidden,
            sort_order=order,
            **stamp,
        )


def create_account(
    plan: Plan,
    *,
    name: str,
    type: str,
    on_budget: bool | None = None,
    balance: int = 0,
    date: date | None = None,
    **fields: Any,
) -> Account:
    """An account with its transfer payee, its payment category (credit cards) and its
    "Starting Balance" transaction when `balance` is not 0; `fields` are other Account fields.
    """
    with plan_write(plan.id) as write:
        stamp = {"plan": plan, "knowledge": write.knowledge}
        if on_budget is None:
            on_budget = type not in OFF_BUDGET_TYPES
        account = Account.objects.create(name=name, type=type, on_budget=on_budget, **stamp, **fields)
        account.transfer_payee = Payee.objects.create(
            name=f"Transfer : {name}", transfer_account=account, **stamp
        )
        account.save(update_fields=["transfer_payee"])
        if type == "creditCard" and on_budget:
            _payment_category(plan, account, write.knowledge)
            write.months_changed_from(write.plan.first_month)
        write.forget_rules()
        if balance:
            starting = _starting_balance(plan, account, balance, date or write.today, write.knowledge)
            write.transactions_changed({}, [starting.id])
    account.refresh_from_db()
    return account


def _payment_category(plan: Plan, account: Account, knowledge: int) -> Category:
    group = CategoryGroup.objects.get(plan=plan, name=CREDIT_CARD_GROUP, deleted=False)
    return Category.objects.create(
        plan=plan,
        knowledge=knowledge,
        group=group,
        name=account.name,
        role=Category.ROLE_CREDIT_CARD_PAYMENT,
        linked_account=account,
        sort_order=Category.objects.filter(group=group).count(),
    )


def _starting_balance(plan: Plan, account: Account, amount: int, day: date, knowledge: int) -> Transaction:
    """On budget, the balance is money to assign, except a card's debt, which is just debt."""
    payee, _ = Payee.objects.get_or_create(
        plan=plan,
        name=STARTING_BALANCE,
        transfer_account=None,
        deleted=False,
        defaults={"knowledge": knowledge},
    )
    category = None
    if account.on_budget and not (account.type == "creditCard" and amount < 0):
        category = Category.objects.get(plan=plan, role=Category.ROLE_READY_TO_ASSIGN)
    return Transaction.objects.create(
        plan=plan,
        knowledge=knowledge,
        account=account,
        date=day,
        amount=amount,
        cleared="cleared",
        approved=True,
        payee=payee,
        category=category,
    )
