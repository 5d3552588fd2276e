"""create_category's case."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.create_category import CHECK
from tests.writes.assigned_plans import BudgetHome
from tests.writes.category_plans import change_category, names_in_group
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint


def create_case(budget: BudgetHome, **arguments) -> WriteCase:
    h = budget.home

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: group, name.
        assert op.subject == {"category_group_id": h.everyday_group, "name": "Pets"}
        assert op.fingerprint == documented_fingerprint(
            budget.id, {"category_group_id": h.everyday_group, "name": "Pets"}
        )
        created = op.undo_data["category_id"]
        assert op.undo_data == {"category_id": created, "group_id": h.everyday_group}
        assert isinstance(created, str) if op.status == "applied" else created is None

    async def has_pets() -> bool:
        return "Pets" in await names_in_group(budget.id, h.everyday_group)

    async def pets_aside() -> None:
        """What YNAB's app offers instead of deleting: here, the new category renamed out of the way."""
        categories = (await ynab("GET", f"/plans/{budget.id}/categories"))["category_groups"]
        (pets,) = [c for g in categories for c in g["categories"] if c["name"] == "Pets"]
        await change_category(budget.id, pets["id"], name="Pets (old)")

    return WriteCase(
        tool="create_category",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "category_group_id": h.everyday_group, "name": "Pets", **arguments},
        state=has_pets,
        expected_after=True,
        write_method="POST",
        write_path=rf"/plans/{budget.id}/categories$",
        check=CHECK,
        restore=pets_aside,
        undoable=False,
        private_values=budget.private,
        check_log=check_log,
    )
