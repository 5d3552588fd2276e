"""What the transaction writes rely on, as YNAB does it: a DELETE answers with the deleted
transaction; a split made by a full PUT (the transaction's own fields, category null, lines);
a removed flag comes back as ""; cleared → reconciled in bulk; future dates refused."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.ledger import utc_today
from tests.sandbox.scene import transaction

TODAY = utc_today().isoformat()


def test_a_delete_answers_with_the_deleted_transaction_then_it_is_gone(api, home):
    made = transaction(api, home.id, account_id=home.checking, date=TODAY, amount=-4_500, payee_name="Kiosk")

    deleted = api.delete(f"/plans/{home.id}/transactions/{made['id']}")
    again = api.delete(f"/plans/{home.id}/transactions/{made['id']}")

    assert deleted.status_code == 200
    answer = deleted.json()["data"]["transaction"]
    assert (answer["id"], answer["amount"], answer["payee_name"], answer["deleted"]) == (
        made["id"],
        -4_500,
        "Kiosk",
        True,
    )
    assert isinstance(deleted.json()["data"]["server_knowledge"], int)
    assert again.status_code == 404
    assert api.get(f"/plans/{home.id}/transactions/{made['id']}").status_code == 404


def test_a_full_put_with_category_null_and_lines_makes_a_split_keeping_the_other_fields(api, home):
    made = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY,
        amount=-9_000,
        payee_name="Market",
        memo="weekly",
        cleared="cleared",
        approved=True,
        flag_color="blue",
    )
    fields = {name: made[name] for name in ("account_id", "date", "amount", "payee_id", "memo", "cleared")}
    body = {
        **fields,
        "approved": True,
        "flag_color": "blue",
        "category_id": None,
        "subtransactions": [
            {"amount": -4_000, "category_id": home.groceries, "memo": "food"},
            {"amount": -5_000, "category_id": home.dining, "memo": None},
        ],
    }

    split = api.put(f"/plans/{home.id}/transactions/{made['id']}", json={"transaction": body})
    again = api.put(
        f"/plans/{home.id}/transactions/{made['id']}", json={"transaction": body | {"amount": -8_000}}
    )

    assert split.status_code == 200, split.text
    answer = split.json()["data"]["transaction"]
    assert (answer["category_name"], answer["memo"], answer["flag_color"], answer["cleared"]) == (
        "Split",
        "weekly",
        "blue",
        "cleared",
    )
    assert [(s["amount"], s["category_id"], s["memo"]) for s in answer["subtransactions"]] == [
        (-4_000, home.groceries, "food"),
        (-5_000, home.dining, None),
    ]
    assert again.status_code == 400  # an existing split's amount cannot change


def test_a_removed_flag_reads_empty_and_cleared_goes_to_reconciled_in_bulk(api, home):
    made = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-1_000, flag_color="red", cleared="cleared"
    )
    body = {"transactions": [{"id": made["id"], "flag_color": None, "cleared": "reconciled"}]}

    patched = api.patch(f"/plans/{home.id}/transactions", json=body)

    assert patched.status_code == 200, patched.text
    [answer] = patched.json()["data"]["transactions"]
    assert (answer["flag_color"], answer["cleared"]) == ("", "reconciled")


def test_a_future_dated_transaction_is_refused(api, home):
    tomorrow = (utc_today() + timedelta(days=1)).isoformat()
    body = {"transactions": [{"account_id": home.checking, "date": tomorrow, "amount": -1_000}]}

    refused = api.post(f"/plans/{home.id}/transactions", json=body)

    assert refused.status_code == 400
    assert "date must not be in the future" in refused.json()["error"]["detail"]


def test_a_bulk_patch_corrects_each_field_update_transactions_sends(api, home):
    """update_transactions' PATCH: a date, an amount, a memo removed, cleared, a payee_name YNAB finds
    (ignoring case) or creates, a transaction moved to another account (balances follow), and a
    transfer's new amount and date followed by its other side."""
    yesterday = (utc_today() - timedelta(days=1)).isoformat()
    grocer = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-9_000, payee_name="Grocer"
    )
    lunch = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-4_000, payee_name="Cafe", memo="lunch"
    )
    savings_payee = api.get(f"/plans/{home.id}/accounts/{home.savings}").json()["data"]["account"][
        "transfer_payee_id"
    ]
    sent = transaction(
        api, home.id, account_id=home.checking, date=TODAY, amount=-10_000, payee_id=savings_payee
    )
    body = {
        "transactions": [
            {
                "id": grocer["id"],
                "date": yesterday,
                "amount": -8_000,
                "payee_name": "grocer",
                "cleared": "cleared",
            },
            {"id": lunch["id"], "memo": None, "payee_name": "Bistro", "account_id": home.savings},
            {"id": sent["id"], "amount": -12_000, "date": yesterday},
        ]
    }

    patched = api.patch(f"/plans/{home.id}/transactions", json=body)

    assert patched.status_code == 200, patched.text
    answers = {t["id"]: t for t in patched.json()["data"]["transactions"]}
    fixed, moved = answers[grocer["id"]], answers[lunch["id"]]
    assert answers[sent["id"]]["amount"] == -12_000
    assert (fixed["date"], fixed["amount"], fixed["cleared"]) == (yesterday, -8_000, "cleared")
    assert (fixed["payee_id"], fixed["payee_name"]) == (grocer["payee_id"], "Grocer")  # found, not created
    assert (moved["account_id"], moved["memo"], moved["payee_name"]) == (home.savings, None, "Bistro")
    assert moved["payee_id"] not in (None, lunch["payee_id"])  # created
    other = api.get(f"/plans/{home.id}/transactions/{sent['transfer_transaction_id']}").json()["data"]
    assert (other["transaction"]["amount"], other["transaction"]["date"]) == (12_000, yesterday)
    balances = {
        a["id"]: a["balance"] for a in api.get(f"/plans/{home.id}/accounts").json()["data"]["accounts"]
    }
    assert (balances[home.checking], balances[home.savings]) == (
        1_000_000 - 8_000 - 12_000,
        500_000 - 4_000 + 12_000,
    )
