"""apply_categories' case: three transactions (re)categorised, and what YNAB holds of them."""

from __future__ import annotations

import json

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.apply_categories import CHECK
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase
from tests.writes.households import Household


async def categories(home: Household, *transaction_ids: str) -> dict[str, str | None]:
    """What YNAB holds: each transaction's category id."""
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    held = {t["id"]: t["category_id"] for t in data["transactions"]}
    return {transaction_id: held.get(transaction_id) for transaction_id in transaction_ids}


async def set_category(home: Household, transaction_id: str, category_id: str | None) -> None:
    body = {"transactions": [{"id": transaction_id, "category_id": category_id}]}
    await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)


def recategorising(home: Household) -> WriteCase:
    """Market and Salary get a category, the cafe moves from Dining Out to Groceries."""
    h = home.home
    wanted = {home.market: h.groceries, home.salary: h.ready_to_assign, home.cafe: h.groceries}
    before = {home.market: None, home.salary: None, home.cafe: h.dining}

    async def restore() -> None:
        for transaction_id, category_id in before.items():
            await set_category(home, transaction_id, category_id)

    def check_log(op: Operation) -> None:
        changes = [{"transaction_id": t, "category_id": c} for t, c in wanted.items()]
        # Sorted by content, not by str(): a JSON column may give the keys back in another order.
        assert sorted(op.subject["changes"], key=_canonical) == sorted(changes, key=_canonical)
        logged = [{"id": t, "before": before[t], "after": c} for t, c in wanted.items()]
        assert sorted(op.undo_data["transactions"], key=_canonical) == sorted(logged, key=_canonical)

    return WriteCase(
        tool="apply_categories",
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "assignments": [{"transaction_id": t, "category_id": c} for t, c in wanted.items()],
        },
        state=lambda: categories(home, *wanted),
        expected_after=wanted,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
        change_plan=lambda: set_category(home, home.cafe, h.groceries),
        restore=restore,
        private_values=home.private,
        check_log=check_log,
    )


def _canonical(item: dict) -> str:
    return json.dumps(item, sort_keys=True)
