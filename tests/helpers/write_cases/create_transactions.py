"""create_transactions' case, the days it dates them and the transactions an account holds."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes.create_transactions import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "create_transactions"

FIELDS = ("date", "amount", "payee_name", "memo", "category_id", "cleared", "approved")


def days_ago(days: int) -> str:
    return (utc_today() - timedelta(days=days)).isoformat()


async def created_on(plan_id: str, account_id: str, originals: set[str]) -> list[tuple]:
    """What YNAB holds on the account besides `originals`: each transaction's fields, sorted."""
    data = await ynab("GET", f"/plans/{plan_id}/accounts/{account_id}/transactions")
    return sorted(
        tuple(t[name] for name in FIELDS)
        for t in data["transactions"]
        if t["id"] not in originals and not t["deleted"]
    )


async def ids_on(plan_id: str, account_id: str) -> set[str]:
    data = await ynab("GET", f"/plans/{plan_id}/accounts/{account_id}/transactions")
    return {t["id"] for t in data["transactions"]}


def creating(home: Household, lines: list[dict], originals: set[str], **extra) -> WriteCase:
    expected = sorted(
        (
            line["date"],
            int(Decimal(str(line["amount"])) * 1000),
            line["payee_name"],
            line.get("memo"),
            line.get("category_id"),
            "cleared",
            extra.get("approved", False),
        )
        for line in lines
    )
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "account_id": home.home.checking, "transactions": lines, **extra},
        state=lambda: created_on(home.id, home.home.checking, originals),
        expected_after=expected,
        write_method="POST",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
    )
