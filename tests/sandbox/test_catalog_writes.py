"""Categories, groups and payees written through the API, with YNAB's rules and refusals."""

from __future__ import annotations

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account, Category


def _category(api, home, category_id):
    return api.get(f"/plans/{home.id}/categories/{category_id}").json()["data"]["category"]


def test_a_new_category_with_a_target_gets_a_monthly_need_goal(api, home):
    created = api.post(
        f"/plans/{home.id}/categories",
        json={
            "category": {
                "name": "Gifts",
                "category_group_id": home.everyday_group,
                "goal_target": 60_000,
            }
        },
    )

    category = created.json()["data"]["category"]
    assert created.status_code == 201
    assert (category["goal_type"], category["goal_cadence"], category["goal_target"]) == ("NEED", 1, 60_000)
    assert (category["goal_under_funded"], category["goal_percentage_complete"]) == (60_000, 0)


def test_goal_progress_follows_what_is_assigned(api, home):
    api.patch(f"/plans/{home.id}/categories/{home.rent}", json={"category": {"goal_target": 1_000_000}})

    api.patch(
        f"/plans/{home.id}/months/current/categories/{home.rent}", json={"category": {"budgeted": 400_000}}
    )
    category = _category(api, home, home.rent)

    assert category["goal_under_funded"] == 600_000
    assert category["goal_overall_left"] == 600_000
    assert category["goal_percentage_complete"] == 40


def test_a_null_target_removes_the_goal_and_a_frequency_needs_a_target(api, home):
    api.patch(f"/plans/{home.id}/categories/{home.dining}", json={"category": {"goal_target": 50_000}})

    removed = api.patch(
        f"/plans/{home.id}/categories/{home.dining}", json={"category": {"goal_target": None}}
    )
    refused = api.patch(
        f"/plans/{home.id}/categories/{home.dining}", json={"category": {"goal_frequency": "weekly"}}
    )

    assert removed.json()["data"]["category"]["goal_type"] is None
    assert refused.status_code == 400
    assert refused.json()["error"]["detail"] == "goal_frequency requires goal_target"


def test_a_weekly_target_needs_its_amount_every_week_of_the_month(api, home):
    response = api.patch(
        f"/plans/{home.id}/categories/{home.groceries}",
        json={
            "category": {
                "goal_target": 100_000,
                "goal_frequency": "weekly",
            }
        },
    )

    category = response.json()["data"]["category"]
    assert (category["goal_type"], category["goal_cadence"]) == ("NEED", 2)
    assert category["goal_under_funded"] in (400_000, 500_000)  # four or five such weekdays


def test_a_category_can_be_renamed_and_moved_but_not_into_an_internal_group(api, home):
    internal_group = Category.objects.get(pk=home.uncategorized).group_id
    bills = Category.objects.get(pk=home.rent).group_id

    moved = api.patch(
        f"/plans/{home.id}/categories/{home.dining}",
        json={
            "category": {
                "name": "Restaurants",
                "category_group_id": bills,
            }
        },
    )
    refused = api.patch(
        f"/plans/{home.id}/categories/{home.dining}",
        json={
            "category": {
                "category_group_id": internal_group,
            }
        },
    )

    assert moved.json()["data"]["category"]["category_group_name"] == "Bills"
    assert moved.json()["data"]["category"]["name"] == "Restaurants"
    assert refused.json()["error"]["detail"] == "category_group_id must not be an internal category group"


def test_internal_categories_refuse_changes_and_assignments(api, home):
    rename = api.patch(
        f"/plans/{home.id}/categories/{home.ready_to_assign}", json={"category": {"name": "x"}}
    )
    assign = api.patch(
        f"/plans/{home.id}/months/current/categories/{home.uncategorized}", json={"category": {"budgeted": 5}}
    )

    assert (rename.status_code, assign.status_code) == (400, 400)


