"""reconcile_account's case and the cleared states it starts from."""

from __future__ import annotations

from decimal import Decimal

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.logic.reconcile import ADJUSTMENT_MEMO, ADJUSTMENT_PAYEE
from avenir_mcp.tools.writes.reconcile_account import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint
from tests.writes.households import Household

TOOL = "reconcile_account"

NEW = ("date", "amount", "payee_name", "category_id", "memo", "cleared", "approved")


async def account_state(plan_id: str, account_id: str, originals: set[str]) -> tuple[dict, list]:
    """What YNAB holds on the account: each original transaction's cleared status, and the new ones."""
    data = await ynab("GET", f"/plans/{plan_id}/accounts/{account_id}/transactions")
    live = [t for t in data["transactions"] if not t["deleted"]]
    statuses = {t["id"]: t["cleared"] for t in live if t["id"] in originals}
    new = sorted(tuple(t[name] for name in NEW) for t in live if t["id"] not in originals)
    return statuses, new


async def cleared_balance(plan_id: str, account_id: str) -> int:
    return (await ynab("GET", f"/plans/{plan_id}/accounts/{account_id}"))["account"]["cleared_balance"]


async def set_cleared(plan_id: str, ids, status: str) -> None:
    body = {"transactions": [{"id": transaction_id, "cleared": status} for transaction_id in ids]}
    await ynab("PATCH", f"/plans/{plan_id}/transactions", json=body)


def units(milliunits: int) -> str:
    return str(Decimal(milliunits) / 1000)


async def reconciling(home: Household, *, gap: int) -> WriteCase:
    """Checking with the market purchase and the cafe cleared; the bank shows the cleared balance + `gap`."""
    checking = home.home.checking
    await set_cleared(home.id, [home.market, home.cafe], "cleared")
    listed = await ynab("GET", f"/plans/{home.id}/accounts/{checking}/transactions")
    originals = {t["id"] for t in listed["transactions"] if not t["deleted"]}
    statuses, _ = await account_state(home.id, checking, originals)
    to_reconcile = sorted(t for t, status in statuses.items() if status == "cleared")
    expected = {t: "reconciled" if t in to_reconcile else status for t, status in statuses.items()}
    adjustment = []
    if gap:
        ready = home.home.ready_to_assign
        adjustment = [
            (today().isoformat(), gap, ADJUSTMENT_PAYEE, ready, ADJUSTMENT_MEMO, "reconciled", True)
        ]
    bank = await cleared_balance(home.id, checking) + gap

    async def restore() -> None:
        now = await ynab("GET", f"/plans/{home.id}/accounts/{checking}/transactions")
        for transaction_id in {t["id"] for t in now["transactions"] if not t["deleted"]} - originals:
            await ynab("DELETE", f"/plans/{home.id}/transactions/{transaction_id}")
        await set_cleared(home.id, to_reconcile, "cleared")

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: account, bank balance,
        # difference to adjust.
        subject = {"account_id": checking, "bank_balance": bank, "difference": gap}
        assert op.fingerprint == documented_fingerprint(home.id, subject)
        assert op.subject == {"account_id": checking, "adjusting": bool(gap)}  # no balance or amount
        assert sorted(op.undo_data["reconciled_ids"]) == to_reconcile
        assert op.undo_data["account_id"] == checking
        if not gap:
            assert (op.undo_data["adjustment_id"], op.undo_data["adjustment_digest"]) == (None, None)

    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "account_id": checking, "bank_balance": units(bank), "adjust": True},
        state=lambda: account_state(home.id, checking, originals),
        expected_after=(expected, adjustment),
        write_method="POST" if gap else "PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        # The salary cleared meanwhile: the cleared balance moves, so the difference to adjust (a field
        # of the subject) is not the one the person agreed to.
        change_plan=lambda: set_cleared(home.id, [home.salary], "cleared"),
        restore=restore,
        private_values=home.private,
        check_log=check_log,
        extra={"to_reconcile": to_reconcile, "bank": bank},
    )
