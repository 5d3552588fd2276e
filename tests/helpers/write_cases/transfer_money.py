"""transfer_money's case: 150.00 from Checking to the Visa card (a card payment), with a memo, dated
yesterday; and what YNAB holds of transfers on two accounts."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.transfer_money import CHECK
from tests.helpers.write_cases.create_transactions import days_ago, ids_on
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint
from tests.writes.households import Household

TOOL = "transfer_money"
MEMO = "September statement"
FIELDS = (
    "account_id",
    "date",
    "amount",
    "payee_name",
    "memo",
    "category_id",
    "cleared",
    "approved",
    "transfer_account_id",
)


async def originals_of(plan_id: str, *accounts: str) -> set[str]:
    """The ids of the transactions the accounts hold now (deleted ones included)."""
    return {transaction_id for account in accounts for transaction_id in await ids_on(plan_id, account)}


async def entered_on(plan_id: str, accounts: tuple[str, ...], originals: set[str]) -> list[tuple]:
    """What YNAB holds on the accounts besides `originals`: each live transaction's fields, sorted."""
    rows = []
    for account in accounts:
        data = await ynab("GET", f"/plans/{plan_id}/accounts/{account}/transactions")
        rows += [
            tuple(t[name] for name in FIELDS)
            for t in data["transactions"]
            if t["id"] not in originals and not t["deleted"]
        ]
    return sorted(rows)


def transfer_rows(
    source: tuple[str, str],
    destination: tuple[str, str],
    day: str,
    amount: int,
    memo: str | None,
    category=None,
) -> list[tuple]:
    """Both sides of a transfer of `amount` (milliunits) as `entered_on` reads them; each account as
        (id, name); `category` on the budget side (the sandbox puts it where YNAB does). The source side
    is cleared and approved as sent; YNAB enters the other side uncleared."""
    (source_id, source_name), (destination_id, destination_name) = source, destination
    sent = (
        source_id,
        day,
        -amount,
        f"Transfer : {destination_name}",
        memo,
        category,
        "cleared",
        True,
        destination_id,
    )
    received = (
        destination_id,
        day,
        amount,
        f"Transfer : {source_name}",
        memo,
        None,
        "uncleared",
        True,
        source_id,
    )
    return sorted([sent, received])


def transferring(home: Household, originals: set[str], **arguments) -> WriteCase:
    """150.00 from Checking to Visa yesterday, memo ‘September statement’ (`arguments` override them)."""
    h = home.home
    given = {
        "from_account_id": h.checking,
        "to_account_id": h.card,
        "amount": "150.00",
        "date": days_ago(1),
        "memo": MEMO,
        **arguments,
    }
    accounts = (given["from_account_id"], given["to_account_id"])
    subject = {
        "from_account_id": h.checking,
        "to_account_id": h.card,
        "amount": 150_000,
        "date": days_ago(1),
        "memo": MEMO,
        "category_id": None,
    }

    async def restore() -> None:
        for transaction_id in await originals_of(home.id, h.checking) - originals:
            await ynab("DELETE", f"/plans/{home.id}/transactions/{transaction_id}")

    def check_log(op: Operation) -> None:
        assert op.fingerprint == documented_fingerprint(home.id, subject)
        assert op.subject == {  # no amount nor memo
            "from_account_id": h.checking,
            "to_account_id": h.card,
            "date": days_ago(1),
            "category_id": None,
        }
        logged = op.undo_data
        assert (logged["from_account_id"], logged["to_account_id"], logged["date"]) == (
            h.checking,
            h.card,
            days_ago(1),
        )
        assert len(logged["asked"]["content"]) == 64
        if op.status == "applied":
            assert len(logged["transaction_ids"]) == 2
            assert len(logged["digest"]) == 64
        else:  # no answer: the ids were never learnt
            assert logged["transaction_ids"] == []

    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, **given},
        state=lambda: entered_on(home.id, accounts, originals),
        expected_after=transfer_rows((h.checking, "Checking"), (h.card, "Visa"), days_ago(1), 150_000, MEMO),
        write_method="POST",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        restore=restore,
        private_values=(*home.private, MEMO, 150_000),
        check_log=check_log,
    )
