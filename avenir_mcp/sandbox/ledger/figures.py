"""Writing the materialised figures: balances, activity, month rows, age of money, stamps."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date

from django.db.models import F

from avenir_mcp.sandbox.budget_math.age_of_money import FifoState, ages_of_money
from avenir_mcp.sandbox.budget_math.calendar import months_between
from avenir_mcp.sandbox.ledger.loading import cash_flows
from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.models import Account, Category, Month, MonthCategory, Plan


def apply_balances(plan: Plan, deltas: Mapping[tuple[str, bool], int], knowledge: int) -> None:
    """Add balance differences ((account, cleared?) -> milliunits) and stamp those accounts."""
    per_account: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (account_id, cleared), amount in deltas.items():
        per_account[account_id][0 if cleared else 1] += amount
    for account_id, (cleared, uncleared) in per_account.items():
        Account.objects.filter(plan=plan, pk=account_id).update(
            cleared_balance=F("cleared_balance") + cleared,
            uncleared_balance=F("uncleared_balance") + uncleared,
            knowledge=knowledge,
        )


def apply_activity(plan: Plan, deltas: Mapping[tuple[str, date], int], knowledge: int) -> None:
    """Add activity differences ((category, month) -> milliunits), creating missing rows."""
    for (category_id, month), amount in deltas.items():
        updated = MonthCategory.objects.filter(category_id=category_id, month=month).update(
            activity=F("activity") + amount, knowledge=knowledge
        )
        if not updated:
            MonthCategory.objects.create(
                plan=plan, category_id=category_id, month=month, activity=amount, knowledge=knowledge
            )


def ensure_months(plan: Plan, first: date, last: date, knowledge: int) -> None:
    """Make the plan span `first`..`last` (at least), creating the Month rows it lacks."""
    plan.first_month = min(plan.first_month, first)
    plan.last_month = max(plan.last_month, last)
    existing = set(Month.objects.filter(plan=plan).values_list("month", flat=True))
    Month.objects.bulk_create(
        [
            Month(plan=plan, month=month, knowledge=knowledge)
            for month in months_between(plan.first_month, plan.last_month)
            if month not in existing
        ]
    )


_MONTH_ROWS = PreparedRows(
    lambda plan_id: (
        Month.objects.filter(plan_id=plan_id)
        .order_by("month")
        .values_list("id", "month", "age_of_money", "fifo_state")
    )
)


def refresh_age_of_money(plan: Plan, today: date, from_month: date | None = None) -> date | None:
    """Recompute age of money from `from_month` on (all months when None, or when that
    month's starting FIFO state is unknown); the earliest month whose figure changed."""
    rows = [
        Month(id=month_id, month=month, age_of_money=age, fifo_state=state)
        for month_id, month, age, state in _MONTH_ROWS.fetch(plan.pk)
    ]
    first = next((i for i, row in enumerate(rows) if from_month and row.month >= from_month), 0)
    if first and rows[first].fifo_state is None:
        first = 0
    rows = rows[first:]
    start = FifoState.from_json(rows[0].fifo_state) if first else None
    flows = cash_flows(plan, since=rows[0].month if first else None)
    ages, states = ages_of_money(flows, [row.month for row in rows], today, start)
    aged = [row.month for row in rows if row.age_of_money != ages[row.month]]
    changed = [
        row for row in rows if (row.age_of_money, row.fifo_state) != (ages[row.month], states[row.month])
    ]
    for row in changed:
        row.age_of_money, row.fifo_state = ages[row.month], states[row.month]
    Month.objects.bulk_update(changed, ["age_of_money", "fifo_state"], batch_size=500)
    return aged[0] if aged else None


def stamp_months_from(plan: Plan, month: date, knowledge: int) -> None:
    Month.objects.filter(plan=plan, month__gte=month).update(knowledge=knowledge)


def stamp_categories(plan: Plan, category_ids: Iterable[str], knowledge: int) -> None:
    ids = list(category_ids)
    if ids:
        Category.objects.filter(plan=plan, id__in=ids).update(knowledge=knowledge)
