"""Who may reach /mcp over real HTTP: bearer tokens, Host and Origin, sessions per token."""

from __future__ import annotations

import logging

import anyio
import httpx2
import pytest
from django.conf import settings
from django.db.models import QuerySet
from django.db.utils import OperationalError

from avenir_mcp.mcp_surface.http import AnswerEnd, McpHttpApp
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.tokens.models import McpToken
from tests.helpers.raw_mcp import INITIALIZE, post_mcp

LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def test_it_refuses_a_request_without_a_token(live_service):
    response = post_mcp(live_service.url, INITIALIZE)

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer ")
    assert response.json()["error"] == "invalid_request"


def test_it_refuses_a_token_it_never_issued(live_service):
    response = post_mcp(live_service.url, INITIALIZE, token="avm_not-a-token-of-ours")

    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_it_refuses_a_token_once_revoked(live_service, issue_token):
    row, token = issue_token()
    accepted = post_mcp(live_service.url, INITIALIZE, token=token)

    row.revoke()
    refused = post_mcp(live_service.url, INITIALIZE, token=token)

    assert accepted.status_code == 200
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def test_it_refuses_a_host_outside_allowed_hosts(live_service, issue_token):
    _row, token = issue_token()

    response = post_mcp(live_service.url, INITIALIZE, token=token, Host="evil.example")

    assert response.status_code == 421


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 400),  # Django's own check
        ("/mcp", 421),  # the MCP layer's
        ("/.well-known/oauth-authorization-server", 421),  # the OAuth routes'
    ],
)
def test_a_host_outside_allowed_hosts_is_one_warning_line_naming_it(live_service, caplog, path, status):
    with caplog.at_level(logging.INFO):
        response = httpx2.get(f"{live_service.url}{path}", headers={"Host": "evil.example"}, timeout=30)

    [record] = [record for record in caplog.records if record.name.startswith("django.security")]
    line = logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"]).format(record)
    assert response.status_code == status
    assert record.levelname == "WARNING"
    assert "Invalid HTTP_HOST header: 'evil.example'" in line
    assert "ALLOWED_HOSTS" in line
    assert "\n" not in line  # no traceback under it
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("host", ["localhost", "localhost:{port}", "127.0.0.1:{port}", "127.0.0.1"])
def test_it_accepts_the_local_hosts_with_or_without_a_port(live_service, issue_token, host):
    _row, token = issue_token()

    response = post_mcp(live_service.url, INITIALIZE, token=token, Host=host.format(port=live_service.port))

    assert response.status_code == 200


def test_a_dotted_allowed_host_admits_its_subdomains_and_nothing_else(live_service, issue_token, settings):
    settings.ALLOWED_HOSTS = [".example.com"]
    _row, token = issue_token()

    subdomain = post_mcp(live_service.url, INITIALIZE, token=token, Host="mcp.example.com:443")
    apex = post_mcp(live_service.url, INITIALIZE, token=token, Host="example.com")
    other = post_mcp(live_service.url, INITIALIZE, token=token, Host="example.org")
    local = post_mcp(live_service.url, INITIALIZE, token=token, Host=f"127.0.0.1:{live_service.port}")

    assert (subdomain.status_code, apex.status_code) == (200, 200)
    assert (other.status_code, local.status_code) == (421, 421)


def test_it_refuses_a_browser_origin_outside_allowed_hosts(live_service, issue_token):
    _row, token = issue_token()

    foreign = post_mcp(live_service.url, INITIALIZE, token=token, Origin="http://evil.example")
    sandboxed = post_mcp(live_service.url, INITIALIZE, token=token, Origin="null")
    local = post_mcp(live_service.url, INITIALIZE, token=token, Origin="http://localhost:6274")

    assert (foreign.status_code, sandboxed.status_code) == (403, 403)
    assert local.status_code == 200


def test_a_session_opened_with_one_token_is_unknown_to_another(live_service, issue_token):
    _first, token = issue_token()
    _second, other_token = issue_token()
    opened = post_mcp(live_service.url, INITIALIZE, token=token)
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}

    by_other = post_mcp(live_service.url, LIST_TOOLS, token=other_token, **session)
    by_owner = post_mcp(live_service.url, LIST_TOOLS, token=token, **session)

    assert by_other.status_code == 404
    assert by_owner.status_code == 200


