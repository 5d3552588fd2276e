"""How read tools reach a plan (`mcp_surface.plan_lookup`) and read their arguments (`mcp_surface.arguments`),
against the live sandbox."""

from __future__ import annotations

import uuid
from datetime import date

import httpx2
import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.mcp_surface import arguments, plan_lookup
from avenir_mcp.sandbox.faults import inject
from avenir_mcp.sandbox.ledger import create_plan
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.ynab_client import client as ynab_client
from avenir_mcp.ynab_client.errors import YnabError

pytestmark = pytest.mark.anyio


async def test_it_refuses_a_malformed_plan_id_before_any_ynab_request(ynab_requests):
    with pytest.raises(Refusal, match=r"^'\.\./plans' is not a valid plan id .*list_plans"):
        await plan_lookup.open_plan("../plans")

    assert await ynab_requests() == []


async def test_it_opens_the_plan_named_and_costs_one_request_once_warm(demo_plan, ynab_requests):
    first = await plan_lookup.open_plan(demo_plan.id)
    second = await plan_lookup.open_plan(demo_plan.id)

    assert first.plan_id == second.plan_id == demo_plan.id
    listing, *served = await ynab_requests()
    assert listing.path == "/sandbox/v1/plans"  # met for the first time: is it among the key's plans?
    assert [entry.query.startswith("last_knowledge_of_server=") for entry in served] == [False, True]


async def test_it_refuses_an_unknown_plan_without_asking_for_it_and_says_where_ids_come_from(ynab_requests):
    with pytest.raises(Refusal) as refused:
        await plan_lookup.open_plan("no-such-plan-0123")

    assert (
        str(refused.value)
        == "No plan 'no-such-plan-0123' for this YNAB token; list_plans gives the valid ids."
    )
    assert [entry.path for entry in await ynab_requests()] == ["/sandbox/v1/plans"]  # no request for the plan


async def test_a_plan_the_listing_lacks_is_listed_again_once_a_window_then_refused_from_it(
    demo_plan, ynab_requests
):
    await plan_lookup.plan_listing()  # listed before the plan below exists
    created = await sync_to_async(create_plan)(
        name=f"New {uuid.uuid4().hex[:8]}", first_month=date(2025, 1, 1)
    )

    opened = await plan_lookup.open_plan(created.id)  # not in the listing: listed again
    refused = [
        await _refusal_of(plan_lookup.open_plan(f"a0000000-0000-4000-8000-{n:012d}")) for n in range(5)
    ]

    assert opened.plan_id == created.id
    assert all(text.startswith("No plan 'a0000000-0000-4000-8000-") for text in refused)
    paths = [entry.path for entry in await ynab_requests()]
    assert paths == ["/sandbox/v1/plans", "/sandbox/v1/plans", f"/sandbox/v1/plans/{created.id}"]


async def _refusal_of(opening) -> str:
    with pytest.raises(Refusal) as refused:
        await opening
    return str(refused.value)


async def test_last_used_is_resolved_to_the_real_plan_id(demo_plan):
    await plan_lookup.open_plan(demo_plan.id)  # opening a plan makes it YNAB's last used

    snapshot = await plan_lookup.open_plan("last-used")

    assert snapshot.plan_id == demo_plan.id


async def test_an_omitted_plan_is_the_configured_default(demo_plan, settings):
    settings.AVENIR_MCP_DEFAULT_PLAN = demo_plan.id

    snapshot = await plan_lookup.open_plan(None)

    assert snapshot.plan_id == demo_plan.id


@pytest.fixture
def another_plan(live_service) -> Plan:
    """A second plan, so that the sandbox holds several whatever ran before."""
    return create_plan(name=f"Another {uuid.uuid4().hex[:8]}", first_month=date(2025, 1, 1))


