"""Linked-bank imports, duplicate import ids, and the refusals YNAB makes (nothing written)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account, BankTransaction, Transaction
from tests.sandbox.scene import transaction

TODAY = utc_today()


def _waiting(home, amount, import_id="", account=None):
    account = account or home.checking
    Account.objects.filter(pk=account).update(direct_import_linked=True)
    return BankTransaction.objects.create(
        plan=home.plan,
        account_id=account,
        date=TODAY,
        amount=amount,
        payee_name="SHOP 42",
        import_id=import_id,
    )


def _knowledge(api, home):
    return api.get(f"/plans/{home.id}/accounts").json()["data"]["server_knowledge"]


def test_an_import_brings_waiting_lines_in_unapproved_and_cleared_once(api, home):
    _waiting(home, -4_200)
    _waiting(home, -4_200)

    first = api.post(f"/plans/{home.id}/transactions/import")
    second = api.post(f"/plans/{home.id}/transactions/import")

    assert first.status_code == 201
    ids = first.json()["data"]["transaction_ids"]
    imported = [api.get(f"/plans/{home.id}/transactions/{i}").json()["data"]["transaction"] for i in ids]
    assert [(t["approved"], t["cleared"], t["payee_name"]) for t in imported] == [
        (False, "cleared", "SHOP 42")
    ] * 2
    assert sorted(t["import_id"] for t in imported) == [
        f"YNAB:-4200:{TODAY.isoformat()}:1",
        f"YNAB:-4200:{TODAY.isoformat()}:2",
    ]
    assert (second.status_code, second.json()) == (200, {"data": {"transaction_ids": []}})


def test_an_import_skips_a_line_whose_import_id_is_already_on_the_account(api, home):
    transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1_000, import_id="bank:7"
    )
    _waiting(home, -1_000, import_id="bank:7")

    response = api.post(f"/plans/{home.id}/transactions/import")

    assert (response.status_code, response.json()["data"]["transaction_ids"]) == (200, [])
    assert Transaction.objects.filter(account_id=home.checking, import_id="bank:7").count() == 1


def test_a_duplicate_import_id_is_a_conflict_alone_and_skipped_among_many(api, home):
    item = {"account_id": home.checking, "date": TODAY.isoformat(), "amount": -2_000, "import_id": "x:1"}
    transaction(api, home.id, **item)

    single = api.post(f"/plans/{home.id}/transactions", json={"transaction": item})
    many = api.post(
        f"/plans/{home.id}/transactions",
        json={
            "transactions": [
                item,
                {**item, "import_id": "x:2"},
                {**item, "import_id": "x:2"},
            ]
        },
    )

    assert single.status_code == 409
    assert single.json()["error"]["id"] == "409"
    assert many.status_code == 201
    assert many.json()["data"]["duplicate_import_ids"] == ["x:1", "x:2"]
    assert len(many.json()["data"]["transaction_ids"]) == 1


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (
            {"date": (TODAY + timedelta(days=2)).isoformat()},  # still ahead if midnight passed since
            "date must not be in the future or over 5 years ago",
        ),
        (
            {"date": (TODAY - timedelta(days=5 * 366)).isoformat()},
            "date must not be in the future or over 5 years ago",
        ),
        ({"memo": "m" * 501}, "memo must be 500 characters or fewer (got 501)"),
        ({"payee_name": "p" * 201}, "payee_name must be 200 characters or fewer (got 201)"),
        ({"import_id": "i" * 37}, "import_id must be 36 characters or fewer (got 37)"),
        (
            {"account_id": "not-an-id"},
            "account_id must be formatted as a uuid (universally unique identifier)",
        ),
        ({"category_id": "00000000-0000-4000-8000-000000000000"}, "category_id does not exist in this plan"),
        ({"amount": 1.5}, "amount must be an integer (milliunits)"),
        ({"cleared": "maybe"}, "cleared must be one of: cleared, uncleared, reconciled"),
    ],
)
def test_it_refuses_bad_transactions_and_writes_nothing(api, home, change, detail):
    before = (_knowledge(api, home), Transaction.objects.filter(plan=home.plan).count())
    good = {"account_id": home.checking, "date": TODAY.isoformat(), "amount": -1_000}

    response = api.post(f"/plans/{home.id}/transactions", json={"transactions": [good, {**good, **change}]})

    assert response.status_code == 400
    assert response.json()["error"] == {"id": "400", "name": "bad_request", "detail": f"{detail} (index: 1)"}
    assert (_knowledge(api, home), Transaction.objects.filter(plan=home.plan).count()) == before


def test_a_bulk_update_with_one_bad_item_changes_nothing(api, home):
    first = transaction(api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1_000)
    knowledge = _knowledge(api, home)

    response = api.patch(
        f"/plans/{home.id}/transactions",
        json={
            "transactions": [
                {"id": first["id"], "memo": "changed"},
                {"id": "00000000-0000-4000-8000-000000000000", "memo": "nope"},
            ]
        },
    )

    assert response.status_code == 400
    assert response.json()["error"]["detail"] == "transaction does not exist in this plan (index: 1)"
    assert (
        api.get(f"/plans/{home.id}/transactions/{first['id']}").json()["data"]["transaction"]["memo"] is None
    )
    assert _knowledge(api, home) == knowledge


def test_a_bulk_update_finds_transactions_by_import_id_and_answers_200(api, home):
    transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1_000, import_id="b:1"
    )

    response = api.patch(
        f"/plans/{home.id}/transactions",
        json={
            "transactions": [
                {"import_id": "b:1", "approved": True, "flag_color": "red"},
            ]
        },
    )

    assert response.status_code == 200
    assert response.json()["data"]["transactions"][0]["flag_color"] == "red"
    assert response.json()["data"]["transactions"][0]["approved"] is True


def test_clearing_a_flag_with_null_answers_an_empty_flag(api, home):
    flagged = transaction(
        api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1, flag_color="blue"
    )

    cleared = api.put(
        f"/plans/{home.id}/transactions/{flagged['id']}", json={"transaction": {"flag_color": None}}
    )

    assert cleared.json()["data"]["transaction"]["flag_color"] == ""


def test_a_credit_card_payment_category_on_a_transaction_is_ignored(api, home):
    created = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=TODAY.isoformat(),
        amount=-1_000,
        category_id=home.card_payment,
    )

    assert created["category_id"] is None


def test_it_refuses_a_long_category_group_name_and_a_past_scheduled_date(api, home):
    group = api.post(f"/plans/{home.id}/category_groups", json={"category_group": {"name": "g" * 51}})
    scheduled = api.post(
        f"/plans/{home.id}/scheduled_transactions",
        json={
            "scheduled_transaction": {
                "account_id": home.checking,
                "date": TODAY.isoformat(),
                "amount": -1_000,
            }
        },
    )
    too_far = api.post(
        f"/plans/{home.id}/scheduled_transactions",
        json={
            "scheduled_transaction": {
                "account_id": home.checking,
                "date": (TODAY + timedelta(days=5 * 366 + 1)).isoformat(),
            }
        },
    )

    assert group.json()["error"]["detail"] == "name must be 50 characters or fewer (got 51)"
    assert scheduled.status_code == too_far.status_code == 400
    assert "future date" in scheduled.json()["error"]["detail"]


def test_unknown_and_deleted_ids_answer_404_2(api, home):
    created = transaction(api, home.id, account_id=home.checking, date=TODAY.isoformat(), amount=-1)
    api.delete(f"/plans/{home.id}/transactions/{created['id']}").raise_for_status()
    missing = "00000000-0000-4000-8000-000000000000"

    answers = [
        api.get(f"/plans/{home.id}/transactions/{created['id']}"),
        api.delete(f"/plans/{home.id}/transactions/{created['id']}"),
        api.get(f"/plans/{home.id}/accounts/{missing}"),
        api.get(f"/plans/{home.id}/categories/{missing}"),
        api.get(f"/plans/{home.id}/payees/{missing}"),
        api.get(f"/plans/{home.id}/scheduled_transactions/{missing}"),
        api.get(f"/plans/{home.id}/months/1999-01-01"),
    ]

    assert [(a.status_code, a.json()["error"]["id"]) for a in answers] == [(404, "404.2")] * len(answers)


def test_a_malformed_body_is_a_400_not_a_500(api, home):
    raw = api.post(
        f"/plans/{home.id}/transactions", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    wrong = api.post(f"/plans/{home.id}/transactions", json={"transactions": "many"})
    listing = api.get(f"/plans/{home.id}/transactions", params={"since_date": "yesterday"})

    assert [raw.status_code, wrong.status_code, listing.status_code] == [400, 400, 400]
