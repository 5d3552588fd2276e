"""YNAB's JSON turned into entities (`tools.ynab.entities`) and plan deltas.

`parse_plan_delta` reads the `data` of `GET /plans/{id}` (a full export, or a delta when
`last_knowledge_of_server` was sent: the same shape, fewer entities, deleted ones flagged)
into a `PlanDelta` that `tools.ynab.merge` applies to a snapshot. A missing required field
or a wrong type raises `YnabError` naming what was wrong: a malformed answer must never
become a half-built plan.

Each row becomes an entity through `tools.ynab.parse_rows`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, TypeVar

from tools.ynab import parse_rows as rows
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
from tools.ynab.parse_rows import parse_date, parse_datetime

E = TypeVar("E")
Json = dict[str, Any]


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
        plan_id=sys.intern(plan["id"]),
        name=plan["name"],
        last_modified_on=parse_datetime(plan.get("last_modified_on")),
        first_month=parse_date(plan.get("first_month")),
        last_month=parse_date(plan.get("last_month")),
        settings=_settings(plan),
        server_knowledge=knowledge,
        accounts=_changes(plan.get("accounts"), rows.account),
        category_groups=_changes(plan.get("category_groups"), rows.category_group),
        categories=_changes(plan.get("categories"), rows.category),
        months=tuple(_month_change(month) for month in plan.get("months") or ()),
        payees=_changes(plan.get("payees"), rows.payee),
        payee_locations=_changes(plan.get("payee_locations"), rows.payee_location),
        transactions=_changes(plan.get("transactions"), rows.transaction),
        subtransactions=_changes(plan.get("subtransactions"), rows.subtransaction),
        scheduled_transactions=_changes(plan.get("scheduled_transactions"), rows.scheduled_transaction),
        scheduled_subtransactions=_changes(
            plan.get("scheduled_subtransactions"), rows.scheduled_subtransaction
        ),
    )


def _changes(rows: Iterable[Json] | None, build: Callable[[Json], E]) -> Changes[E]:
    upserts: list[E] = []
    deleted: list[str] = []
    for row in rows or ():
        if row.get("deleted"):
            deleted.append(sys.intern(row["id"]))
        else:
            upserts.append(build(row))
    return Changes(tuple(upserts), tuple(deleted))


def _month_change(row: Json) -> MonthChange:
    key = parse_date(row["month"])
    if row.get("deleted"):
        return MonthChange(key, None, Changes())
    return MonthChange(key, rows.month(row), _changes(row.get("categories"), rows.category))


def _plan_summary(row: Json) -> PlanSummary:
    return PlanSummary(
        id=row["id"],
        name=row["name"],
        last_modified_on=parse_datetime(row.get("last_modified_on")),
        first_month=parse_date(row.get("first_month")),
        last_month=parse_date(row.get("last_month")),
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
