"""Request economy through the SDK's real client and the sandbox's request log
(docs/architecture.md#talking-to-ynab): the freshness window, reading one's writes, the reserve reads cannot
use, and no pacing against the sandbox.
"""

from __future__ import annotations

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone
from mcp import Client

from avenir_mcp.confirmations import messages
from avenir_mcp.sandbox import faults
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.money import parse_amount
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.servers import catalog_server
from tests.reads.read_calls import read_arguments
from tests.writes.assigned_plans import (
    DINING_ASSIGNED,
    GROCERIES_ASSIGNED,
    BudgetHome,
    assigned,
    budget_arguments,
    ready_to_assign,
)
from tests.writes.checks import CALL_SECONDS, MODERN, WRITER, connected, content, says_yes
from tests.writes.harness import YES

pytestmark = pytest.mark.anyio

NEW_AMOUNT = 150_000
READS = ("list_accounts", "get_category_balances", "list_payees", "get_monthly_summary", "find_transactions")


async def requests_since(mark: int) -> list[tuple[str, str, str]]:
    """(method, path, query) of every request that reached the sandbox after `mark`."""
    return [
        (entry.method, entry.path, entry.query) for entry in await sync_to_async(faults.requests_since)(mark)
    ]


async def mark() -> int:
    return await sync_to_async(faults.last_request_id)()


def is_delta(request: tuple[str, str, str], plan_id: str) -> bool:
    method, path, query = request
    return method == "GET" and path.endswith(f"/plans/{plan_id}") and "last_knowledge_of_server=" in query


async def read(client, tool: str, plan_id: str) -> dict:
    with anyio.fail_after(30):
        return content(await client.call_tool(tool, read_arguments(tool, plan_id, timezone.localdate())))


async def set_budget(client, budget: BudgetHome, **extra) -> object:
    with anyio.fail_after(30):
        return await client.call_tool("set_category_budget", {**budget_arguments(budget), **extra})


def dining_assigned(balances: dict, budget: BudgetHome) -> int:
    row = next(row for row in balances["categories"] if row["category_id"] == budget.home.dining)
    return parse_amount(row["assigned"])


async def test_reads_inside_the_window_send_nothing_and_the_first_after_it_one_delta(
    budget, settings, freshness_clock
):
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 10
    async with connected(MODERN) as client:
        await read(client, "list_accounts", budget.id)  # the sync the window starts from
        inside = await mark()
        for tool in READS:
            await read(client, tool, budget.id)
        freshness_clock.now += 9  # still inside
        await read(client, "list_payees", budget.id)
        served_inside = await requests_since(inside)
        freshness_clock.now += 1  # the window has passed
        after = await mark()
        await read(client, "list_accounts", budget.id)
        await read(client, "list_payees", budget.id)  # inside the new window again
        served_after = await requests_since(after)

    assert served_inside == []
    assert [is_delta(request, budget.id) for request in served_after] == [True], served_after


async def test_concurrent_reads_after_the_window_share_one_delta(budget, settings, freshness_clock):
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 5  # the clock stands still: the twenty calls fit in one window
    async with connected(MODERN) as client:
        await read(client, "list_accounts", budget.id)
    freshness_clock.now += 5
    start = await mark()

    async def agent(tool: str) -> None:
        async with connected(MODERN) as client:
            await read(client, tool, budget.id)

    async with anyio.create_task_group() as agents:
        for tool in READS * 2:
            agents.start_soon(agent, tool)

    assert [is_delta(request, budget.id) for request in await requests_since(start)] == [True]


async def test_a_read_after_a_write_shows_it_and_the_agreed_write_reads_fresh(budget, settings):
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 600  # only a write may end this window
    ready_before = await ready_to_assign(budget)
    async with connected(MODERN) as client:
        before = await read(client, "get_category_balances", budget.id)
        asked = await mark()
        code = content(await set_budget(client, budget))["confirmation"]
        served_asking = await requests_since(asked)
        answered = await mark()
        content(await set_budget(client, budget, confirmation=code))
        served_answering = await requests_since(answered)
        after_write = await mark()
        after = await read(client, "get_category_balances", budget.id)
        summary = await read(client, "get_monthly_summary", budget.id)
        served_reading = await requests_since(after_write)

    assert dining_assigned(before, budget) == DINING_ASSIGNED
    # the preview (a read for the hour's budget) and the agreed call each read the plan fresh
    assert len(served_asking) == 1
    assert is_delta(served_asking[0], budget.id)
    assert [method for method, _, _ in served_answering] == ["GET", "PATCH"]
    assert is_delta(served_answering[0], budget.id)
    # the write ended the window: one delta, and it shows the write and what it changed
    assert len(served_reading) == 1
    assert is_delta(served_reading[0], budget.id)
    assert dining_assigned(after, budget) == NEW_AMOUNT
    assert await assigned(budget, budget.home.dining) == NEW_AMOUNT
    moved = NEW_AMOUNT - DINING_ASSIGNED
    assert await ready_to_assign(budget) == ready_before - moved
    assert parse_amount(summary["ready_to_assign"]) == ready_before - moved


async def test_as_of_says_when_the_data_was_synced_and_a_write_brings_it_up_to_date(
    budget, settings, freshness_clock
):
    """docs/conventions.md#results: inside the window a read gives the older sync's time; a write
    reads fresh and ends the window, so the next read syncs and gives its own time."""
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 600  # only a write may end this window
    async with connected(MODERN) as client:
        loaded = freshness_clock.as_of()
        before = await read(client, "get_category_balances", budget.id)
        freshness_clock.now += 30
        kept = await read(client, "list_accounts", budget.id)
        code = content(await set_budget(client, budget))["confirmation"]
        content(await set_budget(client, budget, confirmation=code))
        freshness_clock.now += 30
        synced_after_write = freshness_clock.as_of()
        after = await read(client, "get_category_balances", budget.id)
        freshness_clock.now += 30
        kept_after = await read(client, "get_monthly_summary", budget.id)

    assert [before["as_of"], kept["as_of"]] == [loaded, loaded]
    assert [after["as_of"], kept_after["as_of"]] == [synced_after_write, synced_after_write]
    assert synced_after_write != loaded
    assert dining_assigned(after, budget) == NEW_AMOUNT


