"""The pure budget arithmetic: transaction effects, month figures, goals, age of money."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from avenir_mcp.sandbox.budget_math.age_of_money import CashFlow, FifoState, ages_of_money
from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.budget_math.effects import (
    AccountRules,
    Line,
    PlanRules,
    TransactionView,
    total_effects,
)
from avenir_mcp.sandbox.budget_math.goals import Goal, goal_progress
from avenir_mcp.sandbox.budget_math.months import CategoryMonth, plan_months

JAN = date(2026, 1, 1)
RULES = PlanRules(
    accounts={
        "cash": AccountRules(on_budget=True),
        "wallet": AccountRules(on_budget=True),
        "card": AccountRules(on_budget=True, payment_category_id="pay-card"),
        "house": AccountRules(on_budget=False),
    },
    ready_to_assign_id="rta",
    uncategorized_id="uncat",
    ordinary_category_ids=frozenset({"food", "fun"}),
    starting_balance_payee_id="start",
)


def _view(account, amount, category=None, transfer=None, day=JAN, payee=None, lines=None):
    return TransactionView(
        account, day, amount, "cleared", payee, lines or (Line(amount, category, transfer),)
    )


def _activity(*views):
    return {k: v for k, v in total_effects(views, RULES).nonzero().activity.items()}


def test_card_spending_moves_the_amount_to_the_cards_payment_category():
    assert _activity(_view("card", -40, "food")) == {("food", JAN): -40, ("pay-card", JAN): 40}


def test_a_card_payment_is_payment_activity_and_moves_no_other_category():
    assert _activity(_view("cash", -40, transfer="card"), _view("card", 40, transfer="cash")) == {
        ("pay-card", JAN): -40
    }


def test_a_cards_starting_debt_moves_no_category_but_other_uncategorised_spending_does():
    assert _activity(_view("card", -500, payee="start")) == {}
    assert _activity(_view("card", -5)) == {("uncat", JAN): -5}


def test_tracking_accounts_move_no_category_and_split_lines_each_move_theirs():
    split = _view("cash", -30, lines=(Line(-10, "food"), Line(-20, "fun")))

    assert _activity(_view("house", 1_000, "food")) == {}
    assert _activity(split) == {("food", JAN): -10, ("fun", JAN): -20}


def test_overspending_is_taken_from_next_months_ready_to_assign_not_carried():
    amounts = {JAN: {"rta": (0, 1_000), "food": (100, -150)}, add_months(JAN, 1): {"food": (50, 0)}}

    jan, feb = plan_months([JAN, add_months(JAN, 1)], ["rta", "food"], amounts, "rta")

    assert jan.categories["food"] == CategoryMonth(100, -150, -50, 0)
    assert feb.categories["food"] == CategoryMonth(50, 0, 50, 0)
    assert (jan.to_be_budgeted, feb.to_be_budgeted) == (900, 800)


flows = st.lists(
    st.tuples(
        st.integers(0, 89),  # day offset
        st.sampled_from(["cash", "wallet"]),
        st.sampled_from(["rta", "food", "fun", None]),
        st.integers(-50_000, 50_000),
    ),
    max_size=40,
)
budgets = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(["food", "fun"]), st.integers(0, 40_000)), max_size=6
)


@settings(max_examples=150, deadline=None)
@given(flows, budgets)
def test_ready_to_assign_plus_every_available_equals_the_money_in_cash_accounts(txns, assigned):
    months = [JAN, add_months(JAN, 1), add_months(JAN, 2)]
    views = [
        _view(account, amount, category, day=JAN + timedelta(days=d)) for d, account, category, amount in txns
    ]
    amounts: dict[date, dict[str, tuple[int, int]]] = defaultdict(dict)
    for (category, month), activity in total_effects(views, RULES).activity.items():
        amounts[month][category] = (0, activity)
    for offset, category, amount in assigned:
        _, activity = amounts[months[offset]].get(category, (0, 0))
        amounts[months[offset]][category] = (amount, activity)

    figures = plan_months(months, ["rta", "uncat", "food", "fun"], amounts, "rta")

    for month, month_figures in zip(months, figures, strict=True):
        cash = sum(v.amount for v in views if month_of(v.date) <= month)
        available = sum(f.balance for c, f in month_figures.categories.items() if c != "rta")
        assert month_figures.to_be_budgeted + available == cash


def test_monthly_funding_and_debt_goals_ask_for_the_target_every_month():
    figures = CategoryMonth(budgeted=30, activity=-30, balance=0, carried=0)

    progress = goal_progress(Goal("MF", 100), JAN, figures)

    assert (progress.under_funded, progress.overall_funded, progress.percentage_complete) == (70, 30, 30)
    assert goal_progress(Goal("DEBT", 100), JAN, figures).under_funded == 70


def test_a_target_balance_by_date_spreads_what_is_left_over_the_months_left():
    figures = CategoryMonth(budgeted=0, activity=0, balance=200, carried=200)

    progress = goal_progress(Goal("TBD", 1_200, target_date=date(2026, 5, 15)), JAN, figures)

    assert (progress.months_to_budget, progress.under_funded, progress.overall_left) == (5, 200, 1_000)


def test_a_refill_need_counts_what_carried_in_and_a_set_aside_need_does_not():
    figures = CategoryMonth(budgeted=20, activity=0, balance=80, carried=60)

    refill = goal_progress(
        Goal("NEED", 100, needs_whole_amount=False, cadence=1, cadence_frequency=1), JAN, figures
    )
    set_aside = goal_progress(
        Goal("NEED", 100, needs_whole_amount=True, cadence=1, cadence_frequency=1), JAN, figures
    )

    assert (refill.under_funded, refill.overall_funded) == (20, 80)
    assert (set_aside.under_funded, set_aside.overall_funded) == (80, 20)


def test_a_yearly_need_spreads_the_target_over_the_year():
    goal = Goal("NEED", 1_200, cadence=13, cadence_frequency=1, creation_month=JAN, needs_whole_amount=False)

    progress = goal_progress(goal, add_months(JAN, 2), CategoryMonth(0, 0, 200, 200))

    assert (progress.months_to_budget, progress.under_funded) == (10, 100)


def test_a_target_balance_without_date_asks_for_what_is_missing():
    progress = goal_progress(Goal("TB", 500), JAN, CategoryMonth(100, 0, 300, 200))

    assert (progress.under_funded, progress.overall_left, progress.months_to_budget) == (200, 200, None)


def test_age_of_money_spends_the_oldest_money_first():
    flows = [
        CashFlow(JAN, 100),
        CashFlow(JAN + timedelta(days=10), 100),
        CashFlow(JAN + timedelta(days=20), -150),
    ]

    ages, _ = ages_of_money(flows, [JAN], today=date(2026, 6, 1))

    # 100 was 20 days old and 50 was 10 days old: (100*20 + 50*10) / 150 = 16.
    assert ages[JAN] == 16


def test_age_of_money_is_null_before_any_spending():
    ages, _ = ages_of_money([CashFlow(JAN, 100)], [JAN], today=date(2026, 6, 1))

    assert ages[JAN] is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 89), st.integers(-5_000, 5_000)), max_size=40), st.integers(1, 2))
def test_age_of_money_resumed_from_a_months_state_equals_a_full_replay(raw, split_at):
    months = [JAN, add_months(JAN, 1), add_months(JAN, 2)]
    cash = [CashFlow(JAN + timedelta(days=d), a) for d, a in raw]
    today = date(2026, 6, 1)
    full, states = ages_of_money(cash, months, today)

    later = [f for f in cash if f.date >= months[split_at]]
    resumed, _ = ages_of_money(later, months[split_at:], today, FifoState.from_json(states[months[split_at]]))

    assert resumed == {m: full[m] for m in months[split_at:]}
