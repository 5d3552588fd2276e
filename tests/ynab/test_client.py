"""The client's contract: ids checked first, HTTPS only, errors made actionable, attempts recorded."""

from __future__ import annotations

import asyncio
import logging

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.db.utils import OperationalError

from avenir_mcp.values.ids import IdError
from avenir_mcp.ynab_client import pacing
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.errors import MalformedAnswer, UnknownOutcome, YnabError
from avenir_mcp.ynab_client.pacing import Pacer
from avenir_mcp.ynab_requests.log import DatabaseRequestLog
from avenir_mcp.ynab_requests.models import YnabRequest
from tests.helpers.sandbox_side import inject

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]


@pytest.mark.parametrize(
    "call",
    [
        lambda c, plan: c.get_month_category(plan, "current", "../../user"),
        lambda c, plan: c.patch_payee(plan, "p?x=1", "New name"),
        lambda c, plan: c.patch_month_category(plan, "current", "cat%2F", 1),
        lambda c, plan: c.delete_transaction(plan, ""),
    ],
)
async def test_an_id_that_could_change_the_url_is_refused_before_any_request(client, sandbox_log, call):
    await sandbox_log.mark()

    with pytest.raises(IdError):
        await call(client, "a-plan-id")

    assert await sandbox_log.requests() == []


@pytest.mark.parametrize("month", ["2026-13-01", "2026-1-01", "next", "2026-01-01/../x", ""])
async def test_a_month_that_is_not_current_or_a_real_date_is_refused_before_any_request(
    client, sandbox_log, month
):
    await sandbox_log.mark()

    with pytest.raises(ValueError, match="is not a month for YNAB: give 'current' or YYYY-MM-DD"):
        await client.get_month_category("a-plan-id", month, "a-category-id")

    assert await sandbox_log.requests() == []


@pytest.mark.parametrize("url", ["http://api.ynab.com/v1", "http://10.0.0.2:8000/sandbox/v1", "ftp://x/v1"])
def test_plain_http_is_refused_except_on_loopback(url):
    with pytest.raises(ValueError, match="must start with https://"):
        YnabClient(base_url=url, token="t", pacer=Pacer(history=False))


@pytest.mark.parametrize(
    "url",
    [
        "https://api.ynab.com/v1",
        "http://127.0.0.1:8000/sandbox/v1",
        "http://[::1]:8000/v1",
        "http://localhost/v1",
    ],
)
def test_https_and_loopback_addresses_are_accepted(url):
    assert YnabClient(base_url=url, token="t", pacer=Pacer(history=False)).base_url == url


async def test_a_revoked_token_says_to_set_a_new_ynab_api_key(sandbox_url, demo_plan_id):
    stranger = YnabClient(
        base_url=sandbox_url, token="not-the-token", pacer=Pacer(history=False), delays=(0, 0)
    )

    with pytest.raises(YnabError) as refused:
        await stranger.get_categories(demo_plan_id)

    assert (refused.value.status, refused.value.error_id, refused.value.retryable) == (401, "401", False)
    assert "set it as YNAB_API_KEY" in refused.value.message


async def test_an_unknown_category_is_404_2_with_advice_to_use_listed_ids(client, demo_plan_id):
    with pytest.raises(YnabError) as refused:
        await client.get_month_category(demo_plan_id, "current", "0000-not-here")

    assert (refused.value.status, refused.value.error_id, refused.value.name) == (
        404,
        "404.2",
        "resource_not_found",
    )
    assert "use ids from the list tools" in refused.value.message


