"""The watch every browser test runs under: it sees page errors, console errors and broken static files."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Browser

from tests.browser import chromium
from tests.served import ServedApp

pytestmark = pytest.mark.anyio


async def watched_problems(browser: Browser, base_url: str, script: str) -> chromium.PageProblems:
    """What the watch records on the admin's login page after running `script` there."""
    problems = chromium.PageProblems()
    context = await browser.new_context(base_url=base_url)
    try:
        page = problems.watch(await context.new_page())
        await page.goto("/admin/login/")
        await page.evaluate(script)
        await problems.settle()
    finally:
        await context.close()
    return problems


async def test_a_clean_page_leaves_nothing(browser: Browser, live_service: ServedApp):
    problems = await watched_problems(browser, live_service.url, "document.title")

    assert problems.lines == []
    problems.check()


async def test_an_uncaught_exception_fails_the_check(browser: Browser, live_service: ServedApp):
    problems = await watched_problems(
        browser, live_service.url, "setTimeout(() => { throw new TypeError('broken handler') }); 0"
    )

    assert any("uncaught TypeError: broken handler" in line for line in problems.lines), problems.lines
    with pytest.raises(pytest.fail.Exception, match="broken handler"):
        problems.check()


async def test_a_console_error_fails_the_check(browser: Browser, live_service: ServedApp):
    problems = await watched_problems(browser, live_service.url, "console.error('something went wrong')")

    assert problems.lines == [f"console error: something went wrong (on {live_service.url}/admin/login/)"]


async def test_a_missing_static_file_fails_the_check(browser: Browser, live_service: ServedApp):
    problems = await watched_problems(
        browser,
        live_service.url,
        """new Promise(done => {
            const link = document.createElement('link');
            link.rel = 'stylesheet';
            link.href = '/static/admin/css/no-such-file.css';
            link.onerror = done;
            document.head.append(link);
        })""",
    )

    # Django answers 404 in HTML, which Chromium refuses as a stylesheet (nosniff) and aborts.
    missing = f"{live_service.url}/static/admin/css/no-such-file.css"
    assert f"static file failed (net::ERR_ABORTED): {missing} (on {live_service.url}/admin/login/)" in (
        problems.lines
    )
    refused = f"console error: Refused to apply style from '{missing}'"
    assert any(line.startswith(refused) for line in problems.lines)


async def test_a_missing_image_fails_the_check(browser: Browser, live_service: ServedApp):
    problems = await watched_problems(
        browser,
        live_service.url,
        """new Promise(done => {
            const image = new Image();
            image.onerror = done;
            image.src = '/static/admin/img/no-such-image.svg';
            document.body.append(image);
        })""",
    )

    missing = f"{live_service.url}/static/admin/img/no-such-image.svg"
    assert f"static file answered 404: {missing} (on {live_service.url}/admin/login/)" in problems.lines
    assert any(line.startswith("console error: Failed to load resource") for line in problems.lines)


ADD_HELD_SCRIPT = """document.head.append(
    Object.assign(document.createElement('script'), {src: '/static/admin/js/held.js'})
)"""


async def held_script_abandoned(browser: Browser, base_url: str, *, leave: bool) -> chromium.PageProblems:
    """What the watch records when a script the login page asked for, held unanswered, is
    abandoned: by leaving for the next page (`leave`), or by the page stopping its loads."""
    problems = chromium.PageProblems()
    context = await browser.new_context(base_url=base_url)
    try:
        page = problems.watch(await context.new_page())
        asked = asyncio.Event()
        await page.route("**/static/admin/js/held.js", lambda route: asked.set())  # never answered
        await page.goto("/admin/login/")
        async with page.expect_event("requestfailed", lambda request: request.url.endswith("/held.js")):
            await page.evaluate(ADD_HELD_SCRIPT)
            await asked.wait()
            if leave:
                await page.goto("/")
            else:
                await page.evaluate("window.stop()")
        await problems.settle()
    finally:
        await context.close()
    return problems


async def test_a_static_file_abandoned_by_leaving_the_page_is_no_problem(
    browser: Browser, live_service: ServedApp
):
    problems = await held_script_abandoned(browser, live_service.url, leave=True)

    assert problems.lines == []


async def test_a_static_file_abandoned_on_the_page_still_fails_the_check(
    browser: Browser, live_service: ServedApp
):
    problems = await held_script_abandoned(browser, live_service.url, leave=False)

    held = f"{live_service.url}/static/admin/js/held.js"
    assert (
        f"static file failed (net::ERR_ABORTED): {held} (on {live_service.url}/admin/login/)"
        in problems.lines
    )
