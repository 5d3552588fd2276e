"""Fixtures for the browser tests: Chromium on the live service, pages that fail on errors, the owner.

One Chromium runs for the whole package (launching it takes about a second); each test gets
a fresh browser context (its own cookies) on the service the suite already serves under
uvicorn (`live_service`). The tests use Playwright's async API: its sync API keeps an event
loop marked as running in the test's thread, where Django's ORM and the MCP client's
`anyio` calls then refuse to run.

`page` fails its test on any page error, console error or broken static file
(`chromium.PageProblems`): the test body is wrapped so that the check runs as part of the
test, and once more at teardown for anything that arrived later. Every test is bounded by
`TEST_TIMEOUT_SECONDS`, every browser action by Playwright's timeouts (`chromium`).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import AsyncIterator, Iterator
from inspect import iscoroutinefunction

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client as DjangoClient
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from avenir_mcp.tokens.models import McpToken
from tests.browser import chromium
from tests.browser.agent import Agent
from tests.served import ServedApp
from tests.writes.assigned_plans import BudgetHome, budget_home

TEST_TIMEOUT_SECONDS = 90
expect.set_options(timeout=chromium.ASSERTION_TIMEOUT_MS)  # a shared machine can be slow to render


@pytest.fixture(scope="package")
def anyio_backend() -> str:
    """Package-wide, so that the one browser and the tests share one event loop."""
    return "asyncio"


@pytest.fixture(scope="package")
async def browser(anyio_backend, live_service: ServedApp) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await chromium.launch(playwright)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
def page_problems() -> chromium.PageProblems:
    return chromium.PageProblems()


@pytest.fixture
async def context(
    browser: Browser, live_service: ServedApp, page_problems: chromium.PageProblems
) -> AsyncIterator[BrowserContext]:
    """A fresh context (no cookies) whose relative URLs go to the live service; every page watched."""
    context = await browser.new_context(base_url=live_service.url)
    context.set_default_timeout(chromium.ACTION_TIMEOUT_MS)
    context.set_default_navigation_timeout(chromium.NAVIGATION_TIMEOUT_MS)
    context.on("page", page_problems.watch)
    try:
        yield context
    finally:
        await page_problems.settle()
        await context.close()
    page_problems.check()


@pytest.fixture
async def page(context: BrowserContext) -> Page:
    """A page that fails the test on any page error, console error or broken static file."""
    return await context.new_page()


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Iterator[None]:
    """Run a watched test bounded in time, and check its pages' problems as its last step."""
    problems = pyfuncitem.funcargs.get("page_problems")
    test = pyfuncitem.obj
    if isinstance(problems, chromium.PageProblems) and iscoroutinefunction(test):

        @functools.wraps(test)
        async def checked(**arguments: object) -> None:
            with anyio.fail_after(TEST_TIMEOUT_SECONDS):
                await test(**arguments)
                await problems.settle()
            problems.check()

        pyfuncitem.obj = checked
    try:
        yield
    finally:
        pyfuncitem.obj = test


# --- the owner ------------------------------------------------------------------------------------


@pytest.fixture
def owner() -> User:
    """The person who runs the service: a superuser of the admin (no password: `owner_page` logs
    in by session; hashing one costs a second on a busy machine)."""
    return User.objects.create_superuser(username=f"owner-{uuid.uuid4().hex[:10]}", password=None)


@pytest.fixture
def owner_login() -> chromium.OwnerLogin:
    """An owner with a password, to type into the login form."""
    login = chromium.OwnerLogin(f"owner-{uuid.uuid4().hex[:10]}", uuid.uuid4().hex)
    User.objects.create_superuser(username=login.username, password=login.password)
    return login


async def log_in(context: BrowserContext, user: User, base_url: str) -> None:
    """Give the browser `user`'s session cookie, as after a successful login (the login form
    itself is tested once, in test_admin_login)."""

    def session_key() -> str:
        client = DjangoClient()
        client.force_login(user)
        return client.cookies[settings.SESSION_COOKIE_NAME].value

    key = await sync_to_async(session_key)()
    await context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": base_url}])


@pytest.fixture
async def owner_page(page: Page, context: BrowserContext, owner: User, live_service: ServedApp) -> Page:
    """A watched page whose browser is logged in to the admin as the owner."""
    await log_in(context, owner, live_service.url)
    return page


# --- an agent and a plan of its own ---------------------------------------------------------------


@pytest.fixture
def writes_on(settings) -> None:
    """Write tools listed to read-write tokens; codes go to the agent (a client that cannot ask).

    pytest-django's `settings` puts the previous values back after the test.
    """
    settings.AVENIR_MCP_WRITE = True
    settings.AVENIR_MCP_REQUIRE_ELICITATION = False
    settings.AVENIR_MCP_CODES_TO = "agent"


@pytest.fixture
def budget(live_service: ServedApp) -> BudgetHome:
    """A fresh plan, named uniquely so its rows are told apart in the admin, with Dining Out at 120.00."""
    return budget_home(name=f"Browser household {uuid.uuid4().hex[:8]}")


@pytest.fixture
def agent(live_service: ServedApp, writes_on: None) -> Agent:
    _row, token = McpToken.issue(f"browser agent {uuid.uuid4().hex[:8]}", read_only=False)
    return Agent(live_service.url, token)
