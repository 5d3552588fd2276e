"""Scheduled-transaction writes as the scheduled tools send them (docs/tools.md#update_scheduled_transaction):
a PUT replaces every field, a transfer is named by the other account's transfer payee, DELETE
leaves the schedule `deleted: true` in the delta and 404 after."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account

NEXT = (utc_today() + timedelta(days=9)).isoformat()


def _rent(home, **fields):
    return {
        "account_id": home.checking,
        "date": NEXT,
        "frequency": "monthly",
        "amount": -1_200_000,
        "payee_name": "Landlord",
        "category_id": home.rent,
        "memo": "flat 3",
        "flag_color": "red",
        **fields,
    }


def _created(api, home, **fields):
    answer = api.post(
        f"/plans/{home.id}/scheduled_transactions", json={"scheduled_transaction": _rent(home, **fields)}
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]["scheduled_transaction"]


def test_a_put_sets_every_field_it_is_given_and_clears_what_is_null(api, home):
    rent = _created(api, home)
    body = _rent(home, payee_name="LANDLORD", memo=None, flag_color=None, amount=-1_250_000, payee_id=None)

    answer = api.put(
        f"/plans/{home.id}/scheduled_transactions/{rent['id']}", json={"scheduled_transaction": body}
    )

    changed = answer.json()["data"]["scheduled_transaction"]
    assert answer.status_code == 200
    assert (changed["payee_id"], changed["memo"], changed["flag_color"] or None, changed["amount"]) == (
        rent["payee_id"],  # found by name, any case: the same payee
        None,
        None,
        -1_250_000,
    )
    assert (changed["date_first"], changed["date_next"]) == (NEXT, NEXT)


def test_a_transfer_is_named_by_the_other_accounts_transfer_payee(api, home):
    savings_payee = Account.objects.get(pk=home.savings).transfer_payee_id

    transfer = _created(api, home, payee_name=None, payee_id=savings_payee, category_id=None)

    assert (transfer["payee_id"], transfer["transfer_account_id"]) == (savings_payee, home.savings)


def test_a_deleted_schedule_is_deleted_in_the_delta_and_gone_after(api, home):
    rent = _created(api, home)
    knowledge = api.get(f"/plans/{home.id}/scheduled_transactions").json()["data"]["server_knowledge"]

    deleted = api.delete(f"/plans/{home.id}/scheduled_transactions/{rent['id']}")
    delta = api.get(
        f"/plans/{home.id}/scheduled_transactions", params={"last_knowledge_of_server": knowledge}
    ).json()["data"]["scheduled_transactions"]
    again = api.put(
        f"/plans/{home.id}/scheduled_transactions/{rent['id']}", json={"scheduled_transaction": _rent(home)}
    )

    assert deleted.status_code == 200
    assert deleted.json()["data"]["scheduled_transaction"]["deleted"] is True
    assert [(row["id"], row["deleted"]) for row in delta] == [(rent["id"], True)]
    assert (again.status_code, again.json()["error"]["id"]) == (404, "404.2")