@pytest.mark.parametrize(
    ("status", "error_id", "advice"),
    [
        (403, "403.1", "subscription has lapsed"),
        (409, "409", "conflicts with an existing item"),
        (400, "400", "invalid (400)"),
    ],
)
async def test_ynab_refusals_keep_their_id_and_detail_and_say_what_happened(
    client, demo_plan_id, status, error_id, advice
):
    await inject("status", method="PATCH", path=f"{demo_plan_id}/payees/", status=status)

    with pytest.raises(YnabError) as refused:
        await client.patch_payee(demo_plan_id, "0a1b2c3d-0000-4000-8000-000000000000", "Renamed")

    assert (refused.value.status, refused.value.error_id, refused.value.retryable) == (
        status,
        error_id,
        False,
    )
    assert advice in refused.value.message
    assert "YNAB said: " in refused.value.message
    assert refused.value.detail in refused.value.message


async def test_every_attempt_is_recorded_with_its_outcome(client, demo_plan_id):
    await client.get_plan(demo_plan_id, last_knowledge=5)
    with pytest.raises(YnabError):
        await client.get_month_category(demo_plan_id, "current", "missing")

    rows = await sync_to_async(list)(
        YnabRequest.objects.filter(token_tag=client.token_tag, path__contains=demo_plan_id).order_by("id")
    )

    assert [(r.method, r.path, r.status, r.outcome) for r in rows] == [
        ("GET", f"/plans/{demo_plan_id}?last_knowledge_of_server=5", 200, "ok"),
        ("GET", f"/plans/{demo_plan_id}/months/current/categories/missing", 404, "refused"),
    ]
    assert all(row.duration_ms > 0 for row in rows)


async def test_an_assigned_amount_must_be_integer_milliunits(client, demo_plan_id, sandbox_log):
    await sandbox_log.mark()

    with pytest.raises(TypeError):
        await client.patch_month_category(demo_plan_id, "current", "some-category", 12.5)

    assert await sandbox_log.requests() == []


async def test_one_client_serves_several_event_loops(client, demo_plan_id):
    """Each loop gets its own connections: a client created on one loop works on the next."""
    mine = await client.get_plans()

    with anyio.fail_after(30):
        theirs = await anyio.to_thread.run_sync(lambda: asyncio.run(client.get_plans()))

    assert theirs.plans == mine.plans


def ynab_answering(handler) -> YnabClient:
    """A client of api.ynab.com whose answers `handler` gives (the one place YNAB is mocked)."""
    return YnabClient(
        base_url="https://api.ynab.com/v1",
        token="a-secret-token",
        pacer=Pacer(history=False),
        delays=(0, 0),
        transport=httpx2.MockTransport(handler),
    )


def _error(error_id: str, detail: str) -> dict:
    return {"error": {"id": error_id, "name": "some_error", "detail": detail}}


