"""Money movements and their groups (`MoneyMovement`, `MoneyMovementGroup`)."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.serialize.money import MoneyFormat, iso_date, iso_datetime

MOVEMENT_FIELDS = (
    "id",
    "month",
    "moved_at",
    "note",
    "group_id",
    "performed_by_user_id",
    "from_category_id",
    "to_category_id",
    "amount",
)
GROUP_FIELDS = ("id", "group_created_at", "month", "note", "performed_by_user_id")


def money_movement(row: dict[str, Any], money: MoneyFormat) -> dict[str, Any]:
    item = {
        "id": row["id"],
        "month": iso_date(row["month"]),
        "moved_at": iso_datetime(row["moved_at"]),
        "note": row["note"],
        "money_movement_group_id": row["group_id"],
        "performed_by_user_id": row["performed_by_user_id"],
        "from_category_id": row["from_category_id"],
        "to_category_id": row["to_category_id"],
        "amount": row["amount"],
    }
    return money.add(item, ("amount",))


def money_movement_group(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "group_created_at": iso_datetime(row["group_created_at"]),
        "month": iso_date(row["month"]),
        "note": row["note"],
        "performed_by_user_id": row["performed_by_user_id"],
    }
