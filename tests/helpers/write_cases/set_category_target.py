"""set_category_target's case."""

from __future__ import annotations

from datetime import timedelta

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes.set_category_target import CHECK
from tests.writes.assigned_plans import BudgetHome
from tests.writes.category_plans import change_category, goal
from tests.writes.harness import WriteCase, documented_fingerprint

BY_DATE = (utc_today() + timedelta(days=400)).replace(day=1).isoformat()

AS_SET = ("NEED", 1_200_000, BY_DATE, 0, None, True, None)

SENT = {"goal_target": 1_200_000, "goal_target_date": BY_DATE}

NO_TARGET_LOGGED = {
    "kind": "none",
    "amount": None,
    "by_date": None,
    "whole": None,
    "ynab_name": None,
    "snoozed": False,
}
SET_BY_DATE = {
    "kind": "by_date",
    "amount": 1_200_000,
    "by_date": BY_DATE,
    "whole": True,
    "ynab_name": None,
    "snoozed": False,
}


def target_case(budget: BudgetHome, **arguments) -> WriteCase:
    h = budget.home

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: the category, the target
        # fields sent.
        assert op.subject == {"category_id": h.dining, "fields": SENT}
        assert op.fingerprint == documented_fingerprint(budget.id, {"category_id": h.dining, "fields": SENT})
        assert op.undo_data == {
            "category_id": h.dining,
            "before": NO_TARGET_LOGGED,
            "after": SET_BY_DATE,
            "restore": {"goal_target": None},
        }

    return WriteCase(
        tool="set_category_target",
        plan_id=budget.id,
        arguments={
            "plan_id": budget.id,
            "category_id": h.dining,
            "amount": "1200.00",
            "by_date": BY_DATE,
            **arguments,
        },
        state=lambda: goal(budget.id, h.dining),
        expected_after=AS_SET,
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/categories/{h.dining}$",
        check=CHECK,
        restore=lambda: change_category(budget.id, h.dining, goal_target=None),
        private_values=budget.private,
        check_log=check_log,
    )
