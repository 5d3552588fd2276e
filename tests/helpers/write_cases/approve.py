"""approve_transactions' case, on a household of its own."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.approve import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "approve_transactions"


async def approved(home: Household, *transaction_ids: str) -> dict[str, bool]:
    """What YNAB holds: whether each transaction is approved."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    held = {t["id"]: t["approved"] for t in data["transactions"]}
    return {transaction_id: held.get(transaction_id) for transaction_id in transaction_ids}


def approving(home: Household, *transaction_ids: str) -> WriteCase:
    def check_log(op: Operation) -> None:
        assert sorted(op.subject["transaction_ids"]) == sorted(transaction_ids)
        assert sorted(op.undo_data["approved_ids"]) == sorted(transaction_ids)

    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "transaction_ids": list(transaction_ids)},
        state=lambda: approved(home, *transaction_ids),
        expected_after=dict.fromkeys(transaction_ids, True),
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        confirmed=False,
        private_values=home.private,
        check_log=check_log,
    )
