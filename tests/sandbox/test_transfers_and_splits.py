"""Transfers (both legs, kept in step, deleted together) and splits (created with lines,
converted by PUT, refused edits, deleted with their lines)."""

from __future__ import annotations

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account
from tests.sandbox.scene import transaction

TODAY = utc_today().isoformat()


def _payee_of(account_id: str) -> str:
    return Account.objects.get(pk=account_id).transfer_payee_id


def _get(api, home, transaction_id):
    return api.get(f"/plans/{home.id}/transactions/{transaction_id}").json()["data"]["transaction"]


def _balance(api, home, account_id):
    return api.get(f"/plans/{home.id}/accounts/{account_id}").json()["data"]["account"]["balance"]


def _split_with_a_transfer_line(api, home) -> tuple[dict, str]:
    """A 60.00 split from checking: 10.00 of groceries and 50.00 to savings; (split, that leg's id)."""
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-60_000,
        subtransactions=[
            {"amount": -10_000, "category_id": home.groceries},
            {"amount": -50_000, "payee_id": _payee_of(home.savings)},
        ],
    )
    return split, split["subtransactions"][1]["transfer_transaction_id"]


def test_a_transfer_creates_the_other_leg_linked_both_ways(api, home):
    sent = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-200_000,
        payee_id=_payee_of(home.savings),
        category_id=home.groceries,
    )

    received = _get(api, home, sent["transfer_transaction_id"])

    assert (sent["transfer_account_id"], sent["payee_name"]) == (home.savings, "Transfer : Savings")
    assert (received["account_id"], received["amount"], received["date"]) == (home.savings, 200_000, TODAY)
    assert (received["transfer_transaction_id"], received["payee_name"]) == (
        sent["id"],
        "Transfer : Checking",
    )
    assert sent["category_id"] is None
    assert received["category_id"] is None
    assert (_balance(api, home, home.checking), _balance(api, home, home.savings)) == (800_000, 700_000)


def test_a_transfer_to_a_tracking_account_keeps_its_category_on_the_budget_side(api, home):
    sent = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-50_000,
        payee_id=_payee_of(home.house),
        category_id=home.rent,
    )

    received = _get(api, home, sent["transfer_transaction_id"])

    assert (sent["category_id"], received["category_id"]) == (home.rent, None)


def test_changing_one_leg_changes_the_other_and_deleting_one_deletes_both(api, home):
    sent = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-10_000, payee_id=_payee_of(home.savings)
    )

    api.put(
        f"/plans/{home.id}/transactions/{sent['transfer_transaction_id']}",
        json={"transaction": {"amount": 15_000}},
    ).raise_for_status()
    moved = _get(api, home, sent["id"])
    api.delete(f"/plans/{home.id}/transactions/{sent['id']}").raise_for_status()

    assert moved["amount"] == -15_000
    assert api.get(f"/plans/{home.id}/transactions/{sent['transfer_transaction_id']}").status_code == 404
    assert (_balance(api, home, home.checking), _balance(api, home, home.savings)) == (1_000_000, 500_000)


def test_pointing_a_transaction_elsewhere_closes_its_transfer(api, home):
    sent = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-10_000, payee_id=_payee_of(home.savings)
    )

    api.put(
        f"/plans/{home.id}/transactions/{sent['id']}",
        json={"transaction": {"payee_name": "Grocer", "category_id": home.groceries}},
    ).raise_for_status()
    now = _get(api, home, sent["id"])

    assert (now["transfer_account_id"], now["transfer_transaction_id"]) == (None, None)
    assert now["category_id"] == home.groceries
    assert _balance(api, home, home.savings) == 500_000


def test_a_split_is_created_with_lines_that_add_up(api, home):
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-30_000,
        subtransactions=[
            {"amount": -20_000, "category_id": home.groceries},
            {"amount": -10_000, "category_id": home.dining, "memo": "lunch"},
        ],
    )

    assert split["category_name"] == "Split"
    assert [(s["amount"], s["category_name"]) for s in split["subtransactions"]] == [
        (-20_000, "Groceries"),
        (-10_000, "Dining Out"),
    ]
    groceries = api.get(f"/plans/{home.id}/categories/{home.groceries}").json()["data"]["category"]
    assert groceries["activity"] == -20_000


def test_a_split_whose_lines_do_not_add_up_is_refused_with_its_index(api, home):
    items = [
        {"account_id": home.checking, "date": TODAY, "amount": -1_000},
        {
            "account_id": home.checking,
            "date": TODAY,
            "amount": -30_000,
            "subtransactions": [{"amount": -20_000}, {"amount": -5_000}],
        },
    ]

    response = api.post(f"/plans/{home.id}/transactions", json={"transactions": items})

    assert response.status_code == 400
    assert (
        response.json()["error"]["detail"] == "amount must equal the sum of subtransaction amounts (index: 1)"
    )


def test_a_plain_transaction_can_be_turned_into_a_split(api, home):
    plain = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-12_000, category_id=home.groceries
    )

    response = api.put(
        f"/plans/{home.id}/transactions/{plain['id']}",
        json={
            "transaction": {
                "subtransactions": [
                    {"amount": -7_000, "category_id": home.groceries},
                    {"amount": -5_000, "category_id": home.dining},
                ],
            }
        },
    )

    assert response.status_code == 200, response.text
    assert len(response.json()["data"]["transaction"]["subtransactions"]) == 2
    dining = api.get(f"/plans/{home.id}/categories/{home.dining}").json()["data"]["category"]
    assert dining["activity"] == -5_000


def test_an_existing_split_refuses_new_lines_amount_date_and_category(api, home):
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-9_000,
        subtransactions=[
            {"amount": -4_000, "category_id": home.groceries},
            {"amount": -5_000, "category_id": home.dining},
        ],
    )
    url = f"/plans/{home.id}/transactions/{split['id']}"
    edits = [
        {"subtransactions": [{"amount": -9_000, "category_id": home.groceries}]},
        {"amount": -8_000},
        {"date": home.first_month.isoformat()},
        {"category_id": home.groceries},
    ]

    answers = [api.put(url, json={"transaction": edit}) for edit in edits]
    memo = api.put(url, json={"transaction": {"memo": "ok", "amount": -9_000}})

    assert [a.status_code for a in answers] == [400, 400, 400, 400]
    assert "subtransactions" in answers[0].json()["error"]["detail"]
    assert memo.status_code == 200
    assert memo.json()["data"]["transaction"]["memo"] == "ok"


def test_a_split_line_can_transfer_and_its_leg_goes_with_the_split(api, home):
    split, leg_id = _split_with_a_transfer_line(api, home)

    refused = api.delete(f"/plans/{home.id}/transactions/{leg_id}")
    api.delete(f"/plans/{home.id}/transactions/{split['id']}").raise_for_status()

    assert refused.status_code == 400
    assert api.get(f"/plans/{home.id}/transactions/{leg_id}").status_code == 404
    assert _balance(api, home, home.savings) == 500_000


def test_the_leg_of_a_split_line_takes_a_memo_and_keeps_its_split(api, home):
    split, leg_id = _split_with_a_transfer_line(api, home)

    memo = api.put(f"/plans/{home.id}/transactions/{leg_id}", json={"transaction": {"memo": "to savings"}})
    amount = api.put(f"/plans/{home.id}/transactions/{leg_id}", json={"transaction": {"amount": 1}})

    assert memo.status_code == 200
    assert amount.status_code == 400
    assert _get(api, home, split["id"])["subtransactions"][1]["transfer_transaction_id"] == leg_id
    assert (_balance(api, home, home.checking), _balance(api, home, home.savings)) == (940_000, 550_000)
