"""Every owner page at 1366×768 in Chromium: it fits the screen, names avenir-mcp, shows money as money.

The sweep loads the console's index, every page linked from it, the page of one row of each
model with rows, the pending confirmations page, an operation's undo page, the home page, the
consent page and the login page. Each page fails its test on:

- anything wider than the page (the document scrolls sideways, or a table's right edge lies
  past the window's);
- "Django administration" anywhere, title included;
- a console error, an uncaught exception or a broken static file (the `page` fixture);
- on the owner's pages, the milliunit figures of the operation the test made (Dining Out
  120.00 → 150.00: 120000 and 150000) in the visible text outside its "Technical details"
  (`details.technical-details`).

A full-page screenshot of each page is saved, named after it, under the folder named by
`AVENIR_TEST_OUTPUT` or else the test run's own `screenshots` folder (never in the checkout);
the folder is printed.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Model
from django.urls import reverse
from playwright.async_api import BrowserContext, Page, expect

from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE
from avenir_mcp.tokens.models import McpToken
from tests.browser.agent import NEW_MILLIUNITS, Agent
from tests.browser.conftest import log_in
from tests.helpers.oauth import Pkce, authorization_url, register, signed_in_client
from tests.served import ServedApp
from tests.writes.assigned_plans import DINING_ASSIGNED, BudgetHome, budget_home

pytestmark = pytest.mark.anyio

VIEWPORT = {"width": 1366, "height": 768}
DJANGO_NAME = "Django administration"
MILLIUNIT_FIGURES = (str(DINING_ASSIGNED), str(NEW_MILLIUNITS))
TECHNICAL_DETAILS = "details.technical-details"

# The page's width problems: the document scrolling sideways, each table past the window's edge, and
# each cell whose content runs out of it (over the next column, or past the table).
WIDTH_PROBLEMS = """() => {
  const width = window.innerWidth, problems = [];
  if (document.documentElement.scrollWidth > width)
    problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  document.querySelectorAll("table").forEach((table, index) => {
    const right = table.getBoundingClientRect().right + window.scrollX;
    if (right > width + 0.5)
      problems.push(`table ${table.id || index} ends at ${Math.round(right)} px`);
    table.querySelectorAll("td, th").forEach((cell) => {
      if (cell.scrollWidth > cell.clientWidth + 1)
        problems.push(`a cell of table ${table.id || index} holds ${cell.scrollWidth} px in `
          + `${cell.clientWidth}: ${cell.innerText.slice(0, 40)}`);
    });
  });
  return problems;
}"""

# The text a person sees, without what is folded under "Technical details".
TEXT_OUTSIDE_DETAILS = """(selector) => {
  const folded = [...document.querySelectorAll(selector)];
  const shown = folded.map((element) => element.style.display);
  folded.forEach((element) => { element.style.display = "none"; });
  const text = document.body.innerText;
  folded.forEach((element, index) => { element.style.display = shown[index]; });
  return text;
}"""


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the pages' screenshots go: `AVENIR_TEST_OUTPUT`, else this run's temporary folder."""
    given = os.environ.get("AVENIR_TEST_OUTPUT")
    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent  # the run's folder, not this worker's
    folder = (Path(given) if given else run) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nScreenshots of the owner's pages: {folder}")
    return folder


@pytest.fixture
async def at_1366(page: Page) -> Page:
    await page.set_viewport_size(VIEWPORT)
    return page


def shot_name(page: Page) -> str:
    """A file name for the page: its path (`admin-oplog-operation-1-change`), at most 80 characters."""
    path = urlsplit(page.url).path
    return re.sub(r"[^\w]+", "-", path).strip("-")[:80] or "home"


async def visit(page: Page, address: str, folder: Path, *, owner_page: bool = True) -> None:
    """Load `address` and check it as the module says; its screenshot is saved either way."""
    response = await page.goto(address)
    assert response is not None, address
    assert response.status == 200, address
    await page.screenshot(path=folder / f"{shot_name(page)}.png", full_page=True)
    await check(page, address, owner_page=owner_page)


async def check(page: Page, address: str, *, owner_page: bool = True) -> None:
    assert DJANGO_NAME not in await page.title(), address
    assert DJANGO_NAME not in await page.content(), address
    assert await page.evaluate(WIDTH_PROBLEMS) == [], address
    if owner_page:
        shown = await page.evaluate(TEXT_OUTSIDE_DETAILS, TECHNICAL_DETAILS)
        for figure in MILLIUNIT_FIGURES:
            assert not re.search(rf"(?<![\w.,]){figure}(?!\w)", shown), (
                f"{address} shows {figure} (milliunits)"
            )