@pytest.fixture
def no_default_plan(live_service):
    """No plan marked default in the sandbox for the test's duration (then as it was)."""
    marked = list(Plan.objects.filter(is_default=True).values_list("pk", flat=True))
    Plan.objects.filter(pk__in=marked).update(is_default=False)
    plan_lookup.forget_plan_listing()
    yield
    Plan.objects.filter(pk__in=marked).update(is_default=True)
    plan_lookup.forget_plan_listing()


async def test_an_omitted_plan_among_several_is_refused_naming_list_plans(
    demo_plan, another_plan, no_default_plan, settings, live_service
):
    settings.AVENIR_MCP_DEFAULT_PLAN = None
    assert await sync_to_async(Plan.objects.count)() >= 2

    with pytest.raises(Refusal) as refused:
        await plan_lookup.open_plan(None)

    assert str(refused.value) == "Several plans: pass plan_id (list_plans gives them)."


async def test_an_omitted_plan_is_the_ynab_default_and_the_listing_is_reused(
    own_demo_plan, no_default_plan, settings, ynab_requests
):
    settings.AVENIR_MCP_DEFAULT_PLAN = None
    await sync_to_async(Plan.objects.filter(pk=own_demo_plan.pk).update)(is_default=True)
    try:
        first = await plan_lookup.open_plan(None)
        second = await plan_lookup.open_plan(None)
    finally:
        await sync_to_async(Plan.objects.filter(pk=own_demo_plan.pk).update)(is_default=False)

    assert first.plan_id == second.plan_id == own_demo_plan.id
    paths = [entry.path for entry in await ynab_requests()]
    assert paths.count("/sandbox/v1/plans") == 1  # the listing, once
    assert len(paths) == 3  # the listing, the full plan, one delta


async def test_an_omitted_plan_when_ynab_refuses_the_listing_is_refused_with_ynabs_reason(
    no_default_plan, settings, ynab_requests
):
    settings.AVENIR_MCP_DEFAULT_PLAN = None
    await sync_to_async(inject)("status", method="GET", path="^/plans$", status=401)

    with pytest.raises(YnabError) as refused:
        await plan_lookup.open_plan(None)

    assert str(refused.value).startswith("YNAB refused the token (401): it is invalid, expired or revoked.")
    assert [entry.path for entry in await ynab_requests()] == ["/sandbox/v1/plans"]


async def test_an_omitted_plan_for_a_token_that_sees_no_plan_says_to_create_one(
    live_service, settings, monkeypatch
):
    settings.AVENIR_MCP_DEFAULT_PLAN = None
    settings.AVENIR_MCP_YNAB_URL = "https://api.ynab.com/v1"  # mocked: a new YNAB account
    settings.YNAB_API_KEY = f"token-without-plans-{uuid.uuid4()}"
    no_plans = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"data": {"plans": []}}))
    monkeypatch.setattr(ynab_client, "_in_process", no_plans)  # for the client of that URL and key

    with pytest.raises(Refusal) as refused:
        await plan_lookup.open_plan(None)

    assert str(refused.value) == "This YNAB token sees no plan: create one in YNAB, then call list_plans."


async def test_the_real_plan_id_reads_the_plan_only_to_resolve_an_alias(demo_plan, settings, ynab_requests):
    settings.AVENIR_MCP_DEFAULT_PLAN = demo_plan.id

    assert await plan_lookup.real_plan_id(demo_plan.id) == demo_plan.id
    assert await plan_lookup.real_plan_id(None) == demo_plan.id
    assert await ynab_requests() == []

    await plan_lookup.open_plan(demo_plan.id)  # opening a plan makes it YNAB's last used
    assert await plan_lookup.real_plan_id("last-used") == demo_plan.id
    with pytest.raises(Refusal, match=r"^'\.\./plans' is not a valid plan id .*list_plans"):
        await plan_lookup.real_plan_id("../plans")


async def test_the_real_plan_id_of_an_omitted_plan_among_several_is_refused_like_open_plans(
    demo_plan, another_plan, no_default_plan, settings, live_service
):
    settings.AVENIR_MCP_DEFAULT_PLAN = None

    with pytest.raises(Refusal) as refused:
        await plan_lookup.real_plan_id(None)

    assert str(refused.value) == "Several plans: pass plan_id (list_plans gives them)."


