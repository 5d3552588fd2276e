"""Month arithmetic over HTTP: assigned, activity, available with carry-over, overspending,
income, Ready to Assign, credit card payment moves and age of money."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.models import Account
from tests.sandbox.scene import transaction


def _assign(api, home, month, category_id, amount):
    url = f"/plans/{home.id}/months/{month.isoformat()}/categories/{category_id}"
    response = api.patch(url, json={"category": {"budgeted": amount}})
    assert response.status_code == 200, response.text
    return response.json()["data"]["category"]


def _month(api, home, month):
    return api.get(f"/plans/{home.id}/months/{month.isoformat()}").json()["data"]["month"]


def _category_in(month_body, category_id):
    return next(c for c in month_body["categories"] if c["id"] == category_id)


def test_available_money_carries_into_the_next_month(api, home):
    _assign(api, home, home.month(0), home.groceries, 100_000)
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(0).isoformat(),
        amount=-30_000,
        category_id=home.groceries,
    )

    first = _category_in(_month(api, home, home.month(0)), home.groceries)
    second = _category_in(_month(api, home, home.month(1)), home.groceries)

    assert (first["budgeted"], first["activity"], first["balance"]) == (100_000, -30_000, 70_000)
    assert (second["budgeted"], second["activity"], second["balance"]) == (0, 0, 70_000)


def test_overspending_does_not_carry_and_comes_out_of_next_months_ready_to_assign(api, home):
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(0).isoformat(),
        amount=-50_000,
        category_id=home.dining,
    )

    first = _month(api, home, home.month(0))
    second = _month(api, home, home.month(1))

    assert _category_in(first, home.dining)["balance"] == -50_000
    assert _category_in(second, home.dining)["balance"] == 0
    # Starting balances (1,000 + 500) are the only income; nothing assigned.
    assert first["to_be_budgeted"] == 1_500_000
    assert second["to_be_budgeted"] == 1_450_000


def test_ready_to_assign_is_income_less_what_is_assigned(api, home):
    _assign(api, home, home.month(0), home.rent, 900_000)
    _assign(api, home, home.month(1), home.rent, 900_000)
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=2_000_000,
        payee_name="Employer",
        category_id=home.ready_to_assign,
    )

    first = _month(api, home, home.month(0))
    second = _month(api, home, home.month(1))

    assert (first["income"], first["budgeted"], first["to_be_budgeted"]) == (1_500_000, 900_000, 600_000)
    assert (second["income"], second["budgeted"], second["to_be_budgeted"]) == (2_000_000, 900_000, 1_700_000)
    ready = _category_in(second, home.ready_to_assign)
    assert (ready["activity"], ready["balance"]) == (2_000_000, 1_700_000)


def test_month_activity_leaves_income_out(api, home):
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=-20_000,
        category_id=home.groceries,
    )
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=300_000,
        category_id=home.ready_to_assign,
    )

    month = _month(api, home, home.month(1))

    assert (month["income"], month["activity"]) == (300_000, -20_000)


def test_card_spending_moves_money_to_the_payment_category_and_a_payment_takes_it_out(api, home):
    month = home.this_month
    _assign(api, home, month, home.dining, 100_000)
    transaction(
        api, home.id, account_id=home.card, date=month.isoformat(), amount=-40_000, category_id=home.dining
    )

    spent = _month(api, home, month)
    card_payee = Account.objects.get(pk=home.card).transfer_payee_id
    transaction(
        api, home.id, account_id=home.checking, date=month.isoformat(), amount=-40_000, payee_id=card_payee
    )
    paid = _month(api, home, month)

    assert _category_in(spent, home.dining)["balance"] == 60_000
    assert _category_in(spent, home.card_payment)["activity"] == 40_000
    assert _category_in(spent, home.card_payment)["balance"] == 40_000
    assert _category_in(paid, home.card_payment)["balance"] == 0
    card = api.get(f"/plans/{home.id}/accounts/{home.card}").json()["data"]["account"]
    assert card["balance"] == 0


def test_uncategorised_spending_lands_in_uncategorized(api, home):
    transaction(api, home.id, account_id=home.checking, date=home.this_month.isoformat(), amount=-12_000)

    month = _month(api, home, home.this_month)

    assert _category_in(month, home.uncategorized)["activity"] == -12_000


def test_tracking_accounts_move_no_category(api, home):
    transaction(
        api,
        home.id,
        account_id=home.house,
        date=home.this_month.isoformat(),
        amount=5_000_000,
        category_id=home.groceries,
    )

    month = _month(api, home, home.this_month)

    assert _category_in(month, home.groceries)["activity"] == 0
    assert (
        api.get(f"/plans/{home.id}/accounts/{home.house}").json()["data"]["account"]["balance"] == 255_000_000
    )


def test_age_of_money_counts_days_since_the_money_arrived(api, home):
    spend_day = home.first_month + timedelta(days=20)
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=spend_day.isoformat(),
        amount=-10_000,
        category_id=home.groceries,
    )

    month = _month(api, home, home.month(0))

    # The starting balances arrived on the plan's first day; the money spent was 20 days old.
    assert month["age_of_money"] == 20


def test_category_endpoints_show_the_current_months_figures(api, home):
    _assign(api, home, home.this_month, home.groceries, 80_000)
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.this_month.isoformat(),
        amount=-5_000,
        category_id=home.groceries,
    )

    category = api.get(f"/plans/{home.id}/categories/{home.groceries}").json()["data"]["category"]

    assert (category["budgeted"], category["activity"], category["balance"]) == (80_000, -5_000, 75_000)
    assert category["balance_formatted"] == "$75.00"
    assert category["activity_currency"] == -5.0
