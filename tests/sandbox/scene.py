"""A small plan with one of everything, for contract tests: every operation has something to show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import httpx2

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account, BankTransaction, PayeeLocation, Plan
from tests.sandbox.plans import SmallPlan, small_plan


@dataclass
class Scene:
    home: SmallPlan
    transaction_id: str
    split_id: str
    transfer_id: str
    payee_id: str
    payee_location_id: str
    scheduled_id: str

    @property
    def plan(self) -> Plan:
        return self.home.plan

    @property
    def base(self) -> str:
        return f"/plans/{self.home.id}"


def transaction(api: httpx2.Client, plan_id: str, **fields) -> dict:
    """Create one transaction through the API; its TransactionDetail."""
    response = api.post(f"/plans/{plan_id}/transactions", json={"transaction": fields})
    assert response.status_code == 201, response.text
    return response.json()["data"]["transaction"]


def build_scene(api: httpx2.Client) -> Scene:
    home = small_plan("Contract household")
    today = utc_today().isoformat()
    bought = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=today,
        amount=-42_500,
        payee_name="Corner Market",
        category_id=home.groceries,
        memo="weekly shop",
        flag_color="green",
    )
    split = transaction(
        api,
        home.id,
        account_id=home.checking,
        date=today,
        amount=-30_000,
        payee_name="Big Store",
        subtransactions=[
            {"amount": -20_000, "category_id": home.groceries},
            {"amount": -10_000, "category_id": home.dining, "memo": "snacks"},
        ],
    )
    savings_payee = Account.objects.get(pk=home.savings).transfer_payee_id
    transfer = transaction(
        api, home.id, account_id=home.checking, date=today, amount=-100_000, payee_id=savings_payee
    )
    location = PayeeLocation.objects.create(
        plan=home.plan,
        payee_id=bought["payee_id"],
        latitude="48.8566",
        longitude="2.3522",
        knowledge=home.plan.server_knowledge,
    )
    scheduled = api.post(
        f"/plans/{home.id}/scheduled_transactions",
        json={
            "scheduled_transaction": {
                "account_id": home.checking,
                "date": (utc_today() + timedelta(days=10)).isoformat(),
                "amount": -1_200_000,
                "payee_name": "Landlord",
                "category_id": home.rent,
                "frequency": "monthly",
            }
        },
    ).json()["data"]["scheduled_transaction"]
    api.patch(
        f"/plans/{home.id}/months/current/categories/{home.groceries}",
        json={"category": {"budgeted": 300_000}},
    ).raise_for_status()
    Account.objects.filter(pk=home.checking).update(direct_import_linked=True)
    BankTransaction.objects.create(
        plan=home.plan,
        account_id=home.checking,
        date=utc_today(),
        amount=-7_250,
        payee_name="COFFEE SHOP 1234",
        import_id=f"YNAB:-7250:{today}:1",
    )
    return Scene(
        home=home,
        transaction_id=bought["id"],
        split_id=split["id"],
        transfer_id=transfer["id"],
        payee_id=bought["payee_id"],
        payee_location_id=location.id,
        scheduled_id=scheduled["id"],
    )
