"""set_category_budget's case: Dining Out's assigned amount set to 150.00 this month."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.set_category_budget import CHECK
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, assigned, set_assigned
from tests.writes.harness import WriteCase, documented_fingerprint

NEW_AMOUNT = 150_000


def budget_case(budget: BudgetHome, **arguments) -> WriteCase:
    h = budget.home

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: category, month (resolved),
        # amount in milliunits.
        assert op.subject == {"category_id": h.dining, "month": budget.month, "amount": NEW_AMOUNT}
        assert op.fingerprint == documented_fingerprint(budget.id, op.subject)
        assert op.undo_data == {
            "month": budget.month,
            "categories": [{"category_id": h.dining, "before": DINING_ASSIGNED, "after": NEW_AMOUNT}],
        }

    return WriteCase(
        tool="set_category_budget",
        plan_id=budget.id,
        arguments={
            "plan_id": budget.id,
            "month": budget.month[:7],
            "category_id": h.dining,
            "amount": "150.00",
            **arguments,
        },
        state=lambda: assigned(budget, h.dining),
        expected_after=NEW_AMOUNT,
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/months/[^/]+/categories/{h.dining}$",
        check=CHECK,
        restore=lambda: set_assigned(budget, h.dining, DINING_ASSIGNED),
        private_values=budget.private,
        check_log=check_log,
    )
