"""Delta requests: what changed since a knowledge number shows up once, deletions as
`deleted: true`; nothing changed means the same knowledge and empty lists."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.ledger import utc_today
from tests.sandbox.scene import transaction

DELTA_LISTS = {
    "accounts": "accounts",
    "categories": "category_groups",
    "months": "months",
    "payees": "payees",
    "transactions": "transactions",
    "scheduled_transactions": "scheduled_transactions",
}
EXPORT_LISTS = (
    "accounts",
    "payees",
    "payee_locations",
    "category_groups",
    "categories",
    "months",
    "transactions",
    "subtransactions",
    "scheduled_transactions",
    "scheduled_subtransactions",
)


def _knowledge(api, home) -> int:
    return api.get(f"/plans/{home.id}/accounts").json()["data"]["server_knowledge"]


def _export_since(api, home, knowledge):
    body = api.get(f"/plans/{home.id}", params={"last_knowledge_of_server": knowledge}).json()["data"]
    return body["plan"], body["server_knowledge"]


def test_nothing_changed_gives_the_same_knowledge_and_empty_lists(api, home):
    knowledge = _knowledge(api, home)

    plan, answered = _export_since(api, home, knowledge)

    assert answered == knowledge
    assert all(plan[name] == [] for name in EXPORT_LISTS)
    for path, member in DELTA_LISTS.items():
        data = api.get(f"/plans/{home.id}/{path}", params={"last_knowledge_of_server": knowledge}).json()[
            "data"
        ]
        assert (data[member], data["server_knowledge"]) == ([], knowledge), path


def test_every_write_raises_knowledge_by_exactly_one(api, home):
    before = _knowledge(api, home)

    transaction(api, home.id, account_id=home.checking, date=utc_today().isoformat(), amount=-1_000)
    api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Bakery"}}).raise_for_status()

    assert _knowledge(api, home) == before + 2


def test_a_created_transaction_shows_up_once_with_what_it_moved(api, home):
    knowledge = _knowledge(api, home)

    created = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=-25_000,
        payee_name="Chemist",
        category_id=home.groceries,
    )
    plan, answered = _export_since(api, home, knowledge)
    again, _ = _export_since(api, home, answered)

    assert [t["id"] for t in plan["transactions"]] == [created["id"]]
    assert [a["id"] for a in plan["accounts"]] == [home.checking]
    assert [p["name"] for p in plan["payees"]] == ["Chemist"]
    assert {c["id"] for c in plan["categories"]} >= {home.groceries}
    # The month of the transaction and every later one (carry-over) changed.
    assert next(m["month"] for m in plan["months"]) == home.month(1).isoformat()
    assert home.month(0).isoformat() not in {m["month"] for m in plan["months"]}
    assert again["transactions"] == []


def test_a_deleted_transaction_comes_back_once_as_deleted(api, home):
    created = transaction(api, home.id, account_id=home.checking, date=utc_today().isoformat(), amount=-3_000)
    knowledge = _knowledge(api, home)

    api.delete(f"/plans/{home.id}/transactions/{created['id']}").raise_for_status()
    listed = api.get(f"/plans/{home.id}/transactions", params={"last_knowledge_of_server": knowledge}).json()
    plain = api.get(f"/plans/{home.id}/transactions").json()

    assert [(t["id"], t["deleted"]) for t in listed["data"]["transactions"]] == [(created["id"], True)]
    assert created["id"] not in {t["id"] for t in plain["data"]["transactions"]}
    assert api.get(f"/plans/{home.id}/transactions/{created['id']}").status_code == 404


def test_deleting_one_side_of_a_transfer_brings_both_back_once_as_deleted(api, home):
    """YNAB deletes a transfer's pair with it (delete_transactions counts on it); the plan's delta
    then holds both sides `deleted: true`, as the spec's delta example shows a deleted leg."""
    savings = api.get(f"/plans/{home.id}/accounts/{home.savings}").json()["data"]["account"]
    sent = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=utc_today().isoformat(),
        amount=-8_000,
        payee_id=savings["transfer_payee_id"],
    )
    knowledge = _knowledge(api, home)

    deleted = api.delete(f"/plans/{home.id}/transactions/{sent['transfer_transaction_id']}")
    plan, _knowledge_now = _export_since(api, home, knowledge)

    assert (deleted.status_code, deleted.json()["data"]["transaction"]["deleted"]) == (200, True)
    assert sorted((t["id"], t["deleted"]) for t in plan["transactions"]) == sorted(
        [(sent["id"], True), (sent["transfer_transaction_id"], True)]
    )


def test_an_assignment_changes_the_category_and_the_months_from_then_on(api, home):
    knowledge = _knowledge(api, home)

    url = f"/plans/{home.id}/months/{home.this_month.isoformat()}/categories/{home.rent}"
    api.patch(url, json={"category": {"budgeted": 500_000}}).raise_for_status()
    groups = api.get(f"/plans/{home.id}/categories", params={"last_knowledge_of_server": knowledge}).json()
    months = api.get(f"/plans/{home.id}/months", params={"last_knowledge_of_server": knowledge}).json()

    changed = [c["id"] for g in groups["data"]["category_groups"] for c in g["categories"]]
    assert home.rent in changed
    assert home.groceries not in changed
    assert min(m["month"] for m in months["data"]["months"]) == home.this_month.isoformat()


def test_accounts_payees_and_schedules_report_their_changes(api, home):
    knowledge = _knowledge(api, home)

    new_account = api.post(
        f"/plans/{home.id}/accounts", json={"account": {"name": "Wallet", "type": "cash", "balance": 20_000}}
    ).json()["data"]["account"]
    scheduled = api.post(
        f"/plans/{home.id}/scheduled_transactions",
        json={
            "scheduled_transaction": {
                "account_id": home.checking,
                "date": (utc_today() + timedelta(days=5)).isoformat(),
                "amount": -8_000,
                "frequency": "weekly",
            }
        },
    ).json()["data"]["scheduled_transaction"]
    after_create = _knowledge(api, home)
    api.delete(f"/plans/{home.id}/scheduled_transactions/{scheduled['id']}").raise_for_status()

    plan, _ = _export_since(api, home, knowledge)
    deleted_only, _ = _export_since(api, home, after_create)

    assert new_account["id"] in {a["id"] for a in plan["accounts"]}
    assert "Transfer : Wallet" in {p["name"] for p in plan["payees"]}
    assert [(s["id"], s["deleted"]) for s in deleted_only["scheduled_transactions"]] == [
        (scheduled["id"], True)
    ]


def test_deleting_a_split_reports_its_lines_deleted(api, home):
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=utc_today().isoformat(),
        amount=-9_000,
        subtransactions=[
            {"amount": -4_000, "category_id": home.groceries},
            {"amount": -5_000, "category_id": home.dining},
        ],
    )
    knowledge = _knowledge(api, home)

    api.delete(f"/plans/{home.id}/transactions/{split['id']}").raise_for_status()
    plan, _ = _export_since(api, home, knowledge)

    assert {(s["transaction_id"], s["deleted"]) for s in plan["subtransactions"]} == {(split["id"], True)}
    assert len(plan["subtransactions"]) == 2
