"""The ledger API seeding builds on: plans, accounts, and derived figures that agree."""

from __future__ import annotations

from datetime import date

from avenir_mcp.sandbox.ledger import create_account, create_plan, rebuild_derived
from avenir_mcp.sandbox.models import (
    Account,
    Category,
    CategoryGroup,
    Month,
    MonthCategory,
    Payee,
    Transaction,
)


def test_it_creates_a_plan_with_the_internal_categories_and_its_months():
    plan = create_plan(name="Ledger plan", first_month=date(2025, 1, 15))

    groups = dict(CategoryGroup.objects.filter(plan=plan).values_list("name", "internal"))
    roles = set(Category.objects.filter(plan=plan).values_list("name", "role"))
    assert groups == {"Internal Master Category": True, "Credit Card Payments": False}
    assert ("Inflow: Ready to Assign", "ready_to_assign") in roles
    assert ("Uncategorized", "uncategorized") in roles
    assert ("Split", "split") in roles
    assert plan.first_month == date(2025, 1, 1)
    assert Month.objects.filter(plan=plan, month=date(2025, 1, 1)).exists()
    assert plan.currency_format["iso_code"] == "USD"
    assert plan.server_knowledge == 1


def test_it_gives_an_account_its_transfer_payee_and_starting_balance():
    plan = create_plan(name="Ledger plan", first_month=date(2025, 1, 1))

    checking = create_account(
        plan, name="Checking", type="checking", balance=1_000_000, date=date(2025, 1, 2)
    )

    assert checking.on_budget is True
    assert checking.cleared_balance == 1_000_000
    assert Payee.objects.get(pk=checking.transfer_payee_id).name == "Transfer : Checking"
    starting = Transaction.objects.get(account=checking)
    assert starting.category.role == Category.ROLE_READY_TO_ASSIGN
    assert MonthCategory.objects.get(category=starting.category, month=date(2025, 1, 1)).activity == 1_000_000


def test_it_gives_a_credit_card_a_payment_category_and_keeps_its_debt_out_of_categories():
    plan = create_plan(name="Ledger plan", first_month=date(2025, 1, 1))

    card = create_account(plan, name="Visa", type="creditCard", balance=-250_000, date=date(2025, 1, 2))

    payment = Category.objects.get(plan=plan, linked_account=card)
    assert payment.group.name == "Credit Card Payments"
    assert payment.name == "Visa"
    assert card.balance == -250_000
    assert not MonthCategory.objects.filter(plan=plan).exclude(activity=0).exists()


def test_it_makes_tracking_accounts_off_budget_by_default():
    plan = create_plan(name="Ledger plan", first_month=date(2025, 1, 1))

    house = create_account(plan, name="House", type="otherAsset", balance=300_000_000)

    assert house.on_budget is False
    assert not MonthCategory.objects.filter(plan=plan).exclude(activity=0).exists()


def test_rebuilding_gives_the_same_figures_and_stamps_everything_once():
    plan = create_plan(name="Ledger plan", first_month=date(2025, 1, 1))
    create_account(plan, name="Checking", type="checking", balance=500_000, date=date(2025, 1, 3))
    create_account(plan, name="Visa", type="creditCard", balance=-20_000, date=date(2025, 1, 3))
    before = _figures(plan)
    Account.objects.filter(plan=plan).update(cleared_balance=0)
    MonthCategory.objects.filter(plan=plan).update(activity=0)

    rebuild_derived(plan)

    assert _figures(plan) == before
    assert set(Transaction.objects.filter(plan=plan).values_list("knowledge", flat=True)) == {
        plan.server_knowledge
    }


def _figures(plan):
    balances = set(
        Account.objects.filter(plan=plan).values_list("id", "cleared_balance", "uncleared_balance")
    )
    activity = {
        (c, m, a)
        for c, m, a in MonthCategory.objects.filter(plan=plan).values_list("category_id", "month", "activity")
        if a
    }
    return balances, activity
