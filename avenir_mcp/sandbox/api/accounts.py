"""Accounts: list (delta), one, and create."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.api.fields import Body
from avenir_mcp.sandbox.api.http import Answer, SandboxRequest, not_found
from avenir_mcp.sandbox.api.params import changed, since
from avenir_mcp.sandbox.models import Account, Plan
from avenir_mcp.sandbox.serialize.accounts import ACCOUNT_FIELDS, account
from avenir_mcp.sandbox.serialize.money import MoneyFormat

CREATABLE_TYPES = ("checking", "savings", "cash", "creditCard", "otherAsset", "otherLiability")


def list_accounts(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = changed(Account.objects.filter(plan=plan), since(call)).values(*ACCOUNT_FIELDS)
    money = MoneyFormat(plan.currency_format)
    return {"accounts": [account(row, money) for row in rows], "server_knowledge": knowledge}


def get_account(call: SandboxRequest, plan: Plan, account_id: str) -> dict[str, Any]:
    row = Account.objects.filter(plan=plan, pk=account_id, deleted=False).values(*ACCOUNT_FIELDS).first()
    if row is None:
        raise not_found()
    return {"account": account(row, MoneyFormat(plan.currency_format))}


def create_account(call: SandboxRequest, plan: Plan) -> Answer:
    body = Body.wrapped(call.body(), "account")
    name = body.text("name", required=True, nullable=False, max_length=200, non_blank=True)
    kind = body.choice("type", CREATABLE_TYPES, required=True)
    balance = body.integer("balance", required=True)
    created = ledger.create_account(plan, name=name, type=kind, balance=balance)
    row = Account.objects.filter(pk=created.pk).values(*ACCOUNT_FIELDS).get()
    return Answer({"account": account(row, MoneyFormat(plan.currency_format))}, status=201)
