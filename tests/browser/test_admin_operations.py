"""The operation log in Chromium: the list, an operation's page, and the owner's undo from the admin.

The operation is a real one: an agent sets a budget through /mcp with a confirmation code,
and YNAB (the sandbox) is read back over HTTP.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from avenir_mcp.oplog.models import Operation
from tests.browser.agent import NEW_MILLIUNITS, Agent
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, assigned

pytestmark = pytest.mark.anyio

LOG = "/admin/oplog/operation/"


def operation_url(operation_id: str) -> str:
    return f"{LOG}{operation_id}/change/"


def at_operation(operation_id: str) -> re.Pattern[str]:
    """An operation's page, also with the list's filters kept in the query."""
    return re.compile(re.escape(operation_url(operation_id)) + r"(\?.*)?$")


def field(page: Page, name: str):
    """A read-only field's value on an operation's page."""
    return page.locator(f".field-{name} .readonly")


async def test_the_log_lists_the_agents_operation_and_opens_its_page(
    owner_page: Page, agent: Agent, budget: BudgetHome
):
    operation_id = await agent.budget_with_code(budget)
    page = owner_page

    await page.goto(LOG)
    await expect(page.locator("#content h1")).to_have_text("Select operation to view")
    await page.locator("#searchbar").fill(budget.id)
    await page.locator("#changelist-search").get_by_role("button", name="Search").click()

    rows = page.locator("#result_list tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text(budget.home.plan.name)
    await expect(rows.first).to_contain_text("Dining Out")
    await expect(rows.first).to_contain_text("applied")
    await rows.first.get_by_role("link", name=operation_id).click()

    await expect(page).to_have_url(at_operation(operation_id))
    await expect(field(page, "tool")).to_have_text("set_category_budget")
    await expect(field(page, "status")).to_have_text("applied")
    await expect(field(page, "confirmed_by")).to_have_text("confirmation code")
    await expect(field(page, "preview_text")).to_contain_text("Dining Out")
    await expect(field(page, "preview_text")).to_contain_text("120.00 → 150.00")
    change = page.locator("#change-table tbody tr")
    await expect(change).to_have_count(1)
    await expect(change.first.locator("td")).to_have_text(["Dining Out", "assigned", "$120.00", "$150.00"])
    await expect(page.locator("#undo-state")).to_contain_text("can be undone")
    await expect(page.locator("#undo-state").get_by_role("link", name="Undo…")).to_be_visible()
    technical = page.locator("details.technical-details")
    await expect(technical.locator("pre").first).to_be_hidden()  # folded until the owner opens it
    await technical.locator("summary", has_text="Technical details").click()
    await expect(technical).to_contain_text('"amount": 150000')
    await expect(page.locator("#content")).not_to_contain_text("Undoable")


async def test_the_owner_undoes_an_operation_after_the_intermediate_page(
    owner_page: Page, agent: Agent, budget: BudgetHome
):
    operation_id = await agent.budget_with_code(budget)
    assert await assigned(budget, budget.home.dining) == NEW_MILLIUNITS
    page = owner_page

    await page.goto(operation_url(operation_id))
    await page.get_by_role("link", name="Undo…").click()

    await expect(page).to_have_url(f"{LOG}{operation_id}/undo/")
    await expect(page.locator("#content h1")).to_have_text(f"Undo operation {operation_id}?")
    await expect(page.locator("#undo-preview")).to_contain_text("Dining Out")
    await expect(page.locator("#undo-preview")).to_contain_text("150.00 → 120.00")
    assert await assigned(budget, budget.home.dining) == NEW_MILLIUNITS  # the page changed nothing
    await page.get_by_role("button", name="Yes, undo it in YNAB").click()

    await expect(page.locator(".messagelist .success")).to_be_visible()
    await expect(page).to_have_url(re.compile(rf"{LOG}(?!{operation_id}/)[^/]+/change/$"))
    await expect(field(page, "tool")).to_have_text("undo_operation")
    await expect(field(page, "confirmed_by")).to_have_text("the owner, in the admin")
    await expect(field(page, "status")).to_have_text("applied")
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED
    original = await Operation.objects.select_related("undone_by").aget(pk=operation_id)
    assert original.undone_by is not None
    assert page.url.endswith(operation_url(original.undone_by.pk))
    assert original.undone_by.confirmed_by == "admin"

    await page.goto(operation_url(operation_id))
    await expect(page.get_by_role("link", name="Undo…")).to_have_count(0)
    await expect(page.locator("#undo-state")).to_contain_text(
        f"undone by operation {original.undone_by.pk} on "
    )
    await page.goto(LOG)
    row = page.locator("#result_list tbody tr", has=page.get_by_role("link", name=operation_id, exact=True))
    await expect(row.locator("td.field-undo")).to_have_text("undone")
    await expect(row.locator("img[alt='False']")).to_have_count(0)  # no red cross for an undone row


async def test_no_takes_the_owner_back_and_undoes_nothing(owner_page: Page, agent: Agent, budget: BudgetHome):
    operation_id = await agent.budget_with_code(budget)
    page = owner_page

    await page.goto(f"{LOG}{operation_id}/undo/")
    await page.get_by_role("link", name="No, take me back").click()

    await expect(page).to_have_url(operation_url(operation_id))
    await expect(field(page, "status")).to_have_text("applied")
    assert await assigned(budget, budget.home.dining) == NEW_MILLIUNITS
