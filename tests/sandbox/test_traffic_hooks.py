"""`/sandbox/_faults`: fault injection over HTTP for tests and demos, only when enabled."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx2
import pytest

from avenir_mcp.sandbox.faults import clear_faults
from avenir_mcp.sandbox.models import Fault


@pytest.fixture(autouse=True)
def no_faults_left(live_service) -> Iterator[None]:
    clear_faults()
    yield
    clear_faults()


SANDBOX = {"Authorization": "Bearer sandbox"}


@pytest.fixture
def faults_url(live_service) -> str:
    return f"{live_service.url}/sandbox/_faults"


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer not-the-token"}, {"Authorization": "sandbox"}]
)
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_it_needs_the_sandbox_token(faults_url, headers, method):
    httpx2.post(
        faults_url, json={"kind": "status", "path": "^/kept/$", "status": 500}, headers=SANDBOX, timeout=10
    )
    wanted = {"kind": "status", "path": "^/never/$", "status": 500}

    answer = httpx2.request(
        method,
        faults_url,
        json=wanted,
        headers={"Origin": "https://elsewhere.example", **headers},
        timeout=10,
    )

    assert answer.status_code == 401
    assert answer.json()["error"]["id"] == "401"
    assert list(Fault.objects.values_list("path_pattern", flat=True)) == ["^/kept/$"]


def test_it_creates_a_fault_that_then_acts_on_the_api(faults_url, sandbox_url):
    path = f"/plans/{uuid.uuid4()}/payees"
    wanted = {"kind": "status", "method": "GET", "path": path, "status": 502, "count": 1}

    created = httpx2.post(faults_url, json=wanted, headers=SANDBOX, timeout=10)
    hit = httpx2.get(f"{sandbox_url}{path}", headers={"Authorization": "Bearer sandbox"}, timeout=10)

    assert created.status_code == 201
    fault = created.json()["fault"]
    assert {key: fault[key] for key in wanted if key != "count"} == {
        k: v for k, v in wanted.items() if k != "count"
    }
    assert (fault["remaining"], fault["delay_ms"]) == (1, 0)
    assert hit.status_code == 502


def test_it_lists_faults_with_what_is_left_of_them(faults_url, sandbox_url):
    path = f"/plans/{uuid.uuid4()}/payees"
    httpx2.post(
        faults_url,
        json={"kind": "status", "path": path, "status": 500, "count": 2},
        headers=SANDBOX,
        timeout=10,
    )
    httpx2.get(f"{sandbox_url}{path}", timeout=10)

    listed = httpx2.get(faults_url, headers=SANDBOX, timeout=10)

    assert listed.status_code == 200
    [fault] = listed.json()["faults"]
    assert (fault["path"], fault["remaining"]) == (path, 1)


def test_delete_clears_every_fault(faults_url):
    for kind, extra in [("status", {"status": 500}), ("delay", {"delay_ms": 5}), ("drop_after_write", {})]:
        httpx2.post(
            faults_url, json={"kind": kind, "path": "^/never/$", **extra}, headers=SANDBOX, timeout=10
        )

    cleared = httpx2.delete(faults_url, headers=SANDBOX, timeout=10)

    assert cleared.status_code == 200
    assert cleared.json() == {"deleted": 3}
    assert httpx2.get(faults_url, headers=SANDBOX, timeout=10).json() == {"faults": []}


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"kind": "status", "status": "500"}, "status"),
        ({"kind": "status", "status": 500, "delay": 10}, "delay"),
        ({"kind": "delay", "delay_ms": 10.5}, "delay_ms"),
        ({"kind": "status", "status": 200}, "400 to 599"),
        ({"kind": "drop_after_write", "path": "[unclosed"}, "regular expression"),
        ({"method": "GET"}, "kind"),
    ],
)
def test_it_refuses_a_malformed_fault_with_the_reason(faults_url, payload, reason):
    answer = httpx2.post(faults_url, json=payload, headers=SANDBOX, timeout=10)

    assert answer.status_code == 400
    assert answer.json()["error"]["id"] == "400"
    assert reason in answer.json()["error"]["detail"]
    assert not Fault.objects.exists()


def test_it_refuses_a_body_that_is_not_json(faults_url):
    answer = httpx2.post(faults_url, content=b"kind=status", headers=SANDBOX, timeout=10)

    assert answer.status_code == 400
    assert not Fault.objects.exists()


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_the_fault_hook_does_not_exist_unless_enabled(settings, faults_url, method):
    settings.SANDBOX_FAULTS_ENABLED = False

    answer = httpx2.request(
        method, faults_url, json={"kind": "status", "status": 500}, headers=SANDBOX, timeout=10
    )

    assert answer.status_code == 404
    assert not Fault.objects.exists()


def test_the_request_log_stays_served_when_faults_are_disabled(settings, live_service):
    settings.SANDBOX_FAULTS_ENABLED = False

    answer = httpx2.get(f"{live_service.url}/sandbox/_requests", timeout=10)

    assert answer.status_code == 200


def test_the_admin_adds_a_fault_only_when_it_could_act(admin_client):
    form = {"kind": "status", "method": "patch", "path_pattern": "/payees/", "delay_ms": 0, "remaining": 2}

    refused = admin_client.post("/admin/sandbox/fault/add/", {**form, "status": ""})
    added = admin_client.post("/admin/sandbox/fault/add/", {**form, "status": 503})

    assert refused.status_code == 200  # the form again, with the reason
    assert "A status fault needs a status from 400 to 599." in refused.content.decode()
    assert added.status_code == 302
    fault = Fault.objects.get()
    assert (fault.method, fault.status, fault.remaining) == ("PATCH", 503, 2)
