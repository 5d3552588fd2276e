"""The heavy plan's structure: categories with targets, payees with a long tail, budgets."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from avenir_mcp.sandbox.budget_math.calendar import add_months
from avenir_mcp.sandbox.models import Account, Category
from avenir_mcp.sandbox.seeding import heavy_catalog as catalog
from avenir_mcp.sandbox.seeding.builder import PlanBuilder
from avenir_mcp.sandbox.seeding.dates import on_day
from avenir_mcp.sandbox.seeding.targets import (
    Target,
    balance_by_date,
    debt_payment,
    monthly_funding,
    monthly_need,
    target_balance,
    yearly_need,
)

MORTGAGE_PAYMENT = 1_150_000
GOAL_MONTHLY = {"Emergency Fund": 300_000, "New Car": 250_000, "House Deposit": 500_000, "Education": 150_000}
# Masked card numbers per paying account, as they appear in card payment labels.
CARD_MASKS = {
    "main": "525130******2",
    "joint": "525130******7",
    "visa": "497010******8",
    "master": "540012******4",
    "store": "601100******3",
}


@dataclass(frozen=True)
class HeavyPayee:
    name: str
    category: Category
    account: str
    median: int  # this payee's typical purchase, milliunits (positive)


def make_categories(build: PlanBuilder, today: date) -> dict[str, Category]:
    """Every group and category of `heavy_catalog.GROUPS`, with its target."""
    categories = {}
    for group_name, specs in catalog.GROUPS:
        group = build.group(group_name)
        for spec in specs:
            target = _target(spec, today) if spec.target else None
            categories[spec.name] = build.category(group, spec.name, target=target)
    return categories


def _target(spec: catalog.HeavyCategory, today: date) -> Target:
    current = today.replace(day=1)
    bills = {bill.category: -bill.amount for bill in catalog.BILLS}
    yearly = {name: (month, day, -amount) for name, _creditor, month, day, amount in catalog.YEARLY_BILLS}
    if spec.target == "yearly":
        month, day, amount = yearly[spec.name]
        due = date(today.year, month, day)
        return yearly_need(amount, due if due > today else date(today.year + 1, month, day))
    by_code = {
        "need": lambda: monthly_need(bills.get(spec.name, 30_000)),
        "refill": lambda: monthly_need(spec.median * 40, whole=False),
        "balance": lambda: target_balance(20_000_000),
        "by_date": lambda: balance_by_date(2_400_000, add_months(current, 6)),
        "funding": lambda: monthly_funding(GOAL_MONTHLY.get(spec.name, 150_000)),
        "debt": lambda: debt_payment(MORTGAGE_PAYMENT, day=1),
        "snoozed": lambda: balance_by_date(
            500_000, add_months(current, 12), snoozed_at=datetime.combine(current, time(8), tzinfo=UTC)
        ),
    }
    return by_code[spec.target]()


def make_payees(rng: random.Random, categories: dict[str, Category]) -> tuple[list[HeavyPayee], list[float]]:
    """`PAYEE_COUNT` payees spread over the spending categories by how often each is used,
    and cumulative weights giving a long tail: within a category, the k-th payee is used
    1/k^1.5 as often as the first."""
    spending = [spec for _group, specs in catalog.GROUPS for spec in specs if spec.share]
    total_share = sum(spec.share for spec in spending)
    payees, weights, names = [], [], set()
    for spec in spending:
        count = max(1, round(catalog.PAYEE_COUNT * spec.share / total_share))
        tail = [1 / (rank + 1) ** catalog.ZIPF_EXPONENT for rank in range(count)]
        for weight in tail:
            payees.append(_payee(rng, spec, categories[spec.name], names))
            weights.append(spec.share * weight / sum(tail))
    cumulative, running = [], 0.0
    for weight in weights:
        running += weight
        cumulative.append(running)
    return payees, cumulative


def _payee(
    rng: random.Random, spec: catalog.HeavyCategory, category: Category, names: set[str]
) -> HeavyPayee:
    brand, place = rng.choice(spec.brands), rng.choice(catalog.PLACES)
    account = (
        "cash"
        if spec.median < 8_000 and rng.random() < 0.3
        else rng.choice(("main", "main", "joint", "visa", "visa", "visa", "master", "master", "store"))
    )
    mask = CARD_MASKS.get(account, "")
    layouts = (
        f"CB {brand} {place} {mask}",
        f"{brand} {place}",
        f"CARTE {brand} {rng.randint(10_000, 99_999)}",
        f"PAYPAL *{brand}",
        brand,
    )
    name = rng.choice(layouts).strip() if account != "cash" else f"{brand} {place}"
    while name in names:
        name = f"{name} {rng.randint(2, 99)}"
    names.add(name)
    median = max(500, round(spec.median * rng.lognormvariate(0, 0.3) / 10) * 10)
    return HeavyPayee(name, category, account, median)


def assign_budgets(
    build: PlanBuilder, categories: dict[str, Category], months: list[date], rng: random.Random
) -> None:
    """Assign each month what its spending needed, rounded up to 10.00; about one month in
    ten a category gets a little less (it is overspent). Savings goals get their monthly
    amount."""
    activity: dict[tuple[str, date], int] = defaultdict(int)
    for row in build.transactions:
        activity[(row.category_id, row.date.replace(day=1))] += row.amount
    for line in build.subtransactions:
        activity[(line.category_id, line.transaction.date.replace(day=1))] += line.amount
    for category in categories.values():
        for month in months:
            spent = -activity.get((category.id, month), 0)
            needed = max(spent, GOAL_MONTHLY.get(category.name, 0))
            if needed <= 0:
                continue
            assigned = math.ceil(needed / 10_000) * 10_000
            if rng.random() < 0.1:
                assigned = needed * 9 // 10 // 10_000 * 10_000
            if assigned:
                build.assign(category, month, assigned)


def add_schedules(
    build: PlanBuilder,
    accounts: dict[str, Account],
    categories: dict[str, Category],
    first: date,
    today: date,
) -> None:
    """What the household has scheduled: pay, the mortgage and savings transfers, every bill
    (monthly and yearly), and a cleaner every other week."""
    main = accounts["main"]
    build.schedule(
        main,
        on_day(first, 1),
        "monthly",
        -MORTGAGE_PAYMENT,
        None,
        today=today,
        transfer_to=accounts["mortgage"],
        category=categories["Mortgage Payment"],
    )
    build.schedule(
        main, on_day(first, 26), "monthly", -400_000, None, today=today, transfer_to=accounts["savings"]
    )
    build.schedule(
        main, on_day(first, 25), "monthly", 3_000_000, "ACME SAS", today=today, category=build.ready_to_assign
    )
    for bill in catalog.BILLS:
        build.schedule(
            main,
            on_day(first, bill.day),
            "monthly",
            bill.amount,
            bill.creditor,
            today=today,
            category=categories[bill.category],
        )
    for name, creditor, month, day, amount in catalog.YEARLY_BILLS:
        build.schedule(
            main,
            date(first.year, month, day),
            "yearly",
            amount,
            creditor,
            today=today,
            category=categories[name],
        )
    build.schedule(
        accounts["joint"],
        today + timedelta(days=3),
        "everyOtherWeek",
        -60_000,
        "Cleaner",
        today=today,
        category=categories["Childcare"],
    )
