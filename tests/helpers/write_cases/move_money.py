"""move_money's case: 30.00 from Groceries to Dining Out, this month, and what YNAB holds of both."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.move_money import CHECK
from tests.writes.assigned_plans import DINING_ASSIGNED, GROCERIES_ASSIGNED, BudgetHome, figures, set_assigned
from tests.writes.harness import WriteCase, documented_fingerprint

MOVED = 30_000


async def both(budget: BudgetHome) -> tuple[int, int]:
    """What YNAB holds: Groceries' and Dining Out's assigned amounts this month."""
    h = budget.home
    return (await figures(budget, h.groceries))[0], (await figures(budget, h.dining))[0]


async def set_both(budget: BudgetHome, groceries: int, dining: int) -> None:
    await set_assigned(budget, budget.home.groceries, groceries)
    await set_assigned(budget, budget.home.dining, dining)


def move_case(budget: BudgetHome, **arguments) -> WriteCase:
    """Move 30.00 from Groceries (80.00 assigned, 32.00 available) to Dining Out (120.00, 39.00)."""
    h = budget.home

    def check_log(op: Operation) -> None:
        assert op.subject == subject_of(budget)
        assert op.fingerprint == documented_fingerprint(budget.id, op.subject)
        assert op.undo_data["month"] == budget.month
        assert op.undo_data["categories"] == [
            {"category_id": h.groceries, "before": GROCERIES_ASSIGNED, "after": GROCERIES_ASSIGNED - MOVED},
            {"category_id": h.dining, "before": DINING_ASSIGNED, "after": DINING_ASSIGNED + MOVED},
        ]

    return WriteCase(
        tool="move_money",
        plan_id=budget.id,
        arguments={
            "plan_id": budget.id,
            "month": budget.month,
            "from_category_id": h.groceries,
            "to_category_id": h.dining,
            "amount": "30",
            **arguments,
        },
        state=lambda: both(budget),
        expected_after=(GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED + MOVED),
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/months/[^/]+/categories/",
        check=CHECK,
        restore=lambda: set_both(budget, GROCERIES_ASSIGNED, DINING_ASSIGNED),
        writes_when_applied=2,
        private_values=budget.private,
        check_log=check_log,
    )


def subject_of(budget: BudgetHome) -> dict:
    """Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: both categories, month
    (resolved), amount moved in milliunits."""
    h = budget.home
    return {
        "month": budget.month,
        "from_category_id": h.groceries,
        "to_category_id": h.dining,
        "amount": MOVED,
    }
