"""Queries the sandbox compiles once (`sandbox.ledger.rows.PreparedRows`) give the rows the
queryset gives, for every plan and argument, and refuse what they cannot run safely."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.models import Category, Month, Transaction
from tests.sandbox.plans import small_plan

GOAL_COLUMNS = ("id", "name", "hidden", "goal_needs_whole_amount", "goal_target_date", "goal_snoozed_at")


def _goals(plan_id: str):
    return Category.objects.filter(plan_id=plan_id).order_by("sort_order", "name").values_list(*GOAL_COLUMNS)


def _months(plan_id: str):
    return Month.objects.filter(plan_id=plan_id).values_list("month", "age_of_money", "fifo_state")


def _since(plan_id: str, day: date):
    rows = Transaction.objects.filter(plan_id=plan_id, date__gte=day)
    return rows.order_by("id").values_list("id", "amount")


GOALS, MONTHS, SINCE = PreparedRows(_goals), PreparedRows(_months), PreparedRows(_since, str, date)
PLAIN_SINCE = PreparedRows(_since, str, date, plain=True)  # plain columns: the adapter's values


def test_rows_are_the_querysets_for_each_plan_and_argument():
    first, second = small_plan("Prepared one"), small_plan("Prepared two")
    snoozed = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    Category.objects.filter(pk=first.groceries).update(
        goal_snoozed_at=snoozed, goal_needs_whole_amount=True, goal_target_date=date(2026, 1, 1), hidden=True
    )

    for home in (first, second):
        assert GOALS.fetch(home.id) == list(_goals(home.id))
        assert MONTHS.fetch(home.id) == list(_months(home.id))
        for day in (home.first_month, home.this_month):
            assert SINCE.fetch(home.id, day) == list(_since(home.id, day))
            assert PLAIN_SINCE.fetch(home.id, day) == list(_since(home.id, day))
    groceries = next(row for row in GOALS.fetch(first.id) if row[0] == first.groceries)
    assert groceries[1:] == ("Groceries", True, True, date(2026, 1, 1), snoozed)
    assert any(isinstance(state, dict) for _, _, state in MONTHS.fetch(first.id))  # JSON decoded
    assert {row[0] for row in GOALS.fetch(second.id)}.isdisjoint(row[0] for row in GOALS.fetch(first.id))


def test_it_refuses_a_query_whose_argument_is_not_a_plain_parameter():
    home = small_plan("Prepared refusals")
    escaped = PreparedRows(lambda name: Category.objects.filter(name__contains=name).values_list("id"))
    unused = PreparedRows(lambda plan_id: Category.objects.values_list("id"))

    for query in (escaped, unused):
        with pytest.raises(ValueError, match="not plain SQL parameters"):
            query.fetch(home.id)
    with pytest.raises(TypeError, match="takes 2 argument"):
        SINCE.fetch(home.id)
