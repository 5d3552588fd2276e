"""update_transactions' case and the fields YNAB holds: the market purchase's amount, memo and
cleared status corrected, the cafe's payee (a new one) and date, the transfer's amount (its other
side follows)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.update_transactions import CHECK
from tests.helpers.write_cases.create_transactions import days_ago
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint
from tests.writes.households import Household

TOOL = "update_transactions"
HELD = ("date", "amount", "payee_name", "memo", "cleared", "account_id")
NEW_PAYEE = "Corner Cafe Bistro"


def moved_day() -> str:
    """Where the case moves the café's lunch: the last day of the month before the household's
    transactions (dated 3 days ago), so the move always shifts Dining Out between two months."""
    return (date.fromisoformat(days_ago(3)).replace(day=1) - timedelta(days=1)).isoformat()


def month_of(day: str) -> str:
    return date.fromisoformat(day).replace(day=1).isoformat()


async def held(home: Household, *transaction_ids: str) -> dict[str, tuple | str]:
    """What YNAB holds of each transaction: its date, amount, payee, memo, cleared status and account."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    rows = {t["id"]: tuple(t[name] for name in HELD) for t in data["transactions"]}
    return {transaction_id: rows.get(transaction_id, "(deleted)") for transaction_id in transaction_ids}


async def patch(home: Household, *items: dict[str, Any]) -> None:
    await ynab("PATCH", f"/plans/{home.id}/transactions", json={"transactions": list(items)})


def updating(home: Household, updates: list[dict[str, Any]], expected_after: Any, **extra: Any) -> WriteCase:
    ids = list(expected_after)
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={"plan_id": home.id, "updates": updates},
        state=lambda: held(home, *ids),
        expected_after=expected_after,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        **extra,
    )


def update_case(home: Household) -> WriteCase:
    """The market's amount, memo and cleared status, the cafe's date and payee, the transfer's amount."""
    h = home.home
    before_day, new_day = days_ago(3), moved_day()
    updates = [
        {"transaction_id": home.market, "amount": "-68.40", "memo": "refund due", "cleared": "cleared"},
        {"transaction_id": home.cafe, "date": new_day, "payee_name": NEW_PAYEE},
        {"transaction_id": home.transfer, "amount": "-120.00"},
    ]
    expected = {
        home.market: (before_day, -68_400, "CB MARKET FRESH 0509", "refund due", "cleared", h.checking),
        home.cafe: (new_day, -12_340, NEW_PAYEE, "lunch", "uncleared", h.checking),
        home.transfer: (before_day, -120_000, "Transfer : Savings", None, "uncleared", h.checking),
    }

    def check_log(op: Operation) -> None:
        # docs/confirmation.md#subjects-and-the-fingerprint: each transaction and its fields after,
        # in any order; the stored subject keeps no amount, payee or memo.
        subject = [
            {
                "transaction_id": home.market,
                "fields": [
                    {"field": "amount", "to": -68_400},
                    {"field": "memo", "to": "refund due"},
                    {"field": "cleared", "to": "cleared"},
                ],
            },
            {
                "transaction_id": home.cafe,
                "fields": [{"field": "date", "to": new_day}, {"field": "payee_name", "to": NEW_PAYEE}],
            },
            {"transaction_id": home.transfer, "fields": [{"field": "amount", "to": -120_000}]},
        ]
        assert op.fingerprint == documented_fingerprint(home.id, {"updates": subject[::-1]})
        assert op.subject == {
            "updates": [
                {
                    "transaction_id": home.market,
                    "fields": [{"field": "amount"}, {"field": "memo"}, {"field": "cleared", "to": "cleared"}],
                },
                {
                    "transaction_id": home.cafe,
                    "fields": [{"field": "date", "to": new_day}, {"field": "payee_name"}],
                },
                {"transaction_id": home.transfer, "fields": [{"field": "amount"}]},
            ]
        }
        [market, cafe, transfer] = op.undo_data["transactions"]
        assert market == {
            "id": home.market,
            "fields": [
                {"field": "amount", "before": -86_430, "after": -68_400},
                {"field": "memo", "before": "weekly shop", "after": "refund due"},
                {"field": "cleared", "before": "uncleared", "after": "cleared"},
            ],
        }
        [date, payee] = cafe["fields"]
        assert date == {"field": "date", "before": before_day, "after": new_day}
        assert payee["before"]["name"] == "CORNER CAFE"
        assert payee["after"]["name"] == NEW_PAYEE
        learnt = payee["after"]["id"]  # from YNAB's answer, never given when it was lost
        assert learnt is None if op.status == "unknown" else learnt not in (None, payee["before"]["id"])
        assert transfer["fields"] == [{"field": "amount", "before": -100_000, "after": -120_000}]

    async def change_plan() -> None:
        await patch(home, {"id": home.market, "memo": "refund due"})

    return updating(
        home,
        updates,
        expected,
        change_plan=change_plan,
        # Undo needs the values it restores (docs/undo.md#update_transactions): the changed
        # fields' payees, memos and amounts are logged, and nothing else of the plan.
        private_values=tuple(
            value for value in home.private if value not in ("weekly shop", "CORNER CAFE", -86_430, -100_000)
        ),
        check_log=check_log,
    )
