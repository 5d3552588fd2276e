"""Generated heavy plans: exactly N transactions, the same content for the same seed, and
the shape of a real plan (months, categories with targets, a long tail of payees)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date

import pytest

from avenir_mcp.sandbox.models import (
    Category,
    MonthCategory,
    Plan,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
    new_id,
)
from avenir_mcp.sandbox.seeding import seed_heavy_plan
from avenir_mcp.sandbox.seeding.heavy import heavy_month_count
from tests.helpers.sandbox_side import get, transactions

TODAY = date(2026, 9, 17)


@pytest.fixture(scope="module")
def heavy() -> Plan:
    return seed_heavy_plan(2_400, seed=11, today=TODAY)


def test_it_has_exactly_the_transactions_asked_for_over_http(api, heavy):
    rows = transactions(api, heavy.id, heavy.first_month)

    assert len(rows) == 2_400
    assert Transaction.objects.filter(plan=heavy).count() == 2_400


@pytest.mark.parametrize("count", [9, 40, 301])
def test_small_plans_have_exactly_their_count_too(count):
    plan = seed_heavy_plan(count, seed=1, today=TODAY)

    assert Transaction.objects.filter(plan=plan, deleted=False).count() == count


def test_fewer_transactions_than_starting_balances_are_refused_and_nothing_is_created():
    plan_id = new_id()

    with pytest.raises(ValueError, match="at least 9"):
        seed_heavy_plan(8, plan_id=plan_id, today=TODAY)
    assert not Plan.objects.filter(pk=plan_id).exists()


def test_the_same_seed_gives_the_same_plan_and_another_seed_another():
    one, same = seed_heavy_plan(900, seed=5, today=TODAY), seed_heavy_plan(900, seed=5, today=TODAY)
    other = seed_heavy_plan(900, seed=6, today=TODAY)

    assert _content(one) == _content(same)
    assert _content(one) != _content(other)


def test_its_balances_are_the_sums_of_its_transactions_over_http(api, heavy):
    rows = transactions(api, heavy.id, heavy.first_month)
    totals = defaultdict(int)
    for row in rows:
        totals[row["account_id"]] += row["amount"]

    for account in get(api, f"/plans/{heavy.id}/accounts", "accounts"):
        assert account["balance"] == totals[account["id"]], account["name"]


def test_it_spans_months_in_proportion_to_its_size(heavy):
    months = {row.date.replace(day=1) for row in Transaction.objects.filter(plan=heavy)}

    assert len(months) == heavy_month_count(2_400) == 8
    assert heavy_month_count(50_000) == 36


def test_it_has_sixty_categories_in_ten_groups_with_targets(heavy):
    ordinary = Category.objects.filter(plan=heavy, role="", internal=False).exclude(
        group__name="Credit Card Payments"
    )

    assert ordinary.count() == 60
    assert ordinary.values("group").distinct().count() == 10
    assert set(ordinary.exclude(goal_type=None).values_list("goal_type", flat=True)) == {
        "NEED",
        "TB",
        "TBD",
        "MF",
        "DEBT",
    }
    assert MonthCategory.objects.filter(plan=heavy, budgeted__gt=0).values("month").distinct().count() == 8


def test_a_few_payees_take_most_purchases_and_many_are_rarely_used(heavy):
    rows = Transaction.objects.filter(plan=heavy, transfer_account=None).exclude(import_id=None)
    uses = sorted(Counter(rows.values_list("payee_id", flat=True)).values(), reverse=True)

    assert len(uses) >= 150
    assert sum(uses[:20]) > sum(uses) * 0.35  # evenly spread, 20 payees of ~300 would take 7 %
    assert sum(1 for count in uses if count <= 3) >= 50


def test_it_has_pay_transfers_splits_refunds_pending_imports_and_schedules(heavy):
    rows = Transaction.objects.filter(plan=heavy)

    assert rows.filter(category__role=Category.ROLE_READY_TO_ASSIGN, amount__gt=0).count() >= 2 * 8
    assert rows.exclude(transfer_account=None).count() >= 8 * 8
    assert (
        rows.filter(category__role=Category.ROLE_SPLIT).count()
        == (Subtransaction.objects.filter(plan=heavy).values("transaction").distinct().count())
        > 10
    )
    assert rows.filter(amount__gt=0, category__role="").count() > 10
    assert rows.filter(approved=False, category=None).count() > 5
    assert {"monthly", "yearly"} <= set(
        ScheduledTransaction.objects.filter(plan=heavy).values_list("frequency", flat=True)
    )


def _content(plan: Plan) -> list[tuple]:
    """A plan's transactions, lines, budgets and schedules as names and numbers, no ids."""
    rows = Transaction.objects.filter(plan=plan).values_list(
        "date",
        "amount",
        "account__name",
        "payee__name",
        "category__name",
        "memo",
        "cleared",
        "approved",
        "flag_color",
        "transfer_account__name",
        "import_id",
    )
    lines = Subtransaction.objects.filter(plan=plan).values_list(
        "transaction__date", "amount", "category__name"
    )
    budgets = MonthCategory.objects.filter(plan=plan).values_list(
        "month", "category__name", "budgeted", "activity"
    )
    schedules = ScheduledTransaction.objects.filter(plan=plan).values_list(
        "date_next", "frequency", "amount", "payee__name"
    )
    return [sorted(map(repr, query)) for query in (rows, lines, budgets, schedules)]
