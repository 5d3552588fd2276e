"""YNAB's JSON turned into entities (`tools.ynab.entities`) and plan deltas.

`parse_plan_delta` reads the `data` of `GET /plans/{id}` (a full export, or a delta when
`last_knowledge_of_server` was sent: the same shape, fewer entities, deleted ones flagged)
into a `PlanDelta` that `tools.ynab.merge` applies to a snapshot. A missing required field
or a wrong type raises `YnabError` naming what was wrong: a malformed answer must never
become a half-built plan.

Strings that repeat across thousands of rows (ids, statuses) are interned and dates are
shared, which keeps a 50,000-transaction plan's memory down.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Generic, TypeVar

from tools.ynab.entities import (
    Account,
    Category,
    CategoryGroup,
    CurrencyFormat,
    Month,
    Payee,
    PayeeLocation,
    PlanSettings,
    PlanSummary,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)
from tools.ynab.errors import YnabError

E = TypeVar("E")
Json = dict[str, Any]
_intern = sys.intern


@dataclass(frozen=True, slots=True)
class Changes(Generic[E]):
    """Entities of one kind that changed: new or updated ones, and ids deleted."""

    upserts: tuple[E, ...] = ()
    deleted_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MonthChange:
    """A month in a delta: its totals (None when deleted) and its categories that changed."""

    month: date
    totals: Month | None
    categories: Changes[Category]


@dataclass(frozen=True, slots=True)
class PlanDelta:
    """Everything one `GET /plans/{id}` answer says, ready to merge."""

    plan_id: str
    name: str
    last_modified_on: datetime | None
    first_month: date | None
    last_month: date | None
    settings: PlanSettings
    server_knowledge: int
    accounts: Changes[Account]
    category_groups: Changes[CategoryGroup]
    categories: Changes[Category]
    months: tuple[MonthChange, ...]
    payees: Changes[Payee]
    payee_locations: Changes[PayeeLocation]
    transactions: Changes[Transaction]
    subtransactions: Changes[Subtransaction]
    scheduled_transactions: Changes[ScheduledTransaction]
    scheduled_subtransactions: Changes[ScheduledSubtransaction]

    def is_empty(self) -> bool:
        """True when no entity of any kind changed."""
        kinds = (
            self.accounts, self.category_groups, self.categories, self.payees,
            self.payee_locations, self.transactions, self.subtransactions,
            self.scheduled_transactions, self.scheduled_subtransactions,
        )  # fmt: skip
        return not self.months and not any(kind.upserts or kind.deleted_ids for kind in kinds)


class MalformedAnswer(YnabError):
    """YNAB answered 2xx with a body this client cannot read."""


def parse_plan_delta(data: Json) -> PlanDelta:
    """The `data` member of a `GET /plans/{id}` answer as a `PlanDelta`."""
    try:
        return _plan_delta(data["plan"], int(data["server_knowledge"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _malformed("the plan", exc) from exc


def parse_plan_summaries(data: Json) -> tuple[tuple[PlanSummary, ...], str | None]:
    """The `data` of `GET /plans`: the plans, and the default plan's id if YNAB names one."""
    try:
        plans = tuple(_plan_summary(plan) for plan in data["plans"])
        default = data.get("default_plan")
        return plans, (default["id"] if default else None)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _malformed("the plan list", exc) from exc


