"""split_transaction's case and the transactions it splits."""

from __future__ import annotations

from avenir_mcp.tools.writes.split_transaction import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "split_transaction"


async def held(home: Household, transaction_id: str) -> tuple:
    """What YNAB holds of the transaction: its category name and its lines (amount, category, memo)."""
    data = await ynab("GET", f"/plans/{home.id}/transactions/{transaction_id}")
    t = data["transaction"]
    lines = [(s["amount"], s["category_id"], s["memo"]) for s in t["subtransactions"]]
    return t["category_name"], t["amount"], t["payee_id"], t["memo"], t["cleared"], t["approved"], lines


def splitting(home: Household, transaction_id: str, lines: list[dict]) -> WriteCase:
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "transaction_id": transaction_id, "lines": lines},
        state=lambda: held(home, transaction_id),
        expected_after=None,
        write_method="PUT",
        write_path=rf"/plans/{home.id}/transactions/{transaction_id}$",
        check=CHECK,
        undoable=False,
    )
