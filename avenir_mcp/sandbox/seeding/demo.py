"""The demo plan: an invented household with six months of believable, noisy history.

`seed_demo_plan()` builds it; `demo_catalog` holds its content as data, `demo_history` the
months gone by, `demo_inbox` what is waiting for the person (pending imports, a duplicate,
a transfer-looking pair, memos that try to instruct an agent, the bank's queue). Each month's
assignments are recorded as money movements, with one move between categories last month.
Everything is deterministic given `today`; ids are deterministic given the plan id.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta

from django.db import transaction
from django.utils import timezone

from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.models import Account, Category, Plan, new_id
from avenir_mcp.sandbox.seeding import demo_catalog as catalog
from avenir_mcp.sandbox.seeding.builder import Flag, PlanBuilder
from avenir_mcp.sandbox.seeding.dates import on_day
from avenir_mcp.sandbox.seeding.demo_history import CASHED_CHEQUE, add_history
from avenir_mcp.sandbox.seeding.demo_inbox import add_inbox
from avenir_mcp.sandbox.seeding.household import Household
from avenir_mcp.sandbox.seeding.ids import IdSource
from avenir_mcp.sandbox.seeding.targets import (
    Target,
    balance_by_date,
    debt_payment,
    monthly_funding,
    monthly_need,
    target_balance,
    yearly_need,
)


def seed_demo_plan(plan_id: str | None = None, today: date | None = None) -> Plan:
    """Create the demo household as a new plan (`plan_id`, default a fresh uuid4).

    Its history runs from five months before `today`'s month (default: the server's local
    date) through `today`, so it always looks recent. Raises IntegrityError when a plan with
    that id exists.
    """
    today = today or timezone.localdate()
    first_month = add_months(month_of(today), 1 - catalog.MONTHS_OF_HISTORY)
    with transaction.atomic():
        plan = ledger.create_plan(
            name=catalog.DEMO_PLAN_NAME,
            first_month=first_month,
            plan_id=plan_id or new_id(),
            currency_format=dict(catalog.CURRENCY_FORMAT),
            date_format=dict(catalog.DATE_FORMAT),
        )
        accounts = _create_accounts(plan, first_month, today)
        build = PlanBuilder(plan, IdSource(plan.id))
        household = Household(
            build=build,
            accounts=accounts,
            categories={},
            months=[add_months(first_month, n) for n in range(catalog.MONTHS_OF_HISTORY)],
            today=today,
            rng=random.Random("avenir-mcp demo household"),
        )
        _add_categories(household)
        _assign_budgets(household)
        add_history(household)
        add_inbox(household)
        _add_schedules(household)
        _move_money(household)
        plan = build.save()
        _note_the_bank_balance(accounts["checking"])
        return plan


def _create_accounts(plan: Plan, first_month: date, today: date) -> dict[str, Account]:
    """The household's accounts, opened on the plan's first day with their starting balances."""
    accounts = {}
    for order, spec in enumerate(catalog.ACCOUNTS):
        accounts[spec.key] = ledger.create_account(
            plan,
            name=spec.name,
            type=spec.type,
            on_budget=spec.on_budget,
            balance=spec.balance,
            date=first_month,
            note=spec.note,
            direct_import_linked=spec.linked,
            direct_import_in_error=spec.link_broken,
            sort_order=order,
            **_account_extras(spec.key, first_month, today),
        )
    return accounts


def _note_the_bank_balance(checking: Account) -> None:
    """Checking's note gives the balance the bank shows: the cleared balance less the cheque the
    bank has cashed and the plan still shows uncleared (a gap for reconcile_account to explain)."""
    checking.refresh_from_db()
    bank = checking.cleared_balance + CASHED_CHEQUE
    whole, cents = divmod(abs(bank), 1000)
    shown = f"{'-' if bank < 0 else ''}{whole},{cents // 10:02d}"
    note = f"{checking.note}. The bank's app shows a balance of {shown}"
    Account.objects.filter(pk=checking.pk).update(note=note)


def _account_extras(key: str, first_month: date, today: date) -> dict:
    """Loan terms for the car loan, the reconciliation date of checking, the closed account."""
    if key == "car_loan":
        start = first_month.isoformat()
        return {
            "debt_interest_rates": {start: catalog.CAR_LOAN_RATE},
            "debt_minimum_payments": {start: catalog.CAR_LOAN_MINIMUM},
            "debt_escrow_amounts": {start: 0},
        }
    if key == "checking":
        reconciled_on = add_months(month_of(today), -1) + timedelta(days=2)
        return {"last_reconciled_at": datetime.combine(reconciled_on, time(18, 30), tzinfo=UTC)}
    if key == "old_bank":
        return {"closed": True}
    return {}


def _add_categories(household: Household) -> None:
    build, targets = household.build, _targets(household)
    for group_name, specs in catalog.GROUPS:
        group = build.group(group_name)
        for spec in specs:
            household.categories[spec.key] = build.category(
                group, spec.name, target=targets.get(spec.target or ""), hidden=spec.hidden, note=spec.note
            )
    card = Category.objects.get(plan=build.plan, linked_account=household.accounts["visa"])
    household.categories["visa_payment"] = card
    Category.objects.filter(pk=card.pk).update(
        **monthly_funding(catalog.CARD_DEBT_TARGET).model_fields(household.months[0])
    )


def _targets(household: Household) -> dict[str, Target]:
    """Every kind of target YNAB has, with due dates relative to the current month."""
    current, insurance_month = household.current_month, household.months[2]
    snoozed = datetime.combine(household.ago(10), time(9, 15), tzinfo=UTC)
    return {
        "need_rent": monthly_need(950_000, day=5),
        "refill_electricity": monthly_need(75_000, whole=False),
        "need_phone": monthly_need(55_000),
        "yearly_insurance": yearly_need(480_000, on_day(add_months(insurance_month, 12), 15)),
        "debt_car_loan": debt_payment(catalog.CAR_LOAN_MINIMUM, day=10),
        "need_transport": monthly_need(86_400, day=4),
        "refill_groceries": monthly_need(450_000, whole=False),
        "refill_dining": monthly_need(120_000, whole=False),
        "need_streaming": monthly_need(25_480),
        "need_gym": monthly_need(29_900, day=3),
        "balance_emergency": target_balance(10_000_000),
        "by_date_holidays": balance_by_date(1_800_000, add_months(current, 7)),
        "snoozed_laptop": balance_by_date(1_200_000, add_months(current, 10), snoozed_at=snoozed),
        "funding_car_upkeep": monthly_funding(50_000),
        "funding_retirement": monthly_funding(150_000),
    }


def _assign_budgets(household: Household) -> None:
    """Each month's assignments; the first month also builds the buffers and pays card debt."""
    for index, month in enumerate(household.months):
        for _group, specs in catalog.GROUPS:
            for spec in specs:
                amount = spec.monthly + (spec.first_month_extra if index == 0 else 0)
                if amount:
                    household.build.assign(household.categories[spec.key], month, amount)
        if index < 3:
            household.build.assign(household.categories["visa_payment"], month, catalog.CARD_DEBT_TARGET)


def _add_schedules(household: Household) -> None:
    """Monthly and yearly schedules (two of them transfers), all next due after today."""
    build, categories = household.build, household.categories
    for spec in catalog.SCHEDULES:
        category = (
            build.ready_to_assign
            if spec.category == "ready_to_assign"
            else categories.get(spec.category or "")
        )
        build.schedule(
            household.accounts[spec.account],
            on_day(add_months(household.months[0], spec.month), spec.day),
            spec.frequency,
            spec.amount,
            spec.payee,
            today=household.today,
            category=category,
            transfer_to=household.accounts[spec.transfer_to] if spec.transfer_to else None,
            memo=spec.memo,
            flag=Flag(*spec.flag) if spec.flag else None,
        )


def _move_money(household: Household) -> None:
    """Money moved between two categories in the last full month: its assigned totals stay as
    `_assign_budgets` made them; YNAB's money movements show the move (`PlanBuilder.move`)."""
    source, destination, amount, day, note = catalog.MONEY_MOVED
    month = household.months[-2]
    household.build.move(
        household.categories[source],
        household.categories[destination],
        month,
        amount,
        on_day(month, day),
        note=note,
    )
