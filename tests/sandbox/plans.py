"""Small plans for the sandbox tests, built with the ledger API (each with a fresh id).

`small_plan()` is a copy (`tests.helpers.plan_copies`) of one seeded by `seeded_small_plan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.ledger import create_account, create_plan, plan_write, utc_today
from avenir_mcp.sandbox.ledger.catalog import create_category, create_category_group
from avenir_mcp.sandbox.models import Category, Plan
from tests.helpers.plan_copies import copy_of


@dataclass
class SmallPlan:
    """A household: checking 1,000.00 and a card, savings 500.00, a tracking asset, and
    Groceries / Dining / Rent; it starts two months before the current one (UTC)."""

    plan: Plan
    checking: str
    savings: str
    card: str
    house: str
    groceries: str
    dining: str
    rent: str
    everyday_group: str
    ready_to_assign: str
    uncategorized: str
    card_payment: str
    first_month: date
    this_month: date

    @property
    def id(self) -> str:
        return self.plan.id

    def month(self, offset: int) -> date:
        """The first day of the month `offset` months after the plan's first month."""
        return add_months(self.first_month, offset)


def small_plan(name: str = "Test household") -> SmallPlan:
    """A small household of the test's own: a copy of one seeded once."""
    return copy_of(seeded_small_plan, name=name)


def seeded_small_plan(name: str = "Test household") -> SmallPlan:
    """A small household seeded through the ledger, as a write would build it."""
    this_month = month_of(utc_today())
    first = add_months(this_month, -2)
    plan = create_plan(name=name, first_month=first)
    with plan_write(plan.id):  # one write, as one request would make it: the figures computed once
        checking = create_account(plan, name="Checking", type="checking", balance=1_000_000, date=first)
        savings = create_account(plan, name="Savings", type="savings", balance=500_000, date=first)
        card = create_account(plan, name="Visa", type="creditCard")
        house = create_account(plan, name="House", type="otherAsset", balance=250_000_000, date=first)
        everyday = create_category_group(plan, "Everyday")
        bills = create_category_group(plan, "Bills")
        groceries = create_category(plan, everyday, "Groceries")
        dining = create_category(plan, everyday, "Dining Out")
        rent = create_category(plan, bills, "Rent")
    roles = dict(Category.objects.filter(plan=plan).values_list("role", "id"))
    plan.refresh_from_db()
    return SmallPlan(
        plan=plan,
        checking=checking.id,
        savings=savings.id,
        card=card.id,
        house=house.id,
        groceries=groceries.id,
        dining=dining.id,
        rent=rent.id,
        everyday_group=everyday.id,
        ready_to_assign=roles[Category.ROLE_READY_TO_ASSIGN],
        uncategorized=roles[Category.ROLE_UNCATEGORIZED],
        card_payment=roles[Category.ROLE_CREDIT_CARD_PAYMENT],
        first_month=first,
        this_month=this_month,
    )
