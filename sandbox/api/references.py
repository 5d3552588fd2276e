"""The ids a write may refer to, loaded once per request so a whole request is checked
before anything is written (an unknown id is a 400 naming the field and item)."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.api.fields import Body
from sandbox.models import Account, Category, Payee, Plan


@dataclass(frozen=True)
class AccountRef:
    id: str
    on_budget: bool
    transfer_payee_id: str | None


class PlanReferences:
    """Live accounts, payees (with the account a transfer payee points to) and categories."""

    def __init__(self, plan: Plan) -> None:
        self.accounts = {
            row[0]: AccountRef(*row)
            for row in Account.objects.filter(plan=plan, deleted=False).values_list(
                "id", "on_budget", "transfer_payee_id"
            )
        }
        self.payees = dict(
            Payee.objects.filter(plan=plan, deleted=False).values_list("id", "transfer_account_id")
        )
        self.roles = dict(Category.objects.filter(plan=plan, deleted=False).values_list("id", "role"))
        self.split_category_id = next(
            (c for c, role in self.roles.items() if role == Category.ROLE_SPLIT), None
        )

    def account(self, body: Body, name: str, account_id: str) -> AccountRef:
        if account_id not in self.accounts:
            raise body.fail(f"{name} does not exist in this plan")
        return self.accounts[account_id]

    def payee(self, body: Body, name: str, payee_id: str) -> str | None:
        """Check a payee id; the account it transfers to, if it is a transfer payee."""
        if payee_id not in self.payees:
            raise body.fail(f"{name} does not exist in this plan")
        return self.payees[payee_id]

    def category_role(self, body: Body, name: str, category_id: str) -> str:
        role = self.roles.get(category_id)
        if role is None or role == Category.ROLE_SPLIT:
            raise body.fail(f"{name} does not exist in this plan")
        return role
