"""Scheduled transactions (`ScheduledTransactionSummaryBase`, `ScheduledTransactionDetail`) and
their subtransactions (`ScheduledSubTransactionBase`, `ScheduledSubTransaction`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.names import Names
from avenir_mcp.sandbox.serialize.transactions import split_line

SCHEDULED_KEYS = (
    "id",
    "date_first",
    "date_next",
    "frequency",
    "amount",
    "memo",
    "flag_color",
    "flag_name",
    "account_id",
    "payee_id",
    "category_id",
    "transfer_account_id",
    "deleted",
)
SCHEDULED_SUB_FIELDS = (
    "id",
    "scheduled_transaction_id",
    "amount",
    "memo",
    "payee_id",
    "category_id",
    "transfer_account_id",
    "deleted",
)


def scheduled_base(row: Sequence[Any]) -> dict[str, Any]:
    item = dict(zip(SCHEDULED_KEYS, row, strict=True))
    item["date_first"] = item["date_first"].isoformat()
    item["date_next"] = item["date_next"].isoformat()
    return item


def scheduled_detail(
    row: Sequence[Any], subs: list[Sequence[Any]], names: Names, money: MoneyFormat
) -> dict[str, Any]:
    item = names.add_to(money.add(scheduled_base(row), ("amount",)))
    item["subtransactions"] = [money.add(scheduled_sub_base(sub, names), ("amount",)) for sub in subs]
    return item


def scheduled_sub_base(row: Sequence[Any], names: Names) -> dict[str, Any]:
    return split_line(SCHEDULED_SUB_FIELDS, row, names)
