"""delete_transactions' case and what YNAB holds of the transactions it deletes."""

from __future__ import annotations

from avenir_mcp.tools.writes.delete_transactions import CHECK
from tests.writes.checks import sandbox_http, ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "delete_transactions"


async def live(plan_id: str, *transaction_ids: str) -> tuple[str, ...]:
    """Which of `transaction_ids` YNAB still holds (not deleted), in the order given."""
    data = await ynab("GET", f"/plans/{plan_id}/transactions")
    held = {t["id"] for t in data["transactions"] if not t["deleted"]}
    return tuple(t for t in transaction_ids if t in held)


def other_side(plan_id: str, transaction_id: str) -> str:
    """The other side of transfer `transaction_id`."""
    with sandbox_http() as http:
        answer = http.get(f"/plans/{plan_id}/transactions/{transaction_id}")
    return answer.json()["data"]["transaction"]["transfer_transaction_id"]


def deleting(home: Household, transaction_ids: list[str], *, watched: tuple[str, ...] = ()) -> WriteCase:
    """The case deleting `transaction_ids`; its state is which of them (and of `watched`, e.g. a
    transfer's other side) YNAB still holds. One DELETE each."""
    every = (*transaction_ids, *watched)
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "transaction_ids": transaction_ids},
        state=lambda: live(home.id, *every),
        expected_after=(),
        write_method="DELETE",
        write_path=rf"/plans/{home.id}/transactions/[^/]+$",
        check=CHECK,
        writes_when_applied=len(transaction_ids),
    )


def deleting_the_transfer(home: Household) -> WriteCase:
    """The household's transfer (checking → savings) deleted: one DELETE, both sides gone."""
    return deleting(home, [home.transfer], watched=(other_side(home.id, home.transfer),))
