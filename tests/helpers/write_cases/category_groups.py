"""create_category_group's and update_category_group's cases, on a budget household."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import CategoryGroup
from avenir_mcp.tools.writes import create_category_group, update_category_group
from tests.writes.assigned_plans import BudgetHome
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint


async def group_names(plan_id: str) -> dict[str, str]:
    """Every group's name by id, as YNAB gives them (deleted ones left out)."""
    groups = (await ynab("GET", f"/plans/{plan_id}/categories"))["category_groups"]
    return {g["id"]: g["name"] for g in groups if not g["deleted"]}


async def rename_group_in_ynab(plan_id: str, group_id: str, name: str) -> None:
    await ynab(
        "PATCH", f"/plans/{plan_id}/category_groups/{group_id}", json={"category_group": {"name": name}}
    )


def hide_in_ynab(plan_id: str, group_id: str) -> None:
    """What the person does in YNAB's app (the API cannot hide a group)."""
    with plan_write(plan_id) as write:
        CategoryGroup.objects.filter(pk=group_id).update(hidden=True, knowledge=write.knowledge)


def group_case(budget: BudgetHome, **arguments) -> WriteCase:
    """‘Kids’ created."""

    def check_log(op: Operation) -> None:
        assert op.subject == {"name": "Kids"}
        assert op.fingerprint == documented_fingerprint(budget.id, {"name": "Kids"})
        created = op.undo_data["category_group_id"]
        assert op.undo_data == {"category_group_id": created}
        assert isinstance(created, str) if op.status == "applied" else created is None

    async def kids() -> list[str]:
        return [name for name in (await group_names(budget.id)).values() if name.casefold() == "kids"]

    async def kids_aside() -> None:
        """What YNAB's app offers instead of deleting: here, the new group renamed out of the way."""
        (found,) = [g for g, name in (await group_names(budget.id)).items() if name == "Kids"]
        await rename_group_in_ynab(budget.id, found, "Kids (old)")

    return WriteCase(
        tool="create_category_group",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "name": "Kids", **arguments},
        state=kids,
        expected_after=["Kids"],
        write_method="POST",
        write_path=rf"/plans/{budget.id}/category_groups$",
        check=create_category_group.CHECK,
        restore=kids_aside,
        undoable=False,
        private_values=budget.private,
        check_log=check_log,
    )


def group_rename_case(budget: BudgetHome, **arguments) -> WriteCase:
    """Everyday renamed ‘Day to day’."""
    group = budget.home.everyday_group
    subject = {"category_group_id": group, "name": "Day to day"}

    def check_log(op: Operation) -> None:
        assert op.subject == subject
        assert op.fingerprint == documented_fingerprint(budget.id, subject)
        assert op.undo_data == {"category_group_id": group, "before": "Everyday", "after": "Day to day"}

    async def name() -> str:
        return (await group_names(budget.id))[group]

    return WriteCase(
        tool="update_category_group",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "category_group_id": group, "name": "Day to day", **arguments},
        state=name,
        expected_after="Day to day",
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/category_groups/{group}$",
        check=update_category_group.CHECK,
        restore=lambda: rename_group_in_ynab(budget.id, group, "Everyday"),
        private_values=budget.private,
        check_log=check_log,
    )
