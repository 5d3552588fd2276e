"""Transactions (`TransactionSummaryBase`, `TransactionDetail`, `HybridTransaction`) and
subtransactions (`SubTransactionBase`, `SubTransaction`).

Rows come from `.values_list(*TRANSACTION_FIELDS)`: the field order is the answer's key order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.names import Names

TRANSACTION_KEYS = (
    "id",
    "date",
    "amount",
    "memo",
    "cleared",
    "approved",
    "flag_color",
    "flag_name",
    "account_id",
    "payee_id",
    "category_id",
    "transfer_account_id",
    "transfer_transaction_id",
    "matched_transaction_id",
    "import_id",
    "import_payee_name",
    "import_payee_name_original",
    "debt_transaction_type",
    "deleted",
)
TRANSACTION_FIELDS = TRANSACTION_KEYS  # the model's columns carry YNAB's names
SUB_FIELDS = (
    "id",
    "transaction_id",
    "amount",
    "memo",
    "payee_id",
    "category_id",
    "transfer_account_id",
    "transfer_transaction_id",
    "deleted",
)


def transaction_base(row: Sequence[Any]) -> dict[str, Any]:
    item = dict(zip(TRANSACTION_KEYS, row, strict=True))
    item["date"] = item["date"].isoformat()
    return item


def transaction_detail(
    row: Sequence[Any], subs: list[Sequence[Any]], names: Names, money: MoneyFormat
) -> dict[str, Any]:
    item = names.add_to(money.add(transaction_base(row), ("amount",)))
    item["subtransactions"] = [subtransaction(sub, names, money) for sub in subs]
    return item


def subtransaction_base(row: Sequence[Any], names: Names) -> dict[str, Any]:
    return split_line(SUB_FIELDS, row, names)


def split_line(fields: Sequence[str], row: Sequence[Any], names: Names) -> dict[str, Any]:
    """A split line, a transaction's or a schedule's: the row's `fields` in order, with
    `payee_name` right after `payee_id` and `category_name` right after `category_id`."""
    line: dict[str, Any] = {}
    for key, value in zip(fields, row, strict=True):
        line[key] = value
        if key == "payee_id":
            line["payee_name"] = names.payee(value)
        elif key == "category_id":
            line["category_name"] = names.category(value)
    return line


def subtransaction(row: Sequence[Any], names: Names, money: MoneyFormat) -> dict[str, Any]:
    return money.add(subtransaction_base(row, names), ("amount",))


def hybrid(
    row: Sequence[Any], names: Names, money: MoneyFormat, sub: Sequence[Any] | None = None
) -> dict[str, Any]:
    """A category's or payee's transaction list row: the transaction, or one split line of it
    (then id, amount, memo, payee and category are the line's)."""
    item = money.add(transaction_base(row), ("amount",))
    item["type"] = "transaction"
    item["parent_transaction_id"] = None
    if sub is not None:
        line = dict(zip(SUB_FIELDS, sub, strict=True))
        parent = item["id"]
        item.update({key: line[key] for key in ("id", "amount", "category_id", "transfer_account_id")})
        item.update({"transfer_transaction_id": line["transfer_transaction_id"], "deleted": line["deleted"]})
        item["memo"] = line["memo"] if line["memo"] is not None else item["memo"]
        item["payee_id"] = line["payee_id"] or item["payee_id"]
        money.add(item, ("amount",))
        item.update({"type": "subtransaction", "parent_transaction_id": parent})
    names.add_to(item)
    item["category_name"] = item["category_name"] or ""  # the spec types it as a string here (never null)
    return item
