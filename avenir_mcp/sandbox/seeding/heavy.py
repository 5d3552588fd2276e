"""Generated heavy plans: any number of transactions, realistic in shape, for benchmarks.

`seed_heavy_plan(50_000)` gives three years of a busy household: ~60 categories with
targets, a few hundred payees where a few take most purchases (Zipf), monthly pay, bills,
transfers, card payments, splits, refunds, recent imports awaiting review, schedules and
budgets that cover most months. The content depends only on `transactions`, `seed` and
`today`; ids depend on the plan id, so copies coexist in one database.
"""

from __future__ import annotations

import random
from datetime import date

from django.db import transaction
from django.utils import timezone

from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.models import Account, Plan, Transaction, new_id
from avenir_mcp.sandbox.seeding import heavy_catalog as catalog
from avenir_mcp.sandbox.seeding.builder import PlanBuilder
from avenir_mcp.sandbox.seeding.heavy_parts import HeavyPlan
from avenir_mcp.sandbox.seeding.ids import IdSource


def heavy_month_count(transactions: int) -> int:
    """Months of history: one per `TRANSACTIONS_PER_MONTH`, between 1 and `MAX_MONTHS`."""
    return max(1, min(catalog.MAX_MONTHS, transactions // catalog.TRANSACTIONS_PER_MONTH))


def seed_heavy_plan(
    transactions: int, *, plan_id: str | None = None, seed: int = 0, today: date | None = None
) -> Plan:
    """Create a plan with exactly `transactions` transactions (starting balances and both
    legs of each transfer included; split lines are not transactions).

    Raises ValueError when `transactions` is below the accounts' starting balances.
    """
    today = today or timezone.localdate()
    first_month = add_months(month_of(today), 1 - heavy_month_count(transactions))
    with transaction.atomic():
        plan = ledger.create_plan(
            name=f"Heavy plan ({transactions} transactions, seed {seed})",
            first_month=first_month,
            plan_id=plan_id or new_id(),
        )
        accounts = _create_accounts(plan, first_month)
        room = transactions - Transaction.objects.filter(plan=plan).count()
        if room < 0:
            raise ValueError(
                f"A heavy plan has at least {transactions - room} transactions (starting balances)."
            )
        heavy = HeavyPlan(
            PlanBuilder(plan, IdSource(plan.id)), accounts, first_month, today, random.Random(seed)
        )
        heavy.fill(room)
        return heavy.build.save()


def _create_accounts(plan: Plan, first_month: date) -> dict[str, Account]:
    return {
        spec.key: ledger.create_account(
            plan, name=spec.name, type=spec.type, balance=spec.balance, date=first_month, sort_order=order
        )
        for order, spec in enumerate(catalog.ACCOUNTS)
    }
