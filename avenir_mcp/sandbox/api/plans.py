"""The user, the plans list, a plan's settings."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings

from avenir_mcp.sandbox.api import params
from avenir_mcp.sandbox.api.http import SandboxRequest, default_plan
from avenir_mcp.sandbox.models import Account, Plan
from avenir_mcp.sandbox.serialize.accounts import ACCOUNT_FIELDS, account
from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.plans import plan_settings, plan_summary

_USER_NAMESPACE = uuid.UUID("6b1d3c52-4f7e-4f0a-9a54-5e0c2b8f7a11")


def sandbox_user_id() -> str:
    """The one user of the sandbox: a stable id derived from the token in use."""
    return str(uuid.uuid5(_USER_NAMESPACE, settings.SANDBOX_TOKEN))


def get_user(call: SandboxRequest) -> dict[str, Any]:
    return {"user": {"id": sandbox_user_id()}}


def list_plans(call: SandboxRequest) -> dict[str, Any]:
    with_accounts = params.flag(call.query("include_accounts"), "include_accounts")
    summaries = []
    for plan in Plan.objects.order_by("name", "id"):
        summary = plan_summary(plan)
        if with_accounts:
            summary["accounts"] = _accounts(plan)
        summaries.append(summary)
    default = default_plan()
    return {"plans": summaries, "default_plan": plan_summary(default) if default else None}


def get_settings(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    return {"settings": plan_settings(plan)}


def _accounts(plan: Plan) -> list[dict[str, Any]]:
    money = MoneyFormat(plan.currency_format)
    rows = Account.objects.filter(plan=plan, deleted=False).values(*ACCOUNT_FIELDS)
    return [account(row, money) for row in rows]
