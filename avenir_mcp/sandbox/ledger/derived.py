"""Recomputing every derived figure of a plan from its transactions (seeding, and the proof
that the incremental path agrees)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from django.db import transaction

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.budget_math.effects import total_effects
from avenir_mcp.sandbox.ledger.clock import utc_today
from avenir_mcp.sandbox.ledger.figures import ensure_months, refresh_age_of_money
from avenir_mcp.sandbox.ledger.loading import load_rules, load_views
from avenir_mcp.sandbox.models import (
    Account,
    Category,
    CategoryGroup,
    MoneyMovement,
    MoneyMovementGroup,
    Month,
    MonthCategory,
    Payee,
    PayeeLocation,
    Plan,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)

STAMPED_MODELS = (
    Account,
    CategoryGroup,
    Category,
    Month,
    MonthCategory,
    Payee,
    PayeeLocation,
    Transaction,
    Subtransaction,
    ScheduledTransaction,
    ScheduledSubtransaction,
    MoneyMovement,
    MoneyMovementGroup,
)


def rebuild_derived(plan: Plan) -> None:
    """Recompute balances, activity, month rows and age of money; stamp everything once."""
    with transaction.atomic():
        locked = Plan.objects.select_for_update().get(pk=plan.pk)
        knowledge = locked.server_knowledge + 1
        rules = load_rules(locked)
        totals = total_effects(load_views(locked).values(), rules)
        _write_balances(locked, totals.balances)
        _write_activity(locked, totals.activity)
        _span_months(locked, knowledge)
        refresh_age_of_money(locked, utc_today())
        for model in STAMPED_MODELS:
            model.objects.filter(plan=locked).update(knowledge=knowledge)
        locked.server_knowledge = knowledge
        locked.save(update_fields=["server_knowledge", "first_month", "last_month", "last_modified_on"])
    plan.refresh_from_db()


def _write_balances(plan: Plan, balances: Mapping[tuple[str, bool], int]) -> None:
    accounts = list(Account.objects.filter(plan=plan).only("id", "cleared_balance", "uncleared_balance"))
    for account in accounts:
        account.cleared_balance = balances.get((account.id, True), 0)
        account.uncleared_balance = balances.get((account.id, False), 0)
    Account.objects.bulk_update(accounts, ["cleared_balance", "uncleared_balance"], batch_size=500)


def _write_activity(plan: Plan, activity: Mapping[tuple[str, date], int]) -> None:
    rows = {
        (row.category_id, row.month): row
        for row in MonthCategory.objects.filter(plan=plan).only("id", "category_id", "month", "activity")
    }
    for key, row in rows.items():
        row.activity = activity.get(key, 0)
    MonthCategory.objects.bulk_update(list(rows.values()), ["activity"], batch_size=500)
    missing = [
        MonthCategory(plan=plan, category_id=category_id, month=month, activity=amount)
        for (category_id, month), amount in activity.items()
        if (category_id, month) not in rows and amount
    ]
    MonthCategory.objects.bulk_create(missing, batch_size=500)


def _span_months(plan: Plan, knowledge: int) -> None:
    """Month rows from the first month with figures through next month (or the last assigned)."""
    months = list(MonthCategory.objects.filter(plan=plan).values_list("month", flat=True).distinct())
    first = min([plan.first_month, *months])
    last = max([add_months(month_of(utc_today()), 1), *months])
    ensure_months(plan, month_of(first), month_of(last), knowledge)