async def test_reads_stop_at_the_reserve_while_a_confirmed_write_still_goes_through(budget, settings):
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = 12  # reads may take 6 (3 per caller), writes all 12
    refused = None
    start = await mark()
    async with connected(MODERN) as client:
        code = content(await set_budget(client, budget))["confirmation"]  # the listing, the plan: 2 reads
    async with connected(MODERN, principal=Principal.local("another agent")) as other:
        for _ in range(6):
            result = await other.call_tool(
                "list_accounts", read_arguments("list_accounts", budget.id, timezone.localdate())
            )
            if result.is_error:
                refused = result.content[0].text
                break
    reads_sent = len(await requests_since(start))
    async with connected(MODERN) as client:
        applied = content(await set_budget(client, budget, confirmation=code))
        still_refused = await client.call_tool(
            "list_payees", read_arguments("list_payees", budget.id, timezone.localdate())
        )
    served = await requests_since(start)

    assert reads_sent == 5  # the preview's two, the other agent's three (its share)
    assert refused is not None
    assert "this MCP client's reads took 3 requests to YNAB in the last hour, its whole share" in refused
    assert applied["status"] == "applied"
    assert await assigned(budget, budget.home.dining) == NEW_AMOUNT
    # then the answer's plan read and its PATCH, from the reserve
    assert [method for method, _, _ in served] == ["GET"] * 6 + ["PATCH"]
    assert still_refused.is_error
    assert "Not sent" in still_refused.content[0].text


@pytest.mark.matrix  # a sweep: 500 calls (16 s); make test runs it
async def test_the_sandbox_demo_answers_500_calls_in_a_row(live_service):
    # the service's own sandbox, no hourly limit set: not paced (the sandbox paces itself
    # when SANDBOX_RATE_LIMIT asks it to)
    demo = await sync_to_async(demo_plan_copy)()
    start = await mark()
    # A deadline per call, not for the session: 500 calls take 15 s on a quiet machine, more on
    # a loaded one (PostgreSQL, three workers on two cores).
    async with Client(catalog_server(writes=True, principal=WRITER), mode=MODERN) as client:
        for _ in range(500):
            with anyio.fail_after(CALL_SECONDS):
                result = await client.call_tool("list_accounts", {"plan_id": demo.id})
            assert not result.is_error, result.content[0].text

    listing, *served = await requests_since(start)
    assert listing[1].endswith("/plans")  # the plan met for the first time: is it the key's?
    assert len(served) == 500  # every call synced (the tests' window is 0), none was refused
    assert all(is_delta(request, demo.id) for request in served[1:])


async def test_a_rollback_goes_out_while_the_pacer_pauses_after_a_429(budget, settings):
    """move_money's second write answered 429: the pacer pauses (at least a minute), yet setting the
    first back is sent once YNAB's own Retry-After (1 s here) has passed."""
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = 180  # paced as against YNAB
    arguments = {
        "plan_id": budget.id,
        "month": budget.month[:7],
        "from_category_id": budget.home.groceries,
        "to_category_id": budget.home.dining,
        "amount": "30.00",
    }
    async with connected(MODERN) as client:
        code = content(await client.call_tool("move_money", arguments))["confirmation"]
        dining = budget.category_path(budget.home.dining) + "$"
        await sync_to_async(faults.inject)("status", method="PATCH", path=dining, status=429, delay_ms=1000)
        start = await mark()
        result = await client.call_tool("move_money", {**arguments, "confirmation": code})
        served = await requests_since(start)
        paused = await client.call_tool("list_payees", {"plan_id": budget.id})

    assert result.is_error
    assert "Nothing moved" in result.content[0].text
    assert [(method, path.rsplit("/", 1)[1]) for method, path, _ in served[1:]] == [
        ("PATCH", budget.home.groceries),
        ("PATCH", budget.home.dining),
        ("PATCH", budget.home.groceries),  # the set-back, sent during the pause
    ]
    assert await assigned(budget, budget.home.groceries) == GROCERIES_ASSIGNED
    assert paused.is_error
    assert "too many requests" in paused.content[0].text  # anything else waits for the pause


async def test_an_answer_not_waiting_is_refused_before_the_plan_is_read(budget):
    """An invented code, or an input-required answer already used, costs YNAB nothing: refused
    before the plan's read and the write lock (docs/ynab_budget.md)."""
    arguments = budget_arguments(budget)
    async with connected(MODERN, says_yes()) as client:
        first = await client.session.call_tool("set_category_budget", arguments, allow_input_required=True)
        yes = {"input_responses": YES, "request_state": first.request_state, "allow_input_required": True}
        applied = await client.session.call_tool("set_category_budget", arguments, **yes)
        start = await mark()

        replayed = await client.session.call_tool("set_category_budget", arguments, **yes)
        invented = await client.call_tool("set_category_budget", {**arguments, "confirmation": "A" * 11})
        served = await requests_since(start)

    assert content(applied)["status"] == "applied"
    assert replayed.content[0].text == messages.ANSWER_NOT_VALID
    assert invented.content[0].text == messages.CODE_REFUSED
    assert served == []
