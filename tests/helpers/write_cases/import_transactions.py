"""import_transactions' case, on an account linked to a bank."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import create_account, utc_today
from avenir_mcp.sandbox.models import BankTransaction
from avenir_mcp.tools.writes.import_transactions import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "import_transactions"

WAITING = (("PRLV SEPA NETFLIX", -13_490), ("CB BOULANGERIE 1203", -4_200))


def linked_account(home: Household) -> str:
    """A bank-linked account of the plan, with two lines waiting at the bank."""
    account = create_account(
        home.home.plan, name="Linked Checking", type="checking", direct_import_linked=True
    )
    day = utc_today() - timedelta(days=1)
    for payee, amount in WAITING:
        BankTransaction.objects.create(
            plan=home.home.plan, account=account, date=day, amount=amount, payee_name=payee, import_id=""
        )
    return account.id


async def imported(home: Household, account_id: str) -> list[tuple]:
    """What YNAB holds on the linked account: (payee, amount, approved, cleared), sorted."""
    data = await ynab("GET", f"/plans/{home.id}/accounts/{account_id}/transactions")
    return sorted((t["payee_name"], t["amount"], t["approved"], t["cleared"]) for t in data["transactions"])


def importing(home: Household, account_id: str) -> WriteCase:
    async def state() -> list[tuple]:
        return await imported(home, account_id)

    def check_log(op: Operation) -> None:
        assert op.subject == {"import": "linked accounts"}
        assert op.undoable is False
        if op.status == "applied":
            assert len(op.undo_data["transaction_ids"]) == len(WAITING)
        else:  # no answer: which ids came in is unknown until settled from YNAB's delta
            assert sorted(op.undo_data) == ["knowledge_before", "transaction_ids"]
            assert op.undo_data["transaction_ids"] == []
            assert type(op.undo_data["knowledge_before"]) is int

    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id},
        state=state,
        expected_after=sorted((payee, amount, False, "cleared") for payee, amount in WAITING),
        write_method="POST",
        write_path=rf"/plans/{home.id}/transactions/import$",
        check=CHECK,
        confirmed=False,
        undoable=False,
        private_values=tuple(text for line in WAITING for text in line),
        check_log=check_log,
    )
