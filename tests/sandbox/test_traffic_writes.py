"""Faults around real writes: a failed write changes nothing, a dropped answer's write is applied."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from avenir_mcp.sandbox.faults import clear_faults, inject, last_request_id, requests_since
from avenir_mcp.sandbox.models import Payee, Plan


@pytest.fixture(autouse=True)
def no_faults_left(live_service) -> Iterator[None]:
    clear_faults()
    yield
    clear_faults()


@pytest.fixture
def payee(api: httpx2.Client, home) -> dict:
    """A payee of the test's own plan, created through the API."""
    created = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Corner Shop"}})
    assert created.status_code == 201
    return created.json()["data"]["payee"]


def _knowledge(plan_id: str) -> int:
    return Plan.objects.get(pk=plan_id).server_knowledge


def test_a_status_fault_on_a_write_changes_nothing(api, home, payee):
    inject("status", method="PATCH", path=f"/payees/{payee['id']}$", status=500)
    knowledge = _knowledge(home.id)

    answer = api.patch(f"/plans/{home.id}/payees/{payee['id']}", json={"payee": {"name": "Renamed"}})

    assert answer.status_code == 500
    assert answer.json()["error"]["name"] == "internal_server_error"
    assert api.get(f"/plans/{home.id}/payees/{payee['id']}").json()["data"]["payee"]["name"] == "Corner Shop"
    assert _knowledge(home.id) == knowledge


def test_a_status_fault_on_a_create_creates_nothing(api, home):
    inject("status", method="POST", path=f"/plans/{home.id}/payees$", status=503)
    before = Payee.objects.filter(plan_id=home.id).count()

    answer = api.post(f"/plans/{home.id}/payees", json={"payee": {"name": "Never Created"}})

    assert answer.status_code == 503
    assert Payee.objects.filter(plan_id=home.id).count() == before


def test_a_dropped_answer_leaves_the_write_applied_and_one_request_logged(api, home, payee):
    fault = inject("drop_after_write", method="PATCH", path=f"/payees/{payee['id']}$")
    knowledge = _knowledge(home.id)
    mark = last_request_id()

    with pytest.raises(httpx2.RemoteProtocolError):
        api.patch(f"/plans/{home.id}/payees/{payee['id']}", json={"payee": {"name": "Renamed"}})

    [dropped] = requests_since(mark)
    assert (dropped.method, dropped.status, dropped.fault) == ("PATCH", 200, f"drop_after_write #{fault.pk}")
    assert api.get(f"/plans/{home.id}/payees/{payee['id']}").json()["data"]["payee"]["name"] == "Renamed"
    assert _knowledge(home.id) > knowledge


def test_a_delayed_write_is_applied_once(api, home, payee):
    inject("delay", method="PATCH", path=f"/payees/{payee['id']}$", delay_ms=50)
    mark = last_request_id()

    answer = api.patch(f"/plans/{home.id}/payees/{payee['id']}", json={"payee": {"name": "Renamed"}})

    assert answer.status_code == 200
    assert answer.json()["data"]["payee"]["name"] == "Renamed"
    assert [entry.method for entry in requests_since(mark)] == ["PATCH"]
