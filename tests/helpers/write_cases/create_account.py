"""create_account's case: ‘Emergency fund’, a savings account with 2500.00, on a budget household."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import Account
from avenir_mcp.tools.writes.create_account import CHECK
from tests.writes.assigned_plans import BudgetHome
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint

SUBJECT = {"name": "Emergency fund", "type": "savings", "balance": 2_500_000}


async def open_account(plan_id: str, name: str) -> dict | None:
    """The open account called `name`, as YNAB gives it, or None."""
    accounts = (await ynab("GET", f"/plans/{plan_id}/accounts"))["accounts"]
    found = [a for a in accounts if a["name"] == name and not a["closed"] and not a["deleted"]]
    return found[0] if found else None


def close_in_ynab(plan_id: str, account_id: str) -> None:
    """What the person does in YNAB's app to take an account back (the API cannot close one)."""
    with plan_write(plan_id) as write:
        Account.objects.filter(pk=account_id).update(closed=True, knowledge=write.knowledge)


def account_case(budget: BudgetHome, **arguments) -> WriteCase:
    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: name, type, balance.
        assert op.subject == SUBJECT
        assert op.fingerprint == documented_fingerprint(budget.id, SUBJECT)
        created = op.undo_data["account_id"]
        assert op.undo_data == {"account_id": created}
        assert isinstance(created, str) if op.status == "applied" else created is None

    async def emergency_fund() -> tuple | None:
        found = await open_account(budget.id, "Emergency fund")
        return None if found is None else (found["type"], found["on_budget"], found["balance"])

    async def closed_again() -> None:
        found = await open_account(budget.id, "Emergency fund")
        assert found is not None
        await sync_to_async(close_in_ynab)(budget.id, found["id"])

    return WriteCase(
        tool="create_account",
        plan_id=budget.id,
        arguments={
            "plan_id": budget.id,
            "name": "Emergency fund",
            "type": "savings",
            "balance": "2500",
            **arguments,
        },
        state=emergency_fund,
        expected_after=("savings", True, 2_500_000),
        write_method="POST",
        write_path=rf"/plans/{budget.id}/accounts$",
        check=CHECK,
        restore=closed_again,
        undoable=False,
        private_values=budget.private,
        check_log=check_log,
    )
