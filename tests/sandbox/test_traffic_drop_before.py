"""The `drop_before_write` fault: the connection breaks with no answer, and the request never ran.

To a client it is the same transport error as `drop_after_write`; only reading the data back
tells them apart. `move_money`'s rollback tests need exactly this: a write that got no answer
and did not land.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx2
import pytest
from django.conf import settings

from avenir_mcp.sandbox.faults import clear_faults, inject, last_request_id, requests_since
from avenir_mcp.sandbox.models import Fault
from avenir_mcp.ynab_client import UnknownOutcome
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.pacing import Pacer
from tests.sandbox.plans import SmallPlan


@pytest.fixture(autouse=True)
def no_faults_left(live_service) -> Iterator[None]:
    clear_faults()
    yield
    clear_faults()


def _assigned_path(home: SmallPlan) -> str:
    return f"/plans/{home.id}/months/{home.this_month.isoformat()}/categories/{home.groceries}"


def _assigned(api: httpx2.Client, home: SmallPlan) -> int:
    answer = api.get(_assigned_path(home))
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]["category"]["budgeted"]


def _assign(api: httpx2.Client, home: SmallPlan, milliunits: int) -> httpx2.Response:
    return api.patch(_assigned_path(home), json={"category": {"budgeted": milliunits}})


def test_a_write_dropped_before_it_runs_is_a_transport_error_and_changes_nothing(api, home):
    assert _assign(api, home, 120_000).status_code == 200
    fault = inject("drop_before_write", method="PATCH", path=_assigned_path(home))
    mark = last_request_id()

    with pytest.raises(httpx2.RemoteProtocolError):
        _assign(api, home, 150_000)

    assert _assigned(api, home) == 120_000
    dropped, read_back = requests_since(mark)
    assert (dropped.method, dropped.fault) == ("PATCH", f"drop_before_write #{fault.pk}")
    assert read_back.method == "GET"


def test_a_write_dropped_after_it_ran_looks_the_same_but_is_applied(api, home):
    """The contrast that makes the fault useful: the same error, the opposite outcome."""
    assert _assign(api, home, 120_000).status_code == 200
    inject("drop_after_write", method="PATCH", path=_assigned_path(home))

    with pytest.raises(httpx2.RemoteProtocolError):
        _assign(api, home, 150_000)

    assert _assigned(api, home) == 150_000


def test_the_fault_is_used_once_then_requests_run_as_usual(api, home):
    fault = inject("drop_before_write", method="PATCH", path=_assigned_path(home))

    with pytest.raises(httpx2.RemoteProtocolError):
        _assign(api, home, 150_000)
    answered = _assign(api, home, 175_000)

    assert answered.status_code == 200
    assert _assigned(api, home) == 175_000
    fault.refresh_from_db()
    assert fault.remaining == 0


def test_it_can_be_set_over_http_like_the_other_faults(live_service, api, home):
    faults_url = f"{live_service.url}/sandbox/_faults"
    created = httpx2.post(
        faults_url,
        json={"kind": "drop_before_write", "method": "PATCH", "path": _assigned_path(home)},
        headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"},
        timeout=10,
    )

    assert created.status_code == 201, created.text
    assert Fault.objects.get(pk=created.json()["fault"]["id"]).kind == Fault.KIND_DROP_BEFORE
    with pytest.raises(httpx2.RemoteProtocolError):
        _assign(api, home, 150_000)


def test_the_ynab_client_reports_an_unknown_outcome_and_does_not_resend(sandbox_url, api, home):
    client = YnabClient(base_url=sandbox_url, token=settings.SANDBOX_TOKEN, pacer=Pacer(history=False))
    inject("drop_before_write", method="PATCH", path=_assigned_path(home))
    mark = last_request_id()

    async def assign() -> None:
        try:
            await client.patch_month_category(home.id, home.this_month, home.groceries, 150_000)
        finally:
            await client.aclose()

    with pytest.raises(UnknownOutcome):
        anyio.run(assign)

    assert [entry.method for entry in requests_since(mark)] == ["PATCH"]
    assert _assigned(api, home) == 0
