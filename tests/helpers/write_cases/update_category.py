"""update_category's case."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.update_category import CHECK
from tests.writes.assigned_plans import BudgetHome
from tests.writes.category_plans import change_category, place
from tests.writes.harness import WriteCase, documented_fingerprint


def update_case(budget: BudgetHome, bills: str, **arguments) -> WriteCase:
    h = budget.home
    everyday = {"name": "Dining Out", "group_id": h.everyday_group, "group": "Everyday"}
    moved = {"name": "Restaurants", "group_id": bills, "group": "Bills"}

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: category, new name, new
        # group.
        subject = {"category_id": h.dining, "name": "Restaurants", "category_group_id": bills}
        assert op.subject == subject
        assert op.fingerprint == documented_fingerprint(budget.id, subject)
        assert op.undo_data == {"category_id": h.dining, "before": everyday, "after": moved}

    return WriteCase(
        tool="update_category",
        plan_id=budget.id,
        arguments={
            "plan_id": budget.id,
            "category_id": h.dining,
            "name": "Restaurants",
            "category_group_id": bills,
            **arguments,
        },
        state=lambda: place(budget.id, h.dining),
        expected_after=("Restaurants", bills),
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/categories/{h.dining}$",
        check=CHECK,
        restore=lambda: change_category(
            budget.id, h.dining, name="Dining Out", category_group_id=h.everyday_group
        ),
        private_values=budget.private,
        check_log=check_log,
    )