def test_category_groups_are_created_and_renamed(api, home):
    created = api.post(f"/plans/{home.id}/category_groups", json={"category_group": {"name": "Travel"}})
    group_id = created.json()["data"]["category_group"]["id"]

    renamed = api.patch(
        f"/plans/{home.id}/category_groups/{group_id}", json={"category_group": {"name": "Trips"}}
    )
    reserved = api.post(
        f"/plans/{home.id}/category_groups", json={"category_group": {"name": "Credit Card Payments"}}
    )

    assert created.status_code == 201
    assert renamed.json()["data"]["category_group"] == {
        "id": group_id,
        "name": "Trips",
        "hidden": False,
        "internal": False,
        "deleted": False,
    }
    assert reserved.status_code == 400


def test_payees_are_created_and_renamed_but_not_transfer_payees(api, home):
    created = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Bakery"}}).json()["data"]["payee"]
    transfer_payee = Account.objects.get(pk=home.savings).transfer_payee_id

    renamed = api.patch(f"/plans/{home.id}/payees/{created['id']}", json={"payee": {"name": "Boulangerie"}})
    refused = api.patch(f"/plans/{home.id}/payees/{transfer_payee}", json={"payee": {"name": "Piggy bank"}})

    assert renamed.json()["data"]["payee"]["name"] == "Boulangerie"
    assert refused.status_code == 400


def test_a_new_credit_card_gets_its_payment_category_and_its_debt(api, home):
    created = api.post(
        f"/plans/{home.id}/accounts",
        json={
            "account": {
                "name": "Store card",
                "type": "creditCard",
                "balance": -150_000,
            }
        },
    )

    account = created.json()["data"]["account"]
    groups = api.get(f"/plans/{home.id}/categories").json()["data"]["category_groups"]
    payments = next(g for g in groups if g["name"] == "Credit Card Payments")
    assert created.status_code == 201
    assert (account["balance"], account["on_budget"]) == (-150_000, True)
    assert "Store card" in {c["name"] for c in payments["categories"]}


def test_an_account_type_the_api_cannot_create_is_refused(api, home):
    response = api.post(
        f"/plans/{home.id}/accounts",
        json={
            "account": {
                "name": "Mortgage",
                "type": "mortgage",
                "balance": -1,
            }
        },
    )

    assert response.status_code == 400
    assert response.json()["error"]["detail"].startswith("type must be one of: checking")


def test_assigning_money_is_recorded_as_a_money_movement(api, home):
    url = f"/plans/{home.id}/months/current/categories/{home.groceries}"
    api.patch(url, json={"category": {"budgeted": 200_000}}).raise_for_status()
    api.patch(url, json={"category": {"budgeted": 150_000}}).raise_for_status()

    movements = api.get(f"/plans/{home.id}/months/current/money_movements").json()["data"]["money_movements"]
    groups = api.get(f"/plans/{home.id}/money_movement_groups").json()["data"]["money_movement_groups"]

    assert [(m["from_category_id"], m["to_category_id"], m["amount"]) for m in movements] == [
        (None, home.groceries, 200_000),
        (home.groceries, None, 50_000),
    ]
    assert {m["money_movement_group_id"] for m in movements} == {g["id"] for g in groups}


def test_a_category_name_is_unique_in_its_group_whatever_the_case(api, home):
    bills = Category.objects.get(pk=home.rent).group_id

    created = api.post(
        f"/plans/{home.id}/categories",
        json={"category": {"name": "GROCERIES", "category_group_id": home.everyday_group}},
    )
    renamed = api.patch(
        f"/plans/{home.id}/categories/{home.dining}", json={"category": {"name": "groceries"}}
    )
    moved = api.patch(
        f"/plans/{home.id}/categories/{home.groceries}",
        json={"category": {"name": "rent", "category_group_id": bills}},
    )
    elsewhere = api.post(
        f"/plans/{home.id}/categories", json={"category": {"name": "Groceries", "category_group_id": bills}}
    )
    own_case = api.patch(
        f"/plans/{home.id}/categories/{home.dining}", json={"category": {"name": "DINING OUT"}}
    )

    assert [answer.status_code for answer in (created, renamed, moved)] == [400, 400, 400]
    assert created.json()["error"]["detail"] == (
        "name 'GROCERIES' is already used by another category in this category group"
    )
    assert (elsewhere.status_code, own_case.status_code) == (201, 200)
    assert Category.objects.get(pk=home.groceries).group_id == home.everyday_group


