"""flag_transactions' case and the flags YNAB holds."""

from __future__ import annotations

from avenir_mcp.tools.writes.flag_transactions import CHECK
from tests.writes.checks import sandbox_http, ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household

TOOL = "flag_transactions"


async def flags(home: Household, *transaction_ids: str) -> dict[str, str | None]:
    """What YNAB holds: each transaction's flag (YNAB's "" and null both mean none)."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    held = {t["id"]: t["flag_color"] or None for t in data["transactions"]}
    return {transaction_id: held.get(transaction_id, "(deleted)") for transaction_id in transaction_ids}


async def set_flag(home: Household, transaction_id: str, colour: str | None) -> None:
    body = {"transactions": [{"id": transaction_id, "flag_color": colour}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)


def flagged_yellow(home: Household, transaction_id: str) -> None:
    with sandbox_http() as http:
        body = {"transactions": [{"id": transaction_id, "flag_color": "yellow"}]}
        assert http.patch(f"/plans/{home.id}/transactions", json=body).status_code == 200


def flagging(home: Household, wanted: dict[str, str | None]) -> WriteCase:
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "flags": [{"transaction_id": t, "color": c} for t, c in wanted.items()],
        },
        state=lambda: flags(home, *wanted),
        expected_after=wanted,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
    )
