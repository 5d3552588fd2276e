"""One YNAB JSON row turned into one entity (`tools.ynab.entities`), checked as it goes.

Required fields are read with `row[...]` (a missing one raises KeyError), amounts must be
JSON integers (TypeError otherwise): `tools.ynab.parse` turns both into a `YnabError`.
Strings that repeat across thousands of rows (ids, statuses) are interned and dates are
shared, which keeps a 50,000-transaction plan's memory down.
"""

from __future__ import annotations

import sys
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from tools.ynab.entities import (
    Account,
    Category,
    CategoryGroup,
    Month,
    Payee,
    PayeeLocation,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)

Json = dict[str, Any]
_intern = sys.intern


def account(row: Json) -> Account:
    return Account(
        id=_intern(row["id"]),
        name=row["name"],
        type=_intern(row["type"]),
        on_budget=bool(row["on_budget"]),
        closed=bool(row["closed"]),
        note=row.get("note"),
        balance=_int(row["balance"]),
        cleared_balance=_int(row["cleared_balance"]),
        uncleared_balance=_int(row["uncleared_balance"]),
        transfer_payee_id=_id(row.get("transfer_payee_id")),
        direct_import_linked=bool(row.get("direct_import_linked")),
        direct_import_in_error=bool(row.get("direct_import_in_error")),
        last_reconciled_at=parse_datetime(row.get("last_reconciled_at")),
        debt_interest_rates=_periodic(row.get("debt_interest_rates")),
        debt_minimum_payments=_periodic(row.get("debt_minimum_payments")),
        debt_escrow_amounts=_periodic(row.get("debt_escrow_amounts")),
    )


def category_group(row: Json) -> CategoryGroup:
    return CategoryGroup(
        id=_intern(row["id"]),
        name=row["name"],
        hidden=bool(row["hidden"]),
        internal=bool(row.get("internal")),
    )


def category(row: Json) -> Category:
    return Category(
        id=_intern(row["id"]),
        category_group_id=_intern(row["category_group_id"]),
        category_group_name=row.get("category_group_name"),
        name=row["name"],
        hidden=bool(row["hidden"]),
        internal=bool(row.get("internal")),
        note=row.get("note"),
        budgeted=_int(row["budgeted"]),
        activity=_int(row["activity"]),
        balance=_int(row["balance"]),
        goal_type=row.get("goal_type"),
        goal_needs_whole_amount=row.get("goal_needs_whole_amount"),
        goal_day=_opt_int(row.get("goal_day")),
        goal_cadence=_opt_int(row.get("goal_cadence")),
        goal_cadence_frequency=_opt_int(row.get("goal_cadence_frequency")),
        goal_creation_month=parse_date(row.get("goal_creation_month")),
        goal_target=_opt_int(row.get("goal_target")),
        goal_target_date=parse_date(row.get("goal_target_date")),
        goal_percentage_complete=_opt_int(row.get("goal_percentage_complete")),
        goal_months_to_budget=_opt_int(row.get("goal_months_to_budget")),
        goal_under_funded=_opt_int(row.get("goal_under_funded")),
        goal_overall_funded=_opt_int(row.get("goal_overall_funded")),
        goal_overall_left=_opt_int(row.get("goal_overall_left")),
        goal_snoozed_at=parse_datetime(row.get("goal_snoozed_at")),
    )


def month(row: Json) -> Month:
    return Month(
        month=parse_date(row["month"]),
        note=row.get("note"),
        income=_int(row["income"]),
        budgeted=_int(row["budgeted"]),
        activity=_int(row["activity"]),
        to_be_budgeted=_int(row["to_be_budgeted"]),
        age_of_money=_opt_int(row.get("age_of_money")),
    )


def payee(row: Json) -> Payee:
    return Payee(
        id=_intern(row["id"]), name=row["name"], transfer_account_id=_id(row.get("transfer_account_id"))
    )


def payee_location(row: Json) -> PayeeLocation:
    return PayeeLocation(
        id=_intern(row["id"]),
        payee_id=_intern(row["payee_id"]),
        latitude=str(row["latitude"]),
        longitude=str(row["longitude"]),
    )


def transaction(row: Json) -> Transaction:
    return Transaction(
        date=parse_date(row["date"]),
        cleared=_intern(row["cleared"]),
        approved=bool(row["approved"]),
        **_entry_fields(row),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
        matched_transaction_id=_id(row.get("matched_transaction_id")),
        import_id=row.get("import_id"),
        import_payee_name=row.get("import_payee_name"),
        import_payee_name_original=row.get("import_payee_name_original"),
        debt_transaction_type=row.get("debt_transaction_type"),
    )


def subtransaction(row: Json) -> Subtransaction:
    return Subtransaction(
        transaction_id=_intern(row["transaction_id"]),
        **_split_line_fields(row),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
    )


def scheduled_transaction(row: Json) -> ScheduledTransaction:
    return ScheduledTransaction(
        date_first=parse_date(row["date_first"]),
        date_next=parse_date(row["date_next"]),
        frequency=_intern(row["frequency"]),
        **_entry_fields(row),
    )


def scheduled_subtransaction(row: Json) -> ScheduledSubtransaction:
    return ScheduledSubtransaction(
        scheduled_transaction_id=_intern(row["scheduled_transaction_id"]),
        **_split_line_fields(row),
    )


def _entry_fields(row: Json) -> Json:
    """What a transaction and a scheduled transaction read alike."""
    return {
        "id": _intern(row["id"]),
        "amount": _int(row["amount"]),
        "memo": row.get("memo"),
        "flag_color": row.get("flag_color"),
        "flag_name": row.get("flag_name"),
        "account_id": _intern(row["account_id"]),
        "payee_id": _id(row.get("payee_id")),
        "category_id": _id(row.get("category_id")),
        "transfer_account_id": _id(row.get("transfer_account_id")),
    }


def _split_line_fields(row: Json) -> Json:
    """What a split line reads alike, whether the split is a transaction's or a schedule's."""
    return {
        "id": _intern(row["id"]),
        "amount": _int(row["amount"]),
        "memo": row.get("memo"),
        "payee_id": _id(row.get("payee_id")),
        "payee_name": row.get("payee_name"),
        "category_id": _id(row.get("category_id")),
        "category_name": row.get("category_name"),
        "transfer_account_id": _id(row.get("transfer_account_id")),
    }


def _int(value: Any) -> int:
    """An amount: JSON integers only (a float or a string amount is a malformed answer)."""
    if type(value) is not int:
        raise TypeError(f"expected an integer amount, got {type(value).__name__}")
    return value


def _opt_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _id(value: str | None) -> str | None:
    return None if value is None else _intern(value)


@lru_cache(maxsize=8192)
def _parsed_date(value: str) -> date:
    return date.fromisoformat(value)


def parse_date(value: str | None) -> date | None:
    return None if value is None else _parsed_date(value)


def parse_datetime(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _periodic(value: dict[str, int] | None) -> tuple[tuple[date, int], ...]:
    return tuple(sorted((_parsed_date(day), _int(amount)) for day, amount in (value or {}).items()))
