"""Plans (`PlanSummary`, `PlanSettings`)."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.ledger.setup import US_DATES, USD
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.sandbox.serialize.money import iso_date, iso_datetime


def plan_summary(plan: Plan) -> dict[str, Any]:
    return {
        "id": plan.id,
        "name": plan.name,
        "last_modified_on": iso_datetime(plan.last_modified_on),
        "first_month": iso_date(plan.first_month),
        "last_month": iso_date(plan.last_month),
        **plan_settings(plan),
    }


def plan_settings(plan: Plan) -> dict[str, Any]:
    return {
        "date_format": plan.date_format or dict(US_DATES),
        "currency_format": plan.currency_format or dict(USD),
    }
