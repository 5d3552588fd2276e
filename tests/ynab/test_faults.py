"""What the client retries and what it never does, proven with the sandbox's faults and log."""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.ynab_client.client import YnabClient, ynab_token_tag
from avenir_mcp.ynab_client.errors import PacingRefused, UnknownOutcome, YnabError
from avenir_mcp.ynab_client.pacing import LIMIT, Pacer
from avenir_mcp.ynab_requests.models import YnabRequest
from tests.helpers.sandbox_side import inject

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]
CHECK = "Check with find_transactions before trying again."


async def _rows(token_tag: str, containing: str) -> list[YnabRequest]:
    query = YnabRequest.objects.filter(token_tag=token_tag, path__contains=containing).order_by("id")
    return await sync_to_async(list)(query)


@pytest.mark.parametrize("failures", [1, 2])
async def test_a_get_that_met_a_502_is_retried_and_succeeds(client, demo_plan_id, sandbox_log, failures):
    await inject("status", method="GET", path=f"{demo_plan_id}/categories", status=502, count=failures)
    await sandbox_log.mark()

    categories = await client.get_categories(demo_plan_id)

    assert categories["category_groups"]
    assert [r.status for r in await sandbox_log.requests(demo_plan_id)] == [502] * failures + [200]
    rows = await _rows(client.token_tag, f"{demo_plan_id}/categories")
    assert [(row.status, row.outcome) for row in rows] == [(502, "failed")] * failures + [(200, "ok")]


async def test_a_get_still_failing_after_three_attempts_says_ynab_is_unavailable(
    client, demo_plan_id, sandbox_log
):
    await inject("status", method="GET", path=f"{demo_plan_id}/categories", status=503, count=5)
    await sandbox_log.mark()

    with pytest.raises(YnabError) as failed:
        await client.get_categories(demo_plan_id)

    assert len(await sandbox_log.requests(demo_plan_id)) == 3
    assert (failed.value.status, failed.value.retryable) == (503, True)
    assert "YNAB is unavailable right now (503)" in failed.value.message


async def test_a_get_whose_answer_was_dropped_is_read_again(client, demo_plan_id, sandbox_log):
    await inject("drop_after_write", method="GET", path=f"{demo_plan_id}/categories")
    await sandbox_log.mark()

    await client.get_categories(demo_plan_id)

    assert len(await sandbox_log.requests(demo_plan_id)) == 2


async def test_a_get_whose_answer_is_dropped_three_times_says_ynab_did_not_answer(
    client, demo_plan_id, sandbox_log
):
    await inject("drop_before_write", method="GET", path=f"{demo_plan_id}/categories", count=3)
    await sandbox_log.mark()

    with pytest.raises(YnabError) as failed:
        await client.get_categories(demo_plan_id)

    assert len(await sandbox_log.requests(demo_plan_id)) == 3
    assert failed.value.message == (
        "YNAB did not answer (the connection closed before a complete answer) after 3 attempts; "
        "try again in a few minutes."
    )
    assert failed.value.retryable
    rows = await _rows(client.token_tag, f"{demo_plan_id}/categories")
    assert [(row.status, row.outcome) for row in rows] == [(None, "no_answer")] * 3


async def test_a_patch_that_met_a_500_is_not_retried(client, demo_plan_id, sandbox_log):
    transaction_id = await _some_transaction(client, demo_plan_id)
    await inject("status", method="PATCH", path=f"{demo_plan_id}/transactions", status=500)
    await sandbox_log.mark()

    with pytest.raises(YnabError) as failed:
        await client.patch_transactions(demo_plan_id, [{"id": transaction_id, "memo": "not applied"}])

    assert [r.method for r in await sandbox_log.requests(demo_plan_id)] == ["PATCH"]
    assert (failed.value.status, failed.value.retryable) == (500, False)
    assert "was not retried" in failed.value.message
    assert await _memo(client, demo_plan_id, transaction_id) != "not applied"


async def test_a_write_whose_answer_is_lost_may_or_may_not_be_applied_and_is_never_resent(
    client, demo_plan_id, sandbox_log
):
    transaction_id = await _some_transaction(client, demo_plan_id)
    await inject("drop_after_write", method="PATCH", path=f"{demo_plan_id}/transactions")
    await sandbox_log.mark()

    with pytest.raises(UnknownOutcome) as lost:
        await client.patch_transactions(
            demo_plan_id, [{"id": transaction_id, "memo": "landed"}], check_hint=CHECK
        )

    assert [r.method for r in await sandbox_log.requests(demo_plan_id)] == ["PATCH"]
    assert "the change may or may not be in YNAB" in lost.value.message
    assert lost.value.message.endswith(f"{CHECK} It was not sent again.")
    assert not lost.value.retryable
    assert await _memo(client, demo_plan_id, transaction_id) == "landed"
    rows = await _rows(client.token_tag, f"{demo_plan_id}/transactions")
    assert [(row.status, row.outcome) for row in rows if row.method == "PATCH"] == [(None, "no_answer")]


