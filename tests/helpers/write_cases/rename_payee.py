"""rename_payee's case: CORNER CAFE renamed Corner Cafe."""

from __future__ import annotations

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.models import Payee
from avenir_mcp.tools.writes.rename_payee import CHECK
from tests.writes.category_plans import payee_name, rename_in_ynab
from tests.writes.harness import WriteCase, documented_fingerprint
from tests.writes.households import Household

OLD, NEW = "CORNER CAFE", "Corner Cafe"


async def payee_called(home: Household, name: str) -> str:
    return (await Payee.objects.aget(plan_id=home.id, name=name)).id


def rename_case(home: Household, payee_id: str, **arguments) -> WriteCase:
    def check_log(op: Operation) -> None:
        assert op.subject == {"payee_id": payee_id}  # no payee text in the stored subject
        # The fingerprint is of the whole subject (docs/confirmation.md#subjects-and-the-fingerprint: payee,
        # new name).
        assert op.fingerprint == documented_fingerprint(home.id, {"payee_id": payee_id, "name": NEW})
        assert op.undo_data == {"payee_id": payee_id, "before": OLD, "after": NEW}  # undo needs them

    return WriteCase(
        tool="rename_payee",
        plan_id=home.id,
        arguments={"plan_id": home.id, "payee_id": payee_id, "name": NEW, **arguments},
        state=lambda: payee_name(home.id, payee_id),
        expected_after=NEW,
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/payees/{payee_id}$",
        check=CHECK,
        restore=lambda: rename_in_ynab(home.id, payee_id, OLD),
        private_values=tuple(value for value in home.private if value != OLD),
        check_log=check_log,
    )
