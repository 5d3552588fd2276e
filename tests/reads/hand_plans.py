"""Small plans arranged by hand for the computed reads' tests, the way YNAB's own data comes.

The plan and its accounts are made with the sandbox's ledger (YNAB's API cannot create a
plan, a loan with its terms or a closed account); everything else goes through the
sandbox's API v1 over HTTP like a YNAB client: transactions, transfers, schedules,
categories, targets and assigned amounts. Dates are relative to today (the server's date).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import httpx2
from django.utils import timezone

from avenir_mcp.sandbox.ledger import create_account, create_plan
from avenir_mcp.sandbox.models import Account, Category, Plan
from tests.writes.checks import sandbox_http


def today() -> date:
    return timezone.localdate()


def month_of(offset: int) -> date:
    """The first day of the month `offset` months from the current one (−1: last month)."""
    current = today().replace(day=1)
    index = current.year * 12 + current.month - 1 + offset
    return date(index // 12, index % 12 + 1, 1)


def last_day(month: date) -> date:
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


def cents(amount: str) -> int:
    """`"-42.50"` as milliunits, for writing amounts the way the person reads them."""
    units, _, decimals = amount.lstrip("-").partition(".")
    value = int(units) * 1000 + int(decimals.ljust(3, "0"))
    return -value if amount.startswith("-") else value


@dataclass
class HandPlan:
    plan: Plan
    first_month: date
    http: httpx2.Client = field(repr=False)
    ids: Any = None  # what a fixture wants its test to know (ids by role)

    @property
    def id(self) -> str:
        return self.plan.id

    def account(self, name: str, type: str, balance: str = "0", **fields: Any) -> str:
        """An account opened on the plan's first day with `balance` (its Starting Balance)."""
        made = create_account(
            self.plan, name=name, type=type, balance=cents(balance), date=self.first_month, **fields
        )
        return made.id

    def close(self, account_id: str) -> None:
        """Close an account (the YNAB app does this; its API cannot)."""
        Account.objects.filter(pk=account_id).update(closed=True)

    def group(self, name: str) -> str:
        return self._post("/category_groups", "category_group", {"name": name})["id"]

    def category(self, group_id: str, name: str, **goal: Any) -> str:
        return self._post("/categories", "category", {"name": name, "category_group_id": group_id, **goal})[
            "id"
        ]

    def ready_to_assign(self) -> str:
        return Category.objects.get(plan=self.plan, role=Category.ROLE_READY_TO_ASSIGN).id

    def assign(self, month: date, category_id: str, amount: str) -> None:
        answer = self.http.patch(
            f"/plans/{self.id}/months/{month.isoformat()}/categories/{category_id}",
            json={"category": {"budgeted": cents(amount)}},
        )
        assert answer.is_success, answer.text

    def spend(
        self, account_id: str, day: date, amount: str, payee: str, category_id: str | None = None
    ) -> str:
        """A transaction from `payee` (money out negative) on `day`."""
        body = {
            "account_id": account_id,
            "date": day.isoformat(),
            "amount": cents(amount),
            "payee_name": payee,
        }
        if category_id is not None:
            body["category_id"] = category_id
        return self._post("/transactions", "transaction", body)["id"]

    def transfer(
        self, from_id: str, to_id: str, day: date, amount: str, category_id: str | None = None
    ) -> str:
        """`amount` (positive) moved from one account to another on `day`."""
        body = {
            "account_id": from_id,
            "date": day.isoformat(),
            "amount": -cents(amount),
            "payee_id": Account.objects.get(pk=to_id).transfer_payee_id,
        }
        if category_id is not None:
            body["category_id"] = category_id
        return self._post("/transactions", "transaction", body)["id"]

    def schedule(
        self, account_id: str, first: date, frequency: str, amount: str, payee: str | None = None, **more: Any
    ) -> str:
        body = {
            "account_id": account_id,
            "date": first.isoformat(),
            "frequency": frequency,
            "amount": cents(amount),
            **({"payee_name": payee} if payee else {}),
            **more,
        }
        return self._post("/scheduled_transactions", "scheduled_transaction", body)["id"]

    def _post(self, path: str, key: str, body: dict) -> dict:
        answer = self.http.post(f"/plans/{self.id}{path}", json={key: body})
        assert answer.status_code == 201, answer.text
        return answer.json()["data"][key]


YEN = {
    "iso_code": "JPY",
    "example_format": "123,456",
    "decimal_digits": 0,
    "decimal_separator": ".",
    "symbol_first": True,
    "group_separator": ",",
    "currency_symbol": "¥",
    "display_symbol": True,
}
"""A currency without decimals (YNAB's `currency_format` for yen): its smallest unit is 1000 milliunits."""

DINARS = {
    "iso_code": "KWD",
    "example_format": "123,456.789",
    "decimal_digits": 3,
    "decimal_separator": ".",
    "symbol_first": False,
    "group_separator": ",",
    "currency_symbol": "KD",
    "display_symbol": True,
}
"""A currency with three decimals (Kuwaiti dinars): its smallest unit, the fils, is 1 milliunit."""


def hand_plan(
    months_back: int, name: str = "Hand-made household", currency_format: dict[str, Any] | None = None
) -> HandPlan:
    """An empty plan whose first month is `months_back` months before the current one, in
    `currency_format` (YNAB's plan setting; US dollars when None)."""
    first = month_of(-months_back)
    plan = create_plan(name=name, first_month=first, currency_format=currency_format)
    return HandPlan(plan, first, sandbox_http())


def day_in(month: date, day: int) -> date:
    return month.replace(day=min(day, calendar.monthrange(month.year, month.month)[1]))


def days_after(days: int) -> date:
    return today() + timedelta(days=days)