def test_months_are_read_before_the_plan_and_checked_against_it_after():
    today = date(2026, 9, 15)

    assert arguments.month_arg("current", today) == date(2026, 9, 1)
    assert arguments.month_arg("2026-10", today) == date(2026, 10, 1)
    with pytest.raises(Refusal, match=r"^Month '2026-9' is not understood"):
        arguments.month_arg("2026-9", today)


async def test_a_month_outside_the_plan_is_refused_with_the_valid_range(demo_plan):
    snapshot = await plan_lookup.open_plan(demo_plan.id)
    before = date(snapshot.first_month.year - 1, 1, 1)

    with pytest.raises(Refusal) as refused:
        plan_lookup.require_month(snapshot, before)

    first, last = snapshot.first_month.isoformat(), snapshot.last_month.isoformat()
    assert str(refused.value) == (
        f"Month {before.isoformat()} is outside this plan: give a month from {first} to {last}."
    )
    assert plan_lookup.require_month(snapshot, snapshot.first_month) == snapshot.first_month


def test_listed_ids_are_checked_and_duplicates_merged_or_refused():
    assert arguments.check_ids(["a1", "b2", "a1"], what="account") == ("a1", "b2")
    assert arguments.check_ids(None, what="account") is None
    with pytest.raises(Refusal, match=r"^Transaction 't9' is listed twice; give it once\.$"):
        arguments.check_ids(["t9", "t9"], what="transaction", merge_duplicates=False)
    with pytest.raises(Refusal, match=r"not a valid account id .*list_accounts"):
        arguments.check_ids(["ok", "a/b"], what="account")


@pytest.mark.parametrize(
    ("given", "milliunits"),
    [("-42.50", -42_500), (12, 12_000), (-42.5, -42_500), (0.1, 100), (999999999.999, 999_999_999_999)],
)
def test_amounts_are_read_from_their_decimal_text(given, milliunits):
    assert arguments.amount_arg(given) == milliunits


@pytest.mark.parametrize("given", [float("nan"), float("inf"), 1e-05, 1e20, "1e3", "12,50", 0.0001])
def test_amounts_that_are_not_plain_decimals_are_refused_in_one_line(given):
    with pytest.raises(Refusal) as refused:
        arguments.amount_arg(given)

    assert "\n" not in str(refused.value)
    assert str(refused.value).startswith("amount ")


def test_a_window_is_defaulted_ordered_and_bounded():
    today = date(2026, 9, 15)

    assert arguments.window_args(None, None, default_since=today, default_until=date(2026, 10, 15)) == (
        today,
        date(2026, 10, 15),
    )
    with pytest.raises(Refusal, match=r"^since_date 2026-09-15 is after until_date 2026-09-01"):
        arguments.window_args("2026-09-15", "2026-09-01")
    with pytest.raises(Refusal, match="367 days apart"):
        arguments.window_args("2025-09-01", "2026-09-03")
    with pytest.raises(Refusal, match=r"^since_date is required"):
        arguments.window_args(None, "2026-09-01")


async def test_a_plan_deleted_in_ynab_after_it_was_read_is_refused_with_ynabs_404(ynab_requests):
    gone = await sync_to_async(create_plan)(name=f"Gone {uuid.uuid4().hex[:8]}", first_month=date(2025, 1, 1))
    await plan_lookup.open_plan(gone.id)  # held by this process from now on: no listing asked again
    await Plan.objects.filter(pk=gone.id).adelete()

    with pytest.raises(Refusal) as refused:
        await plan_lookup.open_plan(gone.id)

    said = str(refused.value)
    assert said.startswith(f"No plan '{gone.id}' for this YNAB token (404); list_plans gives the valid ids.")
    assert [entry.status for entry in await ynab_requests()][-1] == 404