def test_it_records_when_a_token_was_last_used_at_most_once_a_minute(live_service, issue_token):
    row, token = issue_token()

    post_mcp(live_service.url, INITIALIZE, token=token)
    first_use = McpToken.objects.get(pk=row.pk).last_used_at
    post_mcp(live_service.url, INITIALIZE, token=token)
    second_use = McpToken.objects.get(pk=row.pk).last_used_at

    assert row.last_used_at is None
    assert first_use is not None
    assert second_use == first_use


@pytest.mark.parametrize(
    ("host", "status"), [("app.localhost:8000", 401), ("[::1]", 401), ("example.com", 421)]
)
def test_with_debug_and_no_allowed_hosts_only_local_names_reach_mcp(live_service, settings, host, status):
    settings.DEBUG, settings.ALLOWED_HOSTS = True, []  # Django's own fallback for a development machine

    response = post_mcp(live_service.url, INITIALIZE, Host=host)

    assert response.status_code == status  # 401: past the Host check, asked for a token


@pytest.mark.anyio
async def test_a_service_whose_sessions_cannot_run_fails_its_start_instead_of_serving_500s():
    """The ASGI server starting the same application twice (its session managers run once per
    instance): start-up fails with the reason, so the server stops rather than answer /mcp 500."""
    service = McpHttpApp(HttpServers.build())
    said: list[dict] = []

    async def receive() -> dict:
        return {
            "type": "lifespan.shutdown"
            if said and said[-1]["type"].endswith("complete")
            else "lifespan.startup"
        }

    async def send(message: dict) -> None:
        said.append(message)

    with anyio.fail_after(30):
        await service.serve_lifespan(receive, send)
        said.clear()
        await service.serve_lifespan(receive, send)

    assert [message["type"] for message in said] == ["lifespan.startup.failed"]
    assert "once per instance" in said[0]["message"]


def test_it_refuses_a_token_longer_than_any_it_issues_without_looking_it_up(live_service, issue_token):
    _row, token = issue_token()

    response = post_mcp(live_service.url, INITIALIZE, token=token + "x" * 200)

    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_a_token_is_accepted_when_its_last_use_cannot_be_recorded(
    live_service, issue_token, monkeypatch, caplog
):
    row, token = issue_token()

    async def locked(self, **fields):
        raise OperationalError("database is locked")

    monkeypatch.setattr(QuerySet, "aupdate", locked)
    with caplog.at_level(logging.WARNING, logger="avenir_mcp.tokens.auth"):
        response = post_mcp(live_service.url, INITIALIZE, token=token)
    monkeypatch.undo()

    assert response.status_code == 200
    assert f"Could not record the last use of MCP token {row.pk}" in caplog.text
    assert McpToken.objects.get(pk=row.pk).last_used_at is None  # the next request tries again


START = {"type": "http.response.start", "status": 200, "headers": []}
EVENT = {"type": "http.response.body", "body": b"data: {}\n\n", "more_body": True}
LAST = {"type": "http.response.body", "body": b"", "more_body": False}


@pytest.mark.anyio
async def test_a_stream_left_open_at_shutdown_gets_its_last_empty_body():
    """The SDK's SSE streams return without their last body message when the server stops
    (Ctrl+C): the answer is ended for them, so uvicorn has no unfinished response to log.
    (tests/mcp/test_runserver.py stops a real server with a stream open.)"""
    sent = []

    async def send(message: dict) -> None:
        sent.append(message)

    answer = AnswerEnd(send)
    await answer.send(START)
    await answer.send(EVENT)
    await answer.finish()

    assert sent == [START, EVENT, LAST]


@pytest.mark.anyio
@pytest.mark.parametrize("messages", [[START, LAST], []], ids=["complete", "never started"])
async def test_an_answer_complete_or_never_started_is_left_as_it_is(messages):
    sent = []

    async def send(message: dict) -> None:
        sent.append(message)

    answer = AnswerEnd(send)
    for message in messages:
        await answer.send(message)
    await answer.finish()

    assert sent == messages
