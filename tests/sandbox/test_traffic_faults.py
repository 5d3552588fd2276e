"""Faults injected into the sandbox's API: errors, delays and dropped answers, over real HTTP."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest
from django.core.exceptions import ValidationError

from avenir_mcp.sandbox.faults import _take_one_use, clear_faults, inject, last_request_id, requests_since
from avenir_mcp.sandbox.models import Fault

TOKEN = "sandbox"


@pytest.fixture(autouse=True)
def no_faults_left(live_service) -> Iterator[None]:
    clear_faults()
    yield
    clear_faults()


def _call(method: str, url: str, **kwargs) -> httpx2.Response:
    return httpx2.request(method, url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10, **kwargs)


def _own_path() -> str:
    """An API path of this test's own, so a fault aimed at it touches no other test."""
    return f"/plans/{uuid.uuid4()}/accounts"


def test_a_status_fault_answers_ynab_error_body_and_says_so_in_the_log(sandbox_url):
    path = _own_path()
    fault = inject("status", path=path, status=503)
    mark = last_request_id()

    answer = _call("GET", f"{sandbox_url}{path}")

    assert answer.status_code == 503
    assert answer.json()["error"]["id"] == "503"
    assert answer.json()["error"]["name"] == "service_unavailable"
    [entry] = requests_since(mark)
    assert (entry.status, entry.fault) == (503, f"status #{fault.pk}")


@pytest.mark.parametrize(
    ("status", "error_id", "name"),
    [(500, "500", "internal_server_error"), (502, "502", "service_unavailable"), (409, "409", "conflict")],
)
def test_a_status_fault_uses_ynab_error_ids(sandbox_url, status, error_id, name):
    path = _own_path()
    inject("status", path=path, status=status)

    answer = _call("GET", f"{sandbox_url}{path}")

    assert answer.status_code == status
    assert (answer.json()["error"]["id"], answer.json()["error"]["name"]) == (error_id, name)


def test_an_injected_429_carries_retry_after(sandbox_url):
    path = _own_path()
    inject("status", path=path, status=429, delay_ms=120_500)
    inject("status", path=path, status=429)

    named, default = _call("GET", f"{sandbox_url}{path}"), _call("GET", f"{sandbox_url}{path}")

    assert (named.status_code, named.headers["Retry-After"]) == (429, "121")
    assert (default.status_code, default.headers["Retry-After"]) == (429, "60")
    assert named.json()["error"]["name"] == "too_many_requests"


def test_a_delay_fault_waits_then_answers_as_usual(sandbox_url):
    path = _own_path()
    usual = _call("GET", f"{sandbox_url}{path}")
    fault = inject("delay", path=path, delay_ms=300)
    mark = last_request_id()

    started = time.monotonic()
    delayed = _call("GET", f"{sandbox_url}{path}")
    waited = time.monotonic() - started

    assert waited >= 0.3
    assert (delayed.status_code, delayed.content) == (usual.status_code, usual.content)
    [entry] = requests_since(mark)
    assert entry.duration_ms >= 300
    assert entry.fault == f"delay #{fault.pk}"


def test_a_dropped_answer_is_a_transport_error_not_a_status(sandbox_url):
    path = _own_path()
    fault = inject("drop_after_write", path=path)
    mark = last_request_id()

    with pytest.raises(httpx2.RemoteProtocolError):
        _call("GET", f"{sandbox_url}{path}")

    [entry] = requests_since(mark)
    assert entry.fault == f"drop_after_write #{fault.pk}"
    assert _call("GET", f"{sandbox_url}{path}").status_code == entry.status  # what was dropped


def test_a_fault_acts_on_the_next_count_requests_then_is_spent(live_service, sandbox_url):
    path = _own_path()
    fault = inject("status", path=path, status=500, count=2)

    statuses = [_call("GET", f"{sandbox_url}{path}").status_code for _ in range(3)]

    assert statuses[:2] == [500, 500]
    assert statuses[2] != 500
    fault.refresh_from_db()
    assert fault.remaining == 0


def test_a_fault_matches_only_its_method(sandbox_url):
    path = _own_path()
    inject("status", method="post", path=path, status=500)

    read = _call("GET", f"{sandbox_url}{path}")
    written = _call("POST", f"{sandbox_url}{path}", json={})

    assert read.status_code != 500
    assert written.status_code == 500


def test_a_fault_matches_its_path_with_or_without_the_sandbox_prefix(sandbox_url):
    plan_id = uuid.uuid4()
    inject("status", path=f"^/plans/{plan_id}/payees$", status=502)
    inject("status", path=f"^/sandbox/v1/plans/{plan_id}/months$", status=504)

    other = _call("GET", f"{sandbox_url}/plans/{plan_id}/accounts")
    payees = _call("GET", f"{sandbox_url}/plans/{plan_id}/payees")
    months = _call("GET", f"{sandbox_url}/plans/{plan_id}/months")

    assert other.status_code not in (502, 504)
    assert (payees.status_code, months.status_code) == (502, 504)


def test_the_oldest_matching_fault_acts_first(sandbox_url):
    path = _own_path()
    inject("status", path=path, status=500)
    inject("status", path=path, status=503)

    statuses = [_call("GET", f"{sandbox_url}{path}").status_code for _ in range(2)]

    assert statuses == [500, 503]


def test_concurrent_requests_never_share_a_fault_last_use(sandbox_url):
    path = _own_path()
    inject("status", path=path, status=500, count=3)

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda _: _call("GET", f"{sandbox_url}{path}").status_code, range(12)))

    assert statuses.count(500) == 3
    assert Fault.objects.get(path_pattern=path).remaining == 0


def test_of_two_requests_that_both_saw_the_last_use_only_one_takes_it():
    fault = inject("status", path=_own_path(), status=500)
    seen_by_one, seen_by_other = Fault.objects.get(pk=fault.pk), Fault.objects.get(pk=fault.pk)

    taken = [_take_one_use(seen_by_one), _take_one_use(seen_by_other)]

    assert taken == [True, False]
    assert Fault.objects.get(pk=fault.pk).remaining == 0


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"kind": "explode"}, "kind"),
        ({"kind": "status"}, "status"),
        ({"kind": "status", "status": 302}, "status"),
        ({"kind": "status", "status": 500, "delay_ms": 10}, "delay_ms"),
        ({"kind": "delay"}, "delay_ms"),
        ({"kind": "delay", "delay_ms": 10, "status": 500}, "status"),
        ({"kind": "drop_after_write", "count": 0}, "count"),
        ({"kind": "drop_after_write", "path": "("}, "regular expression"),
        ({"kind": "drop_after_write", "method": "GET /x"}, "method"),
    ],
)
def test_it_refuses_a_fault_that_could_not_act_as_asked(arguments, reason):
    kind = arguments.pop("kind")

    with pytest.raises(ValidationError) as refusal:
        inject(kind, **arguments)

    assert reason in " ".join(refusal.value.messages)
    assert not Fault.objects.exists()