async def test_a_write_that_times_out_is_reported_as_unknown_not_resent(
    sandbox_url, demo_plan_id, sandbox_log
):
    impatient = YnabClient(
        base_url=sandbox_url,
        token=settings.SANDBOX_TOKEN,
        pacer=Pacer(history=False),
        delays=(0, 0),
        timeout=httpx2.Timeout(0.3, connect=5),
    )
    # The sandbox finishes this request after the test: later tests look only at their own plan's log.
    await inject("delay", method="POST", path=f"{demo_plan_id}/transactions/import", delay_ms=1500)
    await sandbox_log.mark()

    with pytest.raises(UnknownOutcome) as lost:
        await impatient.import_transactions(demo_plan_id)

    assert "no answer came within the time limit" in lost.value.message
    assert len(await sandbox_log.requests(f"{demo_plan_id}/transactions/import")) <= 1


async def test_a_429_pauses_every_request_until_retry_after(client, demo_plan_id, sandbox_log):
    await inject("status", method="GET", path=f"{demo_plan_id}/categories", status=429, delay_ms=120_000)

    with pytest.raises(YnabError) as limited:
        await client.get_categories(demo_plan_id)
    await sandbox_log.mark()
    with pytest.raises(PacingRefused) as paused:
        await client.get_plan(demo_plan_id)

    assert (limited.value.status, limited.value.retryable) == (429, True)
    assert "Nothing will be sent to YNAB until" in limited.value.message
    assert "(in 2 minutes)" in limited.value.message
    assert await sandbox_log.requests(demo_plan_id) == []
    wait = paused.value.retry_at - datetime.now(UTC)
    assert timedelta(seconds=100) < wait <= timedelta(seconds=120)
    assert "too many requests" in paused.value.message


def _restarted_service_token(*, rows: list[tuple[timedelta, str]]) -> str:
    """A token of this test's own whose last hour (rows: how long ago, outcome) is on record."""
    token = f"pacing-{uuid.uuid4().hex}"
    tag, now = ynab_token_tag(token), datetime.now(UTC)
    YnabRequest.objects.bulk_create(
        YnabRequest(
            sent_at=now - ago, token_tag=tag, method="GET", path="/plans", status=200, outcome=outcome
        )
        for ago, outcome in rows
    )
    return token


async def test_the_181st_request_of_the_hour_is_refused_without_being_sent(
    sandbox_url, demo_plan_id, sandbox_log
):
    spent = [(timedelta(minutes=50, seconds=n), "ok") for n in range(LIMIT)]
    token = await sync_to_async(_restarted_service_token)(rows=spent)
    restarted = YnabClient(base_url=sandbox_url, token=token, pacer=Pacer(), delays=(0, 0))
    await sandbox_log.mark()

    with pytest.raises(PacingRefused) as refused:
        await restarted.get_categories(demo_plan_id)

    assert (
        await sandbox_log.requests(demo_plan_id) == []
    )  # not even a refused (401) request reached the sandbox
    assert f"{LIMIT} requests went to YNAB in the last hour" in refused.value.message
    assert refused.value.retry_at < datetime.now(UTC) + timedelta(minutes=10, seconds=5)


async def test_a_restart_remembers_a_429_pause(sandbox_url, demo_plan_id, sandbox_log):
    token = await sync_to_async(_restarted_service_token)(
        rows=[(timedelta(minutes=1), "rate_limited retry_after=600")]
    )
    restarted = YnabClient(base_url=sandbox_url, token=token, pacer=Pacer(), delays=(0, 0))
    await sandbox_log.mark()

    with pytest.raises(PacingRefused) as refused:
        await restarted.get_categories(demo_plan_id)

    assert await sandbox_log.requests(demo_plan_id) == []
    # Paused 600 s from a 429 one minute ago: about nine minutes are left.
    left = refused.value.retry_at - datetime.now(UTC)
    assert timedelta(minutes=8) < left <= timedelta(minutes=9, seconds=1)
    assert "(in 9 minutes)" in refused.value.message or "(in 10 minutes)" in refused.value.message


async def test_a_closed_port_is_tried_three_times_then_reported_unreachable():
    with socket.socket() as probe:  # a port nothing listens on: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pacer = Pacer(history=False)
    client = YnabClient(base_url=f"http://127.0.0.1:{port}/v1", token="t", pacer=pacer, delays=(0, 0))

    with pytest.raises(YnabError) as unreachable:
        await client.get_plans()

    rows = await _rows(client.token_tag, "/plans")
    assert [(row.status, row.outcome) for row in rows] == [(None, "not_sent")] * 3
    assert "could not be reached" in unreachable.value.message
    assert "nothing was sent" in unreachable.value.message
    assert unreachable.value.retryable
    assert pacer.used() == 0  # never sent, so never counted against YNAB's budget


async def _some_transaction(client, plan_id: str) -> str:
    export = await client.get_plan(plan_id)
    return export["plan"]["transactions"][0]["id"]


async def _memo(client, plan_id: str, transaction_id: str) -> str | None:
    """A transaction's memo as the plan export shows it (how the service reads a write back)."""
    export = await client.get_plan(plan_id)
    [transaction] = [row for row in export["plan"]["transactions"] if row["id"] == transaction_id]
    return transaction["memo"]
