"""The scheduled-transaction tools' cases: the rent scheduled, changed and deleted on a household.

The rent: 1200.00 to Landlord from checking, monthly from 10 days ahead, as Rent, memo ‘flat 3’.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes import (
    create_scheduled_transaction,
    delete_scheduled_transaction,
    update_scheduled_transaction,
)
from tests.writes.checks import ynab
from tests.writes.harness import WriteCase, documented_fingerprint
from tests.writes.households import Household

LANDLORD, MEMO, RENT = "Landlord", "flat 3", -1_200_000
FIELDS = ("account_id", "date_next", "frequency", "amount", "payee_name", "category_id", "memo", "flag_color")


def days_ahead(days: int) -> str:
    return (utc_today() + timedelta(days=days)).isoformat()


def rent_fields(home: Household) -> dict[str, Any]:
    """The rent as YNAB's SaveScheduledTransaction."""
    return {
        "account_id": home.home.checking,
        "date": days_ahead(10),
        "frequency": "monthly",
        "amount": RENT,
        "payee_name": LANDLORD,
        "category_id": home.home.rent,
        "memo": MEMO,
        "flag_color": None,
    }


async def scheduled_in_ynab(home: Household, **fields: Any) -> str:
    """A schedule the person made in YNAB (the rent, with `fields` instead); its id."""
    data = await ynab(
        "POST",
        f"/plans/{home.id}/scheduled_transactions",
        json={"scheduled_transaction": {**rent_fields(home), **fields}},
    )
    return data["scheduled_transaction"]["id"]


async def changed_in_ynab(home: Household, scheduled_id: str, **fields: Any) -> None:
    """The schedule changed in YNAB's app: `fields` set, the rest as they are."""
    now = await schedule(home.id, scheduled_id)
    assert now is not None
    kept = {
        name: now[name] for name in ("account_id", "frequency", "amount", "category_id", "memo", "flag_color")
    }
    body = {**kept, "date": now["date_next"], "payee_id": now["payee_id"], **fields}
    await ynab(
        "PUT", f"/plans/{home.id}/scheduled_transactions/{scheduled_id}", json={"scheduled_transaction": body}
    )


async def schedule(plan_id: str, scheduled_id: str) -> dict[str, Any] | None:
    """The schedule as YNAB holds it; None once deleted."""
    rows = (await ynab("GET", f"/plans/{plan_id}/scheduled_transactions"))["scheduled_transactions"]
    found = [row for row in rows if row["id"] == scheduled_id and not row["deleted"]]
    return found[0] if found else None


async def schedules(plan_id: str) -> list[tuple]:
    """Every live schedule of the plan: its fields, sorted."""
    rows = (await ynab("GET", f"/plans/{plan_id}/scheduled_transactions"))["scheduled_transactions"]
    return sorted(tuple(row[name] for name in FIELDS) for row in rows if not row["deleted"])


def _fields_of(row: dict[str, Any] | None) -> tuple | None:
    return tuple(row[name] for name in FIELDS) if row is not None else None


# --- create ------------------------------------------------------------------------------------