async def index_links(page: Page) -> list[str]:
    """The pages the console's index links to, once each (without their query)."""
    await page.goto("/admin/")
    hrefs = await page.locator("#content-main a").evaluate_all("links => links.map(a => a.pathname)")
    return sorted(set(hrefs))


def row_pages(app_label: str | None = None, *, besides: tuple[str, ...] = ()) -> list[str]:
    """The page of one row of each model the admin lists (of `app_label`, or of all apps but `besides`)."""
    pages = []
    for model in apps.get_models():
        label = model._meta.app_label
        if not admin.site.is_registered(model) or (app_label and label != app_label) or label in besides:
            continue
        row: Model | None = model._default_manager.order_by("pk").first()
        if row is not None:
            pages.append(reverse(f"admin:{label}_{model._meta.model_name}_change", args=[row.pk]))
    return pages


@pytest.fixture
async def the_owners_records(owner: User, agent: Agent, live_service: ServedApp) -> None:
    """A row of each of the owner's kinds: an OAuth client and grant, a second token (the agent's
    is one), and YNAB requests (the agent's calls send them)."""
    await sync_to_async(signed_in_client)(live_service, owner, scope=f"{SCOPE_READ} {SCOPE_WRITE}")
    await sync_to_async(McpToken.issue)(f"browser laptop {uuid.uuid4().hex[:8]}", read_only=True)


async def test_the_index_and_every_page_it_links_fit_and_name_avenir_mcp(
    owner_page: Page, at_1366: Page, agent: Agent, budget: BudgetHome, the_owners_records, screenshots: Path
):
    page = owner_page
    # Plans made before the agent's first call, which lists the plans.
    undone = await sync_to_async(budget_home)(name=f"Browser undone {uuid.uuid4().hex[:8]}")
    waiting = await sync_to_async(budget_home)(name=f"Browser waiting {uuid.uuid4().hex[:8]}")
    operation_id = await agent.budget_with_code(budget)
    # An operation undone and its undo: the list's longest undo words ("undo of <id>").
    await agent.undo_with_code(undone, await agent.budget_with_code(undone))
    await agent.propose_budget(waiting)  # waits for the owner: on the index with its time left

    await visit(page, "/admin/", screenshots)
    await expect(page).to_have_title(re.compile("avenir-mcp"))
    await expect(page.locator("#console-pending")).to_contain_text("set_category_budget")
    await expect(page.locator("#console-pending")).to_contain_text(re.compile(r"\d+ min \d\d s"))
    await expect(page.locator("#console-plans")).to_contain_text(budget.home.plan.name)
    links = await index_links(page)

    assert {"/admin/confirmations/pending/", "/admin/oplog/operation/", "/admin/oauth/oauthgrant/"} <= set(
        links
    )
    for address in links:
        await visit(page, address, screenshots)
    await visit(page, f"/admin/oplog/operation/{operation_id}/undo/", screenshots)


async def test_a_row_of_each_of_the_owners_models_fits(
    owner_page: Page, at_1366: Page, agent: Agent, budget: BudgetHome, the_owners_records, screenshots: Path
):
    page = owner_page
    operation_id = await agent.budget_with_code(budget)
    for address in await sync_to_async(row_pages)(besides=("sandbox", "oplog")):
        await visit(page, address, screenshots)

    # The operation the agent made (the log's row), last: its amounts are the milliunits looked for.
    await visit(page, f"/admin/oplog/operation/{operation_id}/change/", screenshots)
    await expect(page.locator("#content h1")).not_to_contain_text("Change")


async def test_a_row_of_each_of_the_sandboxs_models_fits(
    owner_page: Page, at_1366: Page, budget: BudgetHome, screenshots: Path
):
    page = owner_page
    for address in await sync_to_async(row_pages)("sandbox"):
        await visit(page, address, screenshots, owner_page=False)


async def test_the_home_login_and_consent_pages_fit(
    at_1366: Page, context: BrowserContext, owner: User, live_service: ServedApp, screenshots: Path
):
    page = at_1366
    await visit(page, "/", screenshots, owner_page=False)
    await visit(page, "/admin/login/", screenshots, owner_page=False)

    await log_in(context, owner, live_service.url)
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, live_service.url, client_name="Claude")
    await visit(page, authorization_url(live_service.url, client, Pkce.new()), screenshots, owner_page=False)
    await expect(page.get_by_role("button", name="Allow")).to_be_visible()