def parse_settings(data: Json) -> PlanSettings:
    """The `data` of `GET /plans/{id}/settings`."""
    try:
        return _settings(data["settings"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _malformed("the plan settings", exc) from exc


def _malformed(what: str, exc: Exception) -> MalformedAnswer:
    reason = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)[:200]
    return MalformedAnswer(
        f"YNAB's answer for {what} was not in the shape this service expects ({reason}); "
        "nothing was read from it. Try again later; if it persists, the YNAB API may have changed.",
        status=200,
    )


def _plan_delta(plan: Json, knowledge: int) -> PlanDelta:
    return PlanDelta(
        plan_id=_intern(plan["id"]),
        name=plan["name"],
        last_modified_on=_datetime(plan.get("last_modified_on")),
        first_month=_date(plan.get("first_month")),
        last_month=_date(plan.get("last_month")),
        settings=_settings(plan),
        server_knowledge=knowledge,
        accounts=_changes(plan.get("accounts"), account),
        category_groups=_changes(plan.get("category_groups"), category_group),
        categories=_changes(plan.get("categories"), category),
        months=tuple(_month_change(month) for month in plan.get("months") or ()),
        payees=_changes(plan.get("payees"), payee),
        payee_locations=_changes(plan.get("payee_locations"), payee_location),
        transactions=_changes(plan.get("transactions"), transaction),
        subtransactions=_changes(plan.get("subtransactions"), subtransaction),
        scheduled_transactions=_changes(plan.get("scheduled_transactions"), scheduled_transaction),
        scheduled_subtransactions=_changes(plan.get("scheduled_subtransactions"), scheduled_subtransaction),
    )


def _changes(rows: Iterable[Json] | None, build: Callable[[Json], E]) -> Changes[E]:
    upserts: list[E] = []
    deleted: list[str] = []
    for row in rows or ():
        if row.get("deleted"):
            deleted.append(_intern(row["id"]))
        else:
            upserts.append(build(row))
    return Changes(tuple(upserts), tuple(deleted))


def _month_change(row: Json) -> MonthChange:
    key = _date(row["month"])
    if row.get("deleted"):
        return MonthChange(key, None, Changes())
    return MonthChange(key, month(row), _changes(row.get("categories"), category))


def _plan_summary(row: Json) -> PlanSummary:
    return PlanSummary(
        id=row["id"],
        name=row["name"],
        last_modified_on=_datetime(row.get("last_modified_on")),
        first_month=_date(row.get("first_month")),
        last_month=_date(row.get("last_month")),
        settings=_settings(row),
    )


def _settings(row: Json) -> PlanSettings:
    currency = row.get("currency_format")
    date_format = row.get("date_format")
    return PlanSettings(
        currency_format=CurrencyFormat(**{field: currency[field] for field in _CURRENCY_FIELDS})
        if currency
        else None,
        date_format=date_format["format"] if date_format else None,
    )


_CURRENCY_FIELDS = CurrencyFormat.__dataclass_fields__.keys()


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
        last_reconciled_at=_datetime(row.get("last_reconciled_at")),
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
        goal_creation_month=_date(row.get("goal_creation_month")),
        goal_target=_opt_int(row.get("goal_target")),
        goal_target_date=_date(row.get("goal_target_date")),
        goal_percentage_complete=_opt_int(row.get("goal_percentage_complete")),
        goal_months_to_budget=_opt_int(row.get("goal_months_to_budget")),
        goal_under_funded=_opt_int(row.get("goal_under_funded")),
        goal_overall_funded=_opt_int(row.get("goal_overall_funded")),
        goal_overall_left=_opt_int(row.get("goal_overall_left")),
        goal_snoozed_at=_datetime(row.get("goal_snoozed_at")),
    )


def month(row: Json) -> Month:
    return Month(
        month=_date(row["month"]),
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
        id=_intern(row["id"]),
        date=_date(row["date"]),
        amount=_int(row["amount"]),
        memo=row.get("memo"),
        cleared=_intern(row["cleared"]),
        approved=bool(row["approved"]),
        flag_color=row.get("flag_color"),
        flag_name=row.get("flag_name"),
        account_id=_intern(row["account_id"]),
        payee_id=_id(row.get("payee_id")),
        category_id=_id(row.get("category_id")),
        transfer_account_id=_id(row.get("transfer_account_id")),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
        matched_transaction_id=_id(row.get("matched_transaction_id")),
        import_id=row.get("import_id"),
        import_payee_name=row.get("import_payee_name"),
        import_payee_name_original=row.get("import_payee_name_original"),
        debt_transaction_type=row.get("debt_transaction_type"),
    )


def subtransaction(row: Json) -> Subtransaction:
    return Subtransaction(
        id=_intern(row["id"]),
        transaction_id=_intern(row["transaction_id"]),
        amount=_int(row["amount"]),
        memo=row.get("memo"),
        payee_id=_id(row.get("payee_id")),
        payee_name=row.get("payee_name"),
        category_id=_id(row.get("category_id")),
        category_name=row.get("category_name"),
        transfer_account_id=_id(row.get("transfer_account_id")),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
    )


def scheduled_transaction(row: Json) -> ScheduledTransaction:
    return ScheduledTransaction(
        id=_intern(row["id"]),
        date_first=_date(row["date_first"]),
        date_next=_date(row["date_next"]),
        frequency=_intern(row["frequency"]),
        amount=_int(row["amount"]),
        memo=row.get("memo"),
        flag_color=row.get("flag_color"),
        flag_name=row.get("flag_name"),
        account_id=_intern(row["account_id"]),
        payee_id=_id(row.get("payee_id")),
        category_id=_id(row.get("category_id")),
        transfer_account_id=_id(row.get("transfer_account_id")),
    )


def scheduled_subtransaction(row: Json) -> ScheduledSubtransaction:
    return ScheduledSubtransaction(
        id=_intern(row["id"]),
        scheduled_transaction_id=_intern(row["scheduled_transaction_id"]),
        amount=_int(row["amount"]),
        memo=row.get("memo"),
        payee_id=_id(row.get("payee_id")),
        payee_name=row.get("payee_name"),
        category_id=_id(row.get("category_id")),
        category_name=row.get("category_name"),
        transfer_account_id=_id(row.get("transfer_account_id")),
    )


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


def _date(value: str | None) -> date | None:
    return None if value is None else _parsed_date(value)


def _datetime(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _periodic(value: dict[str, int] | None) -> tuple[tuple[date, int], ...]:
    return tuple(sorted((_parsed_date(day), _int(amount)) for day, amount in (value or {}).items()))
