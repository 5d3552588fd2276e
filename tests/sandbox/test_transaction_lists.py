"""Transaction lists and their filters, hybrid rows for categories and payees, schedules."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account
from tests.sandbox.scene import transaction

TODAY = utc_today()


def _ids(response):
    assert response.status_code == 200, response.text
    return [t["id"] for t in response.json()["data"]["transactions"]]


def test_the_category_list_shows_split_lines_as_subtransaction_rows(api, home):
    plain = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY.isoformat(),
        amount=-1_000,
        category_id=home.groceries,
    )
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY.isoformat(),
        amount=-5_000,
        payee_name="Market",
        subtransactions=[
            {"amount": -2_000, "category_id": home.groceries, "memo": "veg"},
            {"amount": -3_000, "category_id": home.dining},
        ],
    )

    rows = api.get(f"/plans/{home.id}/categories/{home.groceries}/transactions").json()["data"][
        "transactions"
    ]

    by_type = {r["type"]: r for r in rows}
    assert by_type["transaction"]["id"] == plain["id"]
    line = by_type["subtransaction"]
    assert (line["id"], line["parent_transaction_id"]) == (split["subtransactions"][0]["id"], split["id"])
    assert (line["amount"], line["memo"], line["payee_name"]) == (-2_000, "veg", "Market")


def test_the_payee_list_shows_the_payees_transactions(api, home):
    bought = transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1_500, payee_name="Cafe"
    )
    transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1_500, payee_name="Bar"
    )

    rows = api.get(f"/plans/{home.id}/payees/{bought['payee_id']}/transactions").json()["data"][
        "transactions"
    ]

    assert [(r["id"], r["type"], r["payee_name"]) for r in rows] == [(bought["id"], "transaction", "Cafe")]


def test_the_lists_filter_by_dates_type_account_and_month(api, home):
    old = transaction(api, home.id, account_id=home.checking, date=home.first_month.isoformat(), amount=-1)
    new = transaction(
        api,
        home.id,
        account_id=home.savings,
        date=TODAY.isoformat(),
        amount=-2,
        approved=True,
        category_id=home.dining,
    )
    base = f"/plans/{home.id}"

    recent = _ids(api.get(f"{base}/transactions", params={"since_date": TODAY.isoformat()}))
    until = _ids(api.get(f"{base}/transactions", params={"until_date": home.first_month.isoformat()}))
    unapproved = _ids(api.get(f"{base}/transactions", params={"type": "unapproved"}))
    uncategorized = _ids(api.get(f"{base}/transactions", params={"type": "uncategorized"}))
    savings = _ids(api.get(f"{base}/accounts/{home.savings}/transactions"))
    first_month = _ids(api.get(f"{base}/months/{home.first_month.isoformat()}/transactions"))

    assert new["id"] in recent
    assert old["id"] not in recent
    assert old["id"] in until
    assert new["id"] not in until
    assert old["id"] in unapproved
    assert new["id"] not in unapproved
    assert old["id"] in uncategorized
    assert new["id"] not in uncategorized
    assert new["id"] in savings
    assert old["id"] not in savings
    assert old["id"] in first_month
    assert new["id"] not in first_month


def test_a_transfer_is_not_uncategorised(api, home):
    savings_payee = Account.objects.get(pk=home.savings).transfer_payee_id
    moved = transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-3, payee_id=savings_payee
    )

    uncategorized = _ids(api.get(f"/plans/{home.id}/transactions", params={"type": "uncategorized"}))

    assert moved["id"] not in uncategorized


def test_a_schedule_is_created_updated_and_its_flag_cleared(api, home):
    url = f"/plans/{home.id}/scheduled_transactions"
    item = {
        "account_id": home.checking,
        "date": (TODAY + timedelta(days=3)).isoformat(),
        "amount": -50_000,
        "payee_name": "Gym",
        "category_id": home.dining,
        "frequency": "monthly",
        "flag_color": "purple",
    }
    created = api.post(url, json={"scheduled_transaction": item}).json()["data"]["scheduled_transaction"]

    moved = api.put(
        f"{url}/{created['id']}",
        json={
            "scheduled_transaction": {
                **item,
                "date": (TODAY + timedelta(days=30)).isoformat(),
                "flag_color": None,
            }
        },
    ).json()["data"]["scheduled_transaction"]

    assert (created["payee_name"], created["frequency"], created["date_first"]) == (
        "Gym",
        "monthly",
        item["date"],
    )
    assert moved["date_next"] == (TODAY + timedelta(days=30)).isoformat()
    assert moved["flag_color"] == ""
    assert [s["id"] for s in api.get(url).json()["data"]["scheduled_transactions"]] == [created["id"]]


def test_a_schedule_refuses_a_payment_category_and_lines(api, home):
    url = f"/plans/{home.id}/scheduled_transactions"
    item = {"account_id": home.checking, "date": (TODAY + timedelta(days=3)).isoformat(), "amount": -1}

    card = api.post(url, json={"scheduled_transaction": {**item, "category_id": home.card_payment}})
    split = api.post(url, json={"scheduled_transaction": {**item, "subtransactions": [{"amount": -1}]}})

    assert (card.status_code, split.status_code) == (400, 400)
