"""The figures kept up to date write by write equal the figures rebuilt from scratch."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.sandbox.ledger import rebuild_derived, utc_today
from avenir_mcp.sandbox.models import Account, BankTransaction, Month, MonthCategory
from tests.sandbox.scene import transaction


def _figures(home):
    balances = sorted(
        Account.objects.filter(plan=home.plan).values_list("id", "cleared_balance", "uncleared_balance")
    )
    activity = sorted(
        (c, m, a)
        for c, m, a in MonthCategory.objects.filter(plan=home.plan).values_list(
            "category_id", "month", "activity"
        )
        if a
    )
    ages = sorted(Month.objects.filter(plan=home.plan).values_list("month", "age_of_money"))
    return balances, activity, ages


def _months(api, home):
    return [
        {k: m[k] for k in ("month", "income", "budgeted", "activity", "to_be_budgeted", "age_of_money")}
        for m in api.get(f"/plans/{home.id}/months").json()["data"]["months"]
    ]


def _a_series_of_writes(api, home):
    day = home.first_month + timedelta(days=3)
    savings_payee = Account.objects.get(pk=home.savings).transfer_payee_id
    card_payee = Account.objects.get(pk=home.card).transfer_payee_id
    base = f"/plans/{home.id}"
    shop = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=day.isoformat(),
        amount=-45_000,
        category_id=home.groceries,
        cleared="cleared",
    )
    transaction(
        api, home.id, account_id=home.card, date=day.isoformat(), amount=-20_000, category_id=home.dining
    )
    moved = transaction(
        api, home.id, account_id=home.checking, date=day.isoformat(), amount=-100_000, payee_id=savings_payee
    )
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=-20_000,
        payee_id=card_payee,
    )
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=home.month(1).isoformat(),
        amount=-70_000,
        subtransactions=[
            {"amount": -30_000, "category_id": home.rent},
            {"amount": -40_000, "payee_id": savings_payee},
        ],
    )
    transaction(
        api,
        home.id,
        account_id=home.checking,
        date=utc_today().isoformat(),
        amount=2_500_000,
        category_id=home.ready_to_assign,
        payee_name="Employer",
    )
    api.put(
        f"{base}/transactions/{shop['id']}",
        json={"transaction": {"amount": -47_500, "date": home.month(1).isoformat()}},
    ).raise_for_status()
    api.put(
        f"{base}/transactions/{moved['transfer_transaction_id']}",
        json={"transaction": {"amount": 80_000, "cleared": "reconciled"}},
    ).raise_for_status()
    api.patch(
        f"{base}/transactions",
        json={
            "transactions": [
                {"id": shop["id"], "category_id": home.dining},
                {"id": moved["id"], "payee_name": "Not a transfer"},
            ]
        },
    ).raise_for_status()
    api.delete(f"{base}/transactions/{split['id']}").raise_for_status()
    for offset, amount in ((0, 300_000), (1, 250_000), (2, 400_000)):
        api.patch(
            f"{base}/months/{home.month(offset).isoformat()}/categories/{home.groceries}",
            json={"category": {"budgeted": amount}},
        ).raise_for_status()
    Account.objects.filter(pk=home.checking).update(direct_import_linked=True)
    BankTransaction.objects.create(
        plan=home.plan,
        account_id=home.checking,
        date=utc_today(),
        amount=-9_990,
        payee_name="STREAMING CO",
        import_id="",
    )
    api.post(f"{base}/transactions/import").raise_for_status()


def test_incremental_figures_equal_rebuilt_figures_after_a_series_of_writes(api, home):
    _a_series_of_writes(api, home)
    kept, kept_months = _figures(home), _months(api, home)

    rebuild_derived(home.plan)

    assert _figures(home) == kept
    assert _months(api, home) == kept_months
    assert kept_months[-1]["income"] == 1_500_000  # the first month: starting balances


def test_the_balances_match_the_transactions(api, home):
    _a_series_of_writes(api, home)

    accounts = {a["id"]: a for a in api.get(f"/plans/{home.id}/accounts").json()["data"]["accounts"]}
    transactions = api.get(f"/plans/{home.id}/transactions", params={"since_date": "2000-01-01"}).json()
    totals: dict[str, int] = {}
    for txn in transactions["data"]["transactions"]:
        totals[txn["account_id"]] = totals.get(txn["account_id"], 0) + txn["amount"]

    assert {account_id: a["balance"] for account_id, a in accounts.items()} == {
        account_id: totals.get(account_id, 0) for account_id in accounts
    }
