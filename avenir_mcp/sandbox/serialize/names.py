"""Names shown beside ids (account_name, payee_name, category_name), loaded once per answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.models import Account, Category, Payee, Plan

SPLIT_NAME = "Split"


@dataclass(frozen=True)
class Names:
    accounts: dict[str, str]
    payees: dict[str, str]
    categories: dict[str, str]

    def account(self, account_id: str | None) -> str | None:
        return self.accounts.get(account_id) if account_id else None

    def payee(self, payee_id: str | None) -> str | None:
        return self.payees.get(payee_id) if payee_id else None

    def category(self, category_id: str | None) -> str | None:
        return self.categories.get(category_id) if category_id else None

    def add_to(self, item: dict[str, Any]) -> dict[str, Any]:
        """`item` (a transaction or a schedule) with `account_name`, `payee_name` and
        `category_name` added after its other keys, as YNAB's details give them."""
        item["account_name"] = self.account(item["account_id"]) or ""
        item["payee_name"] = self.payee(item["payee_id"])
        item["category_name"] = self.category(item["category_id"])
        return item


_CATEGORY_NAMES = PreparedRows(
    lambda plan_id: Category.objects.filter(plan_id=plan_id).values_list("id", "name", "role")
)
_ACCOUNT_NAMES = PreparedRows(
    lambda plan_id: Account.objects.filter(plan_id=plan_id).values_list("id", "name")
)
_PAYEE_NAMES = PreparedRows(lambda plan_id: Payee.objects.filter(plan_id=plan_id).values_list("id", "name"))


def load_names(plan: Plan) -> Names:
    categories = {
        category_id: SPLIT_NAME if role == Category.ROLE_SPLIT else name
        for category_id, name, role in _CATEGORY_NAMES.fetch(plan.pk)
    }
    return Names(
        accounts=dict(_ACCOUNT_NAMES.fetch(plan.pk)),
        payees=dict(_PAYEE_NAMES.fetch(plan.pk)),
        categories=categories,
    )
