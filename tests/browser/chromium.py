"""Debian's Chromium driven by Playwright, and a watch on every page for errors.

Playwright's own browser download cannot work on the project's machines, so Playwright
drives the system's Chromium (`/usr/bin/chromium`, installed by `.ci/run`). A missing
Chromium fails the browser tests with a one-line message saying how to install it: they
are part of the suite, never skipped silently.

A page is watched from its first request: an uncaught exception, a console error (Chromium
logs one for every resource answered 4xx/5xx) or a static file (stylesheet, script, image,
font) that failed or was answered with an error status all count as a problem, and the
fixtures in conftest.py fail the test on any. One failure is not a problem: a static file
Chromium abandoned (`net::ERR_ABORTED`) because the page was left while it loaded, as when a
test clicks a link before the list it came from has fetched its scripts.
"""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.async_api import Browser, ConsoleMessage, Error, Page, Playwright, Request, Response, expect

CHROMIUM_PATH = Path(os.environ.get("AVENIR_TEST_CHROMIUM", "/usr/bin/chromium"))
MISSING = (
    f"Chromium not found at {CHROMIUM_PATH}: install Debian's `chromium` (apt-get install chromium; "
    ".ci/run does it) or set AVENIR_TEST_CHROMIUM to a Chromium binary."
)
# Headless, as root, on a machine with no outside network: without the networking flags
# Chromium keeps trying to reach Google's hosts and is refused, many times at each start.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LAUNCH_TIMEOUT_MS = 30_000
ACTION_TIMEOUT_MS = 10_000  # a click, a fill, a wait for an element
NAVIGATION_TIMEOUT_MS = 20_000  # a page load (an undo page reads the plan from YNAB first)
ASSERTION_TIMEOUT_MS = 10_000  # how long `expect(...)` waits for the page to agree (default 5 s)
STATIC_FILES = {"stylesheet", "script", "image", "font", "media"}
LAPTOP = {"width": 1366, "height": 768}  # the smallest laptop screen the owner's pages must fit
PHONE = {"width": 390, "height": 844}


async def launch(playwright: Playwright) -> Browser:
    """The system's Chromium, headless; the test fails with `MISSING` when there is none."""
    if not os.access(CHROMIUM_PATH, os.X_OK):
        pytest.fail(MISSING, pytrace=False)
    return await playwright.chromium.launch(
        executable_path=str(CHROMIUM_PATH), headless=True, args=ARGS, timeout=LAUNCH_TIMEOUT_MS
    )


@dataclass
class PageProblems:
    """What went wrong on the watched pages: each problem a line naming the page it happened on."""

    pages: list[Page] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    reported: int = 0  # how many lines a failure has already shown
    # Each page's count of documents asked for, and that count when each static file was asked
    # for: a file abandoned after its page asked for the next document is not a problem.
    documents: dict[Page, int] = field(default_factory=dict)
    asked_during: dict[Request, int] = field(default_factory=dict)

    def watch(self, page: Page) -> Page:
        self.pages.append(page)
        page.on("pageerror", lambda error: self._add(page, f"uncaught {error.name}: {error.message}"))
        page.on("console", lambda message: self._console(page, message))
        page.on("request", lambda request: self._asked(page, request))
        page.on("response", lambda response: self._response(page, response))
        page.on("requestfailed", lambda request: self._failed(page, request))
        page.on("requestfinished", lambda request: self.asked_during.pop(request, None))
        return page

    async def settle(self) -> None:
        """Take in every event the pages sent so far: one round trip to each open page."""
        for page in self.pages:
            if not page.is_closed():
                with suppress(Error):  # closed or navigating meanwhile: its events are in already
                    await page.evaluate("0")

    def check(self) -> None:
        """Fail the test with the problems not yet reported, one per line."""
        new = self.lines[self.reported :]
        self.reported = len(self.lines)
        if new:
            pytest.fail("the browser saw errors:\n" + "\n".join(new), pytrace=False)

    def _add(self, page: Page, line: str) -> None:
        self.lines.append(f"{line} (on {page.url})")

    def _console(self, page: Page, message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location.get("url") or ""
            self._add(page, f"console error: {message.text} {where}".rstrip())

    def _response(self, page: Page, response: Response) -> None:
        if response.status >= 400 and response.request.resource_type in STATIC_FILES:
            self._add(page, f"static file answered {response.status}: {response.url}")

    def _asked(self, page: Page, request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            self.documents[page] = self.documents.get(page, 0) + 1
        elif request.resource_type in STATIC_FILES:
            self.asked_during[request] = self.documents.get(page, 0)

    def _failed(self, page: Page, request: Request) -> None:
        if request.resource_type not in STATIC_FILES:
            return
        page_was_left = self.asked_during.pop(request, None) != self.documents.get(page, 0)
        if request.failure == "net::ERR_ABORTED" and page_was_left:
            return
        self._add(page, f"static file failed ({request.failure}): {request.url}")


@dataclass(frozen=True)
class OwnerLogin:
    """An owner with a password, for the tests that type it into the admin's login form (the
    other tests get a session cookie: hashing a password costs about a second here)."""

    username: str
    password: str


async def submit_login_form(page: Page, login: OwnerLogin, *, password: str | None = None) -> None:
    """Fill the admin's login form on `page` as `login` (with another `password` if given) and
    submit it."""
    await page.get_by_label("Username").fill(login.username)
    await page.get_by_label("Password").fill(login.password if password is None else password)
    await page.get_by_role("button", name="Sign in").click()


async def fits_the_width(page: Page) -> bool:
    """Nothing on the page is wider than the window (no sideways scrolling)."""
    return bool(await page.evaluate("document.documentElement.scrollWidth <= innerWidth"))


async def on_its_own_page(page: Page) -> None:
    """The OAuth sign-in's own page (consent, refusal, login): not inside the admin's chrome."""
    await expect(page.locator("body")).not_to_contain_text("Django administration")
    await expect(page).not_to_have_title("Django administration")
    await expect(page.locator("#nav-sidebar")).to_have_count(0)
    await expect(page.locator(".masthead")).to_have_text("avenir-mcp")