def test_a_payee_name_is_unique_whatever_the_case_since_payees_cannot_be_merged(api, home):
    bakery = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Bakery"}}).json()["data"]["payee"]
    market = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Market"}}).json()["data"]["payee"]

    twice = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "BAKERY"}})
    taken = api.patch(f"/plans/{home.id}/payees/{market['id']}", json={"payee": {"name": "bakery"}})
    own_case = api.patch(f"/plans/{home.id}/payees/{bakery['id']}", json={"payee": {"name": "BAKERY"}})

    assert (twice.status_code, taken.status_code, own_case.status_code) == (400, 400, 200)
    assert taken.json()["error"]["detail"] == "name 'bakery' is already used by another payee"


def test_a_target_date_makes_a_dated_target_of_a_repeating_one_and_a_balance_by_date_of_a_balance(api, home):
    def patch(category_id, **fields):
        answer = api.patch(f"/plans/{home.id}/categories/{category_id}", json={"category": fields})
        assert answer.status_code == 200, answer.text
        category = answer.json()["data"]["category"]
        return category["goal_type"], category["goal_cadence"], category["goal_target_date"]

    patch(home.groceries, goal_target=50_000, goal_frequency="weekly")
    Category.objects.filter(pk=home.rent).update(goal_type="TB", goal_target=900_000, goal_cadence=0)

    dated = patch(home.groceries, goal_target=60_000, goal_target_date="2099-01-01")
    balance = patch(home.rent, goal_target=900_000, goal_target_date="2099-01-01")
    card = patch(home.card_payment, goal_target=70_000)

    assert dated == ("NEED", 0, "2099-01-01")
    assert balance[0::2] == ("TBD", "2099-01-01")
    assert card == ("MF", 1, None)  # a card's payment target is monthly


def test_a_new_accounts_balance_is_a_starting_balance_transaction_of_today(api, home):
    """On budget the balance is money to assign; on a tracking account it has no category."""
    opened = {}
    for name, kind, balance in (("Emergency fund", "savings", 2_500_000), ("Car", "otherAsset", 8_000_000)):
        answer = api.post(
            f"/plans/{home.id}/accounts", json={"account": {"name": name, "type": kind, "balance": balance}}
        )
        assert answer.status_code == 201, answer.text
        opened[name] = answer.json()["data"]["account"]

    def starting(account):
        rows = api.get(f"/plans/{home.id}/accounts/{account['id']}/transactions").json()["data"][
            "transactions"
        ]
        return [(t["date"], t["payee_name"], t["amount"], t["category_name"], t["cleared"]) for t in rows]

    today = utc_today().isoformat()
    fund, car = opened["Emergency fund"], opened["Car"]
    assert (fund["on_budget"], fund["balance"], fund["cleared_balance"]) == (True, 2_500_000, 2_500_000)
    assert starting(fund) == [(today, "Starting Balance", 2_500_000, "Inflow: Ready to Assign", "cleared")]
    assert (car["on_budget"], car["balance"]) == (False, 8_000_000)
    assert starting(car) == [(today, "Starting Balance", 8_000_000, None, "cleared")]


def test_a_categorys_note_is_set_with_its_line_breaks_and_removed_with_null(api, home):
    def patch(note):
        path = f"/plans/{home.id}/categories/{home.groceries}"
        answer = api.patch(path, json={"category": {"note": note}})
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]["category"]["note"], _category(api, home, home.groceries)["note"]

    assert patch("Market on Saturdays\nno more than 80") == ("Market on Saturdays\nno more than 80",) * 2
    assert patch(None) == (None, None)
