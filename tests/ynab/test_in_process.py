"""The YNAB client answered by the sandbox in its own process (what `mcp_stdio` does with the
embedded sandbox): the same answers, log rows and failures as over a socket, with no server."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.asgi import get_asgi_application

from avenir_mcp.sandbox.traffic import SandboxTraffic
from avenir_mcp.ynab_client.client import InProcessTransport, YnabClient
from avenir_mcp.ynab_client.errors import UnknownOutcome, YnabError
from avenir_mcp.ynab_client.pacing import Pacer
from tests.helpers.sandbox_side import inject

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]
NOWHERE = "http://127.0.0.1:9/sandbox/v1"  # nothing listens there: every answer comes in-process


@pytest.fixture
def in_process() -> YnabClient:
    return YnabClient(
        base_url=NOWHERE,
        token=settings.SANDBOX_TOKEN,
        pacer=Pacer(history=False),
        delays=(0, 0),
        transport=InProcessTransport(SandboxTraffic(get_asgi_application())),
    )


async def test_it_reads_and_writes_the_sandbox_with_no_server(in_process, demo_plan_id, sandbox_log):
    await sandbox_log.mark()

    plans = await in_process.get_plans()
    transaction_id = (await in_process.get_plan(demo_plan_id))["plan"]["transactions"][0]["id"]
    await in_process.patch_transactions(demo_plan_id, [{"id": transaction_id, "memo": "in process"}])

    assert demo_plan_id in [plan.id for plan in plans.plans]
    [written] = [
        row
        for row in (await in_process.get_plan(demo_plan_id))["plan"]["transactions"]
        if row["id"] == transaction_id
    ]
    assert written["memo"] == "in process"
    assert [entry.method for entry in await sandbox_log.requests(demo_plan_id)] == ["GET", "PATCH", "GET"]


async def test_a_lost_answer_is_a_lost_answer_and_a_refusal_a_refusal(in_process, demo_plan_id, sandbox_log):
    transaction_id = (await in_process.get_plan(demo_plan_id))["plan"]["transactions"][0]["id"]
    await inject("drop_after_write", method="PATCH", path=f"{demo_plan_id}/transactions")
    await inject("status", method="GET", path=f"{demo_plan_id}/categories", status=404)

    with pytest.raises(UnknownOutcome):
        await in_process.patch_transactions(demo_plan_id, [{"id": transaction_id, "memo": "landed"}])
    with pytest.raises(YnabError) as refused:
        await in_process.get_categories(demo_plan_id)

    assert refused.value.status == 404
