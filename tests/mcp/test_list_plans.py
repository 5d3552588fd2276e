"""list_plans end to end: over /mcp at both protocol eras, against the sandbox served for real."""

from __future__ import annotations

import uuid
from datetime import date

import anyio
import pytest

from avenir_mcp.sandbox.ledger import create_plan
from tests.helpers.mcp_http import MODES, mcp_over_http
from tests.mcp.answers import summary

EUR = {
    "iso_code": "EUR",
    "example_format": "123.456,78",
    "decimal_digits": 2,
    "decimal_separator": ",",
    "symbol_first": False,
    "group_separator": ".",
    "currency_symbol": "€",
    "display_symbol": True,
}


@pytest.fixture
def euro_plan():
    """A plan of this test's own, whose name carries a line break and a direction override."""
    name = f"Famille\n\u202eDupont {uuid.uuid4().hex[:6]}"
    return create_plan(name=name, first_month=date(2025, 3, 1), currency_format=EUR)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_list_plans_returns_each_plan_with_months_currency_and_default(
    live_service, read_only_token, euro_plan, settings, mode
):
    settings.AVENIR_MCP_DEFAULT_PLAN = euro_plan.id
    _row, token = read_only_token

    with anyio.fail_after(30):
        async with mcp_over_http(live_service.url, token, mode=mode) as client:
            result = await client.call_tool("list_plans", {})

    plans = {plan["plan_id"]: plan for plan in result.structured_content["plans"]}
    assert result.is_error is False
    assert plans[euro_plan.id] == {
        "plan_id": euro_plan.id,
        "name": euro_plan.name.replace("\n", " ").replace("\u202e", ""),
        "first_month": "2025-03-01",
        "last_month": euro_plan.last_month.isoformat(),
        "currency": "EUR",
        "is_default": True,
    }
    assert [plan_id for plan_id, plan in plans.items() if plan["is_default"]] == [euro_plan.id]
    assert summary(result).endswith(f"default: {plans[euro_plan.id]['name']} (id {euro_plan.id}).")
