"""The sandbox's request log: every API request it served, over real HTTP, and nothing else."""

from __future__ import annotations

import uuid

import httpx2
import pytest
from django.contrib.auth.models import User
from django.test import Client

from avenir_mcp.sandbox.faults import last_request_id, requests_since
from avenir_mcp.sandbox.traffic_log import token_tag

TOKEN = "sandbox"


def _get(url: str, *, token: str | None = TOKEN, params: dict | None = None) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.get(url, headers=headers, params=params, timeout=10)


def _unique_path() -> str:
    """An API path no other test uses, so the log rows it makes are easy to pick out."""
    return f"/plans/{uuid.uuid4()}/accounts"


def test_it_logs_each_api_request_with_what_happened(sandbox_url):
    mark = last_request_id()
    path = _unique_path()

    answer = _get(f"{sandbox_url}{path}", params={"last_knowledge_of_server": "7"})

    [entry] = requests_since(mark)
    assert (entry.method, entry.path, entry.query) == (
        "GET",
        f"/sandbox/v1{path}",
        "last_knowledge_of_server=7",
    )
    assert entry.status == answer.status_code
    assert entry.duration_ms > 0
    assert entry.token_tag == token_tag(TOKEN)
    assert entry.fault == ""


def test_it_logs_a_request_without_a_token_as_the_refusal_it_got(sandbox_url):
    mark = last_request_id()

    answer = _get(f"{sandbox_url}/user", token=None)

    [entry] = requests_since(mark)
    assert answer.status_code == 401
    assert (entry.path, entry.status, entry.token_tag) == ("/sandbox/v1/user", 401, "")


def test_it_logs_a_tag_that_is_not_the_token_and_differs_per_token(sandbox_url):
    secret = f"secret-{uuid.uuid4()}"
    mark = last_request_id()

    _get(f"{sandbox_url}/user", token=secret)
    _get(f"{sandbox_url}/user", token=TOKEN)

    first, second = requests_since(mark)
    assert first.token_tag != second.token_tag
    assert "" not in (first.token_tag, second.token_tag)
    assert first.token_tag not in secret
    assert TOKEN not in second.token_tag
    assert len(first.token_tag) <= 16


def test_it_does_not_log_its_own_hooks_or_the_rest_of_the_service(live_service, sandbox_url):
    mark = last_request_id()

    httpx2.get(f"{live_service.url}/sandbox/_requests", timeout=10)
    httpx2.get(f"{live_service.url}/sandbox/_faults", timeout=10)
    httpx2.get(f"{live_service.url}/api/health", timeout=10)
    httpx2.get(f"{live_service.url}/sandbox/v2/user", timeout=10)

    assert requests_since(mark) == []


def test_it_serves_the_log_as_json_newest_first(live_service, sandbox_url):
    paths = [_unique_path() for _ in range(3)]
    for path in paths:
        _get(f"{sandbox_url}{path}")

    answer = httpx2.get(f"{live_service.url}/sandbox/_requests", params={"limit": 3}, timeout=10)

    assert answer.status_code == 200
    listed = answer.json()["requests"]
    assert [entry["path"] for entry in listed] == [f"/sandbox/v1{path}" for path in reversed(paths)]
    assert set(listed[0]) == {
        "id", "created_at", "method", "path", "query", "status", "duration_ms", "token_tag", "fault"
    }  # fmt: skip


def test_it_lists_only_what_came_after_since_id_oldest_first(live_service, sandbox_url):
    _get(f"{sandbox_url}{_unique_path()}")
    mark = last_request_id()
    paths = [_unique_path() for _ in range(3)]
    for path in paths:
        _get(f"{sandbox_url}{path}")

    answer = httpx2.get(f"{live_service.url}/sandbox/_requests", params={"since_id": mark}, timeout=10)
    first_two = httpx2.get(
        f"{live_service.url}/sandbox/_requests", params={"since_id": mark, "limit": 2}, timeout=10
    )

    assert [entry["path"] for entry in answer.json()["requests"]] == [f"/sandbox/v1{path}" for path in paths]
    assert [entry["path"] for entry in first_two.json()["requests"]] == [
        f"/sandbox/v1{path}" for path in paths[:2]
    ]
    assert all(entry["id"] > mark for entry in answer.json()["requests"])


@pytest.mark.parametrize("query", [{"since_id": "-1"}, {"since_id": "x"}, {"limit": "0"}, {"limit": "1001"}])
def test_it_refuses_a_malformed_log_query_with_a_reason(live_service, query):
    answer = httpx2.get(f"{live_service.url}/sandbox/_requests", params=query, timeout=10)

    assert answer.status_code == 400
    assert answer.json()["error"]["id"] == "400"
    assert next(iter(query)) in answer.json()["error"]["detail"]


def test_the_python_api_sees_nothing_new_when_nothing_happened():
    mark = last_request_id()

    assert requests_since(mark) == []
    assert last_request_id() == mark


def test_the_admin_lists_the_log_read_only_and_searchable_by_path(sandbox_url):
    path = _unique_path()
    _get(f"{sandbox_url}{path}")
    owner = User.objects.create_superuser(f"owner-{uuid.uuid4().hex[:8]}", password="x")
    browser = Client()
    browser.force_login(owner)

    found = browser.get("/admin/sandbox/requestlogentry/", {"q": path})
    filtered = browser.get("/admin/sandbox/requestlogentry/", {"q": path, "method__exact": "POST"})
    adding = browser.get("/admin/sandbox/requestlogentry/add/")

    assert found.status_code == 200
    assert f"/sandbox/v1{path}" in found.content.decode()
    assert f"/sandbox/v1{path}" not in filtered.content.decode()
    assert adding.status_code == 403
