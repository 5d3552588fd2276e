"""The hourly YNAB budget shared fairly (docs/ynab_budget.md), over real HTTP with MCP tokens:
unknown plan ids cost nothing, previews are reads, one caller's share runs out without
touching the others' reads or the reserve a confirmed change's undo needs. The pacer's
clock is a fake one, so an hour passes without sleeping.
"""

from __future__ import annotations

import time
import uuid

import anyio
import pytest
from asgiref.sync import sync_to_async
from mcp import Client

from avenir_mcp.sandbox import faults
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.ynab_client import get_ynab_client
from avenir_mcp.ynab_client.errors import PacingRefused
from avenir_mcp.ynab_client.pacing import Pacer, spending_as
from avenir_mcp.ynab_requests.log import DatabaseRequestLog
from avenir_mcp.ynab_requests.models import YnabRequest
from tests.helpers.mcp_http import mcp_over_http
from tests.writes.assigned_plans import DINING_ASSIGNED, assigned, budget_arguments
from tests.writes.checks import CALL_SECONDS, content

pytestmark = pytest.mark.anyio

LIMIT = 60  # reads may take 40 of it, 20 per caller; 20 are kept for changes and their undo
SHARE = 20


@pytest.fixture(autouse=True)
def _both_stores(either_store: str) -> str:
    """The same budget for one process (the pacer's memory) and for several (the shared store)."""
    return either_store


class FakeClock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The service's pacer reads this clock (its YNAB requests are stamped with it too)."""
    fake = FakeClock()
    monkeypatch.setattr(get_ynab_client().sender.pacer, "clock", fake)
    return fake


async def call(client: Client, tool: str, **arguments):
    with anyio.fail_after(CALL_SECONDS):
        return await client.call_tool(tool, arguments)


async def paths_since(mark: int) -> list[str]:
    return [entry.path for entry in await sync_to_async(faults.requests_since)(mark)]


async def test_one_token_spends_only_its_share_and_a_change_can_still_be_undone(
    live_service, budget, settings, clock, either_store
):
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = LIMIT
    settings.AVENIR_MCP_WRITE = True
    _greedy, greedy_token = await sync_to_async(McpToken.issue)(f"greedy {uuid.uuid4().hex[:8]}")
    _other, other_token = await sync_to_async(McpToken.issue)(f"other {uuid.uuid4().hex[:8]}")
    start = await sync_to_async(faults.last_request_id)()
    strangers = [str(uuid.uuid4()) for _ in range(41)]

    async with mcp_over_http(live_service.url, greedy_token) as agent:
        code = content(await call(agent, "set_category_budget", **budget_arguments(budget)))["confirmation"]
        change = content(
            await call(agent, "set_category_budget", **budget_arguments(budget), confirmation=code)
        )
        unknown = [await call(agent, "get_monthly_summary", plan_id=plan_id) for plan_id in strangers]
        previews = 0
        while (
            asked := await call(agent, "set_category_budget", **budget_arguments(budget, "99.00"))
        ).is_error is False:
            previews += 1
        clock.now += 3601
        after_an_hour = await call(agent, "set_category_budget", **budget_arguments(budget, "99.00"))
        clock.now -= 3601
    async with mcp_over_http(live_service.url, other_token) as other:
        read = await call(other, "list_accounts", plan_id=budget.id)
        undo_code = content(
            await call(other, "undo_operation", plan_id=budget.id, operation_id=change["operation_id"])
        )
        undone = content(
            await call(
                other,
                "undo_operation",
                plan_id=budget.id,
                operation_id=change["operation_id"],
                confirmation=undo_code["confirmation"],
            )
        )
    sent = await paths_since(start)

    assert change["status"] == "applied"
    # 41 made-up plan ids: refused, and not one request named them
    assert all(result.is_error for result in unknown)
    assert unknown[0].content[0].text == (
        f"No plan '{strangers[0]}' for this YNAB token; list_plans gives the valid ids."
    )
    assert not any(plan_id in path for path in sent for plan_id in strangers)
    assert sent.count("/sandbox/v1/plans") <= 2  # the listing: once met, once asked again
    # previews are reads: the greedy token's share ran out, and the refusal says whose and when
    refused = asked.content[0].text
    assert refused.startswith(f"Not sent: this MCP client's reads took {SHARE} requests to YNAB")
    assert "(in 60 minutes); other clients can still read." in refused
    assert previews < SHARE
    assert not after_an_hour.is_error  # the share frees as its reads grow an hour old
    # another token still reads, and undoes the change from the reserve
    assert not read.is_error
    assert undo_code["status"] == "confirmation_required"
    assert undone["status"] == "applied"
    assert await assigned(budget, budget.home.dining) == DINING_ASSIGNED
    # with the shared store, another process's pacer of the key sees this hour (else its own)
    pacer = get_ynab_client().sender.pacer
    elsewhere = Pacer(clock=clock, limit=LIMIT, name=pacer.name, history=False)
    assert elsewhere.used() == (pacer.used() if either_store == "shared store" else 0)
    assert pacer.used() > 0


async def test_a_restart_remembers_each_callers_share_from_the_request_rows(
    live_service, budget, settings, clock
):
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = LIMIT
    settings.AVENIR_MCP_WRITE = True
    row, token = await sync_to_async(McpToken.issue)(f"greedy {uuid.uuid4().hex[:8]}")
    async with mcp_over_http(live_service.url, token) as agent:
        while not (await call(agent, "list_accounts", plan_id=budget.id)).is_error:
            pass
    spender = f"token:{row.pk}"
    rows = await sync_to_async(YnabRequest.objects.filter(spender=spender).count)()
    client = get_ynab_client()

    restarted = Pacer(clock=clock, limit=LIMIT)
    history = await sync_to_async(DatabaseRequestLog().last_hour)(client.token_tag, clock())
    restarted.seed(history.sent_at, history.paused_until, history.reads_of)
    with spending_as(spender), pytest.raises(PacingRefused) as refused:
        restarted.reserve()
    with spending_as("token:another"):
        restarted.reserve()

    assert rows == SHARE
    assert "this MCP client's reads took 20 requests" in refused.value.message