def creating(home: Household, **arguments: Any) -> WriteCase:
    """The rent scheduled by the tool."""
    h = home.home

    def check_log(op: Operation) -> None:
        schedule_kept = {
            "account_id": h.checking,
            "date": days_ahead(10),
            "frequency": "monthly",
            "payee_id": None,
            "transfer_account_id": None,
            "category_id": h.rent,
            "flag": None,
        }
        assert op.subject == {"schedule": schedule_kept}
        subject = {**schedule_kept, "amount": RENT, "payee_name": LANDLORD, "memo": MEMO}
        assert op.fingerprint == documented_fingerprint(home.id, {"schedule": subject})
        created = op.undo_data["scheduled_transaction_id"]
        assert isinstance(created, str) if op.status == "applied" else created is None
        # The fields as created, the amount, payee and memo as a digest: undo compares them.
        assert set(op.undo_data["schedule"]) == {*schedule_kept, "digest"}

    async def remove() -> None:
        for row in (await ynab("GET", f"/plans/{home.id}/scheduled_transactions"))["scheduled_transactions"]:
            if not row["deleted"]:
                await ynab("DELETE", f"/plans/{home.id}/scheduled_transactions/{row['id']}")

    return WriteCase(
        tool="create_scheduled_transaction",
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "account_id": h.checking,
            "date": days_ahead(10),
            "frequency": "monthly",
            "amount": "-1200.00",
            "payee_name": LANDLORD,
            "category_id": h.rent,
            "memo": MEMO,
            **arguments,
        },
        state=lambda: schedules(home.id),
        expected_after=[(h.checking, days_ahead(10), "monthly", RENT, LANDLORD, h.rent, MEMO, None)],
        write_method="POST",
        write_path=rf"/plans/{home.id}/scheduled_transactions$",
        check=create_scheduled_transaction.CHECK,
        restore=remove,
        private_values=(*home.private, LANDLORD, RENT),
        check_log=check_log,
    )


# --- update ------------------------------------------------------------------------------------


def updating(home: Household, scheduled_id: str, **arguments: Any) -> WriteCase:
    """The rent (`scheduled_id`) raised to 1250.00 and moved 2 days later."""
    h = home.home

    def check_log(op: Operation) -> None:
        assert op.subject["scheduled_transaction_id"] == scheduled_id
        assert {"amount", "payee_name", "memo"}.isdisjoint(op.subject["after"])
        assert op.subject["after"]["date"] == days_ahead(12)
        assert op.undo_data["fields"] == ["date", "amount"]
        assert (op.undo_data["before"]["amount"], op.undo_data["after"]["amount"]) == (RENT, -1_250_000)

    return WriteCase(
        tool="update_scheduled_transaction",
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "scheduled_transaction_id": scheduled_id,
            "date": days_ahead(12),
            "amount": "-1250.00",
            **arguments,
        },
        state=lambda: _state(home.id, scheduled_id),
        expected_after=(h.checking, days_ahead(12), "monthly", -1_250_000, LANDLORD, h.rent, MEMO, None),
        write_method="PUT",
        write_path=rf"/plans/{home.id}/scheduled_transactions/{scheduled_id}$",
        check=update_scheduled_transaction.CHECK,
        change_plan=lambda: changed_in_ynab(home, scheduled_id, memo="flat 3b"),
        private_values=tuple(home.private),
        check_log=check_log,
        extra={"house": h.house},
    )


async def _state(plan_id: str, scheduled_id: str) -> tuple | None:
    return _fields_of(await schedule(plan_id, scheduled_id))


# --- delete ------------------------------------------------------------------------------------


def deleting(home: Household, scheduled_id: str) -> WriteCase:
    """The rent (`scheduled_id`) deleted."""

    def check_log(op: Operation) -> None:
        assert op.subject == {"scheduled_transaction_id": scheduled_id, "split": False}
        assert op.undo_data["scheduled_transaction_id"] == scheduled_id
        assert (op.undo_data["schedule"]["memo"], op.undo_data["alike"]) == (MEMO, [])

    async def there() -> bool:
        return await schedule(home.id, scheduled_id) is not None

    return WriteCase(
        tool="delete_scheduled_transaction",
        plan_id=home.id,
        arguments={"plan_id": home.id, "scheduled_transaction_id": scheduled_id},
        state=there,
        expected_after=False,
        write_method="DELETE",
        write_path=rf"/plans/{home.id}/scheduled_transactions/{scheduled_id}$",
        check=delete_scheduled_transaction.CHECK,
        change_plan=lambda: changed_in_ynab(home, scheduled_id, memo="flat 3b"),
        private_values=tuple(home.private),
        check_log=check_log,
    )