@pytest.mark.parametrize(
    ("answer", "said", "error_id"),
    [
        (
            httpx2.Response(404, json=_error("404.1", "No route matches")),
            "YNAB does not know this address (404.1). YNAB said: No route matches",
            "404.1",
        ),
        (
            httpx2.Response(302, headers={"Location": "https://elsewhere.example/"}),
            "YNAB answered with a redirect (302), which this client never follows.",
            None,
        ),
        (
            httpx2.Response(422, json=_error("422", "Something odd")),
            "YNAB refused the request (422). YNAB said: Something odd",
            "422",
        ),
        (httpx2.Response(418, text="<html>I'm a teapot</html>"), "YNAB refused the request (418).", None),
    ],
)
async def test_other_refusals_say_what_ynab_answered_and_are_not_retried(answer, said, error_id):
    seen: list[httpx2.Request] = []

    def ynab(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return answer

    with pytest.raises(YnabError) as refused:
        await ynab_answering(ynab).get_plans()

    assert (refused.value.message, refused.value.error_id) == (said, error_id)
    assert (refused.value.status, refused.value.retryable, len(seen)) == (answer.status_code, False, 1)


@pytest.mark.parametrize("body", [b"<html>maintenance</html>", b'{"data": ["not", "an", "object"]}'])
async def test_a_read_answer_that_is_not_ynabs_json_is_malformed_not_a_crash(body):
    client = ynab_answering(lambda request: httpx2.Response(200, content=body))

    with pytest.raises(MalformedAnswer) as malformed:
        await client.get_plan("last-used")

    assert malformed.value.message == "YNAB's answer (200) could not be read as YNAB's JSON; try again later."


async def test_a_write_lost_to_an_unnamed_network_error_is_an_unknown_outcome_never_resent():
    sent: list[httpx2.Request] = []

    def ynab(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        raise httpx2.LocalProtocolError("connection state broke", request=request)

    with pytest.raises(UnknownOutcome) as unknown:
        await ynab_answering(ynab).patch_payee("last-used", "0a1b2c3d-0000-4000-8000-000000000000", "X")

    assert len(sent) == 1
    assert unknown.value.reason == "a network error (LocalProtocolError)"
    assert "the change may or may not be in YNAB" in unknown.value.message


async def test_a_plan_export_over_a_megabyte_is_read_whole():
    memo = "x" * 1000
    rows = [{"id": f"t{n}", "memo": memo} for n in range(1200)]
    client = ynab_answering(
        lambda request: httpx2.Response(
            200, json={"data": {"plan": {"transactions": rows}, "server_knowledge": 7}}
        )
    )

    data = await client.get_plan("last-used")

    assert data["server_knowledge"] == 7
    assert len(data["plan"]["transactions"]) == 1200
    assert data["plan"]["transactions"][-1] == {"id": "t1199", "memo": memo}


async def test_an_answer_is_returned_even_when_its_record_cannot_be_stored(monkeypatch, caplog):
    def no_database(log, attempt):
        raise OperationalError("the database is locked")

    monkeypatch.setattr(DatabaseRequestLog, "record", no_database)
    client = ynab_answering(lambda request: httpx2.Response(200, json={"data": {"plans": []}}))

    with caplog.at_level(logging.ERROR, logger="avenir_mcp.ynab_client.client"):
        listed = await client.get_plans()

    assert listed.plans == ()
    assert "Could not record a YNAB request (GET /plans)" in caplog.text


async def test_the_client_never_shows_its_token_and_closes_only_what_it_opened():
    def ynab(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"data": {"plans": []}})

    client = ynab_answering(ynab)

    assert repr(client) == f"YnabClient('https://api.ynab.com/v1', token {client.token_tag})"
    assert "a-secret-token" not in repr(client)
    await client.aclose()  # nothing opened on this loop yet: nothing to close
    await client.get_plans()
    opened = client._http()
    await client.aclose()
    assert opened.is_closed
    await client.get_plans()  # a new connection pool for the next request
    assert client._http() is not opened


async def test_a_plan_list_not_in_ynabs_shape_is_malformed_and_says_what_is_missing():
    client = ynab_answering(lambda request: httpx2.Response(200, json={"data": {"plans": [{"id": "p1"}]}}))

    with pytest.raises(MalformedAnswer) as malformed:
        await client.get_plans()

    assert malformed.value.message.startswith(
        "YNAB's answer for the plan list was not in the shape this service expects (missing 'name'); "
    )


async def test_without_a_request_log_the_client_keeps_no_record_and_starts_from_an_empty_hour(monkeypatch):
    """A process with no database (a script using the client alone) paces from its own count."""
    monkeypatch.setattr(pacing, "request_log", pacing.NoRequestLog())
    client = YnabClient(
        base_url="https://api.ynab.com/v1",
        token="a-secret-token",
        pacer=Pacer(limit=180),  # seeded from the log's hour: empty
        delays=(0, 0),
        transport=httpx2.MockTransport(lambda request: httpx2.Response(200, json={"data": {"plans": []}})),
    )

    listed = await client.get_plans()

    assert listed.plans == ()
    assert client.sender.pacer.used() == 1  # counted here, in this process only
    assert pacing.request_log.requests_last_hour(client.token_tag) == 0
