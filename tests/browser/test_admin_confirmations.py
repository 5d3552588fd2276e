"""Pending confirmations in Chromium: the owner revokes a code an agent was given, and the code is refused.

The code comes from the real path: an agent without elicitation calls a write tool on the
live service's /mcp and is given a code; it waits in the serving process's store, which the
admin page shows.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from avenir_mcp.confirmations import messages
from avenir_mcp.oplog.models import Operation
from tests.browser.agent import Agent, budget_arguments
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, assigned

pytestmark = pytest.mark.anyio

PAGE = "/admin/confirmations/pending/"


def waiting_row(page: Page, budget: BudgetHome):
    """The page's row for the budget's plan (other tests' confirmations may wait too)."""
    return page.locator(f'#pending-confirmations tbody tr:has(td[title="{budget.id}"])')


async def test_the_owner_revokes_a_pending_code_and_the_agent_is_refused_with_it(
    owner_page: Page, agent: Agent, budget: BudgetHome
):
    code = await agent.propose_budget(budget)
    page = owner_page

    await page.goto("/admin/")
    await page.get_by_role("link", name="Pending confirmations").click()
    await expect(page).to_have_url(PAGE)
    row = waiting_row(page, budget)
    await expect(row).to_have_count(1)
    await expect(row).to_contain_text("set_category_budget")
    await expect(row).to_contain_text(budget.home.plan.name)
    await expect(row).to_contain_text("Budget Dining Out for")
    await expect(row).to_contain_text("120.00 → 150.00")
    await expect(row).to_contain_text("confirmation code (agent)")
    await expect(page.locator("#content")).not_to_contain_text(code)  # the agent's code is never shown
    await row.get_by_role("button", name="Revoke").click()

    await expect(page).to_have_url(PAGE)
    await expect(page.locator(".messagelist .success")).to_have_text(
        "Revoked: that confirmation can no longer be used."
    )
    await expect(waiting_row(page, budget)).to_have_count(0)

    refused = await agent.call("set_category_budget", {**budget_arguments(budget), "confirmation": code})
    assert refused.is_error
    assert refused.content[0].text == messages.CODE_REFUSED
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED
    assert await Operation.objects.filter(plan_id=budget.id).acount() == 0
