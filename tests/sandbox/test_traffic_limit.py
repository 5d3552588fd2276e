"""The sandbox's emulation of YNAB's 200-requests-per-hour limit, over real HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx2
import pytest

from avenir_mcp.sandbox.faults import last_request_id, requests_since, reset_rate_limit
from avenir_mcp.sandbox.traffic_limit import RateLimiter


@pytest.fixture
def limit_of_three(settings, live_service) -> Iterator[None]:
    reset_rate_limit()
    settings.SANDBOX_RATE_LIMIT = 3
    yield
    reset_rate_limit()


def _get(sandbox_url: str, token: str) -> httpx2.Response:
    return httpx2.get(f"{sandbox_url}/user", headers={"Authorization": f"Bearer {token}"}, timeout=10)


def _fresh_token() -> str:
    return f"token-{uuid.uuid4()}"


def test_it_answers_429_with_ynab_body_once_a_token_used_its_hour(limit_of_three, sandbox_url):
    token = _fresh_token()
    admitted = [_get(sandbox_url, token) for _ in range(3)]

    refused = _get(sandbox_url, token)

    assert [answer.headers["X-Rate-Limit"] for answer in admitted] == ["1/3", "2/3", "3/3"]
    assert all(answer.status_code != 429 for answer in admitted)
    assert refused.status_code == 429
    assert refused.json()["error"]["id"] == "429"
    assert refused.json()["error"]["name"] == "too_many_requests"
    assert refused.json()["error"]["detail"]
    assert refused.headers["X-Rate-Limit"] == "3/3"
    assert 3500 <= int(refused.headers["Retry-After"]) <= 3600  # the oldest leaves in about an hour


def test_it_counts_each_token_on_its_own(limit_of_three, sandbox_url):
    busy, other = _fresh_token(), _fresh_token()
    for _ in range(4):
        _get(sandbox_url, busy)

    answer = _get(sandbox_url, other)

    assert answer.status_code != 429
    assert answer.headers["X-Rate-Limit"] == "1/3"


def test_it_logs_the_refusals_and_does_not_let_them_fill_the_window(limit_of_three, sandbox_url):
    token = _fresh_token()
    mark = last_request_id()

    statuses = [_get(sandbox_url, token).status_code for _ in range(5)]

    logged = requests_since(mark)
    assert [entry.status for entry in logged] == statuses
    assert statuses[3:] == [429, 429]
    assert [entry.fault for entry in logged[3:]] == ["rate_limit", "rate_limit"]


def test_reset_rate_limit_lets_a_token_in_again(limit_of_three, sandbox_url):
    token = _fresh_token()
    for _ in range(3):
        _get(sandbox_url, token)

    reset_rate_limit()

    assert _get(sandbox_url, token).headers["X-Rate-Limit"] == "1/3"


def test_it_reads_the_limit_at_each_request(limit_of_three, settings, sandbox_url):
    token = _fresh_token()
    for _ in range(3):
        _get(sandbox_url, token)

    settings.SANDBOX_RATE_LIMIT = 5

    assert _get(sandbox_url, token).headers["X-Rate-Limit"] == "4/5"


def test_it_neither_limits_nor_counts_when_the_emulation_is_off(settings, sandbox_url):
    settings.SANDBOX_RATE_LIMIT = 0
    token = _fresh_token()

    answers = [_get(sandbox_url, token) for _ in range(5)]

    assert all(answer.status_code != 429 for answer in answers)
    assert all("X-Rate-Limit" not in answer.headers for answer in answers)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_window_rolls_a_request_out_an_hour_after_it_was_admitted():
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    limiter.admit("tag", 2)
    clock.now += 600
    limiter.admit("tag", 2)

    refused = limiter.admit("tag", 2)
    clock.now += 3000  # the first request has left the window, the second has not
    admitted = limiter.admit("tag", 2)

    assert (refused.admitted, refused.retry_after, refused.header) == (False, 3000, "2/2")
    assert (admitted.admitted, admitted.header) == (True, "2/2")


def test_a_lowered_limit_waits_for_enough_requests_to_leave():
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    for _ in range(3):
        limiter.admit("tag", 10)
        clock.now += 100

    refused = limiter.admit("tag", 2)

    # Two must leave for a third place below a limit of 2: the second admitted, at 1100.
    assert (refused.admitted, refused.used, refused.retry_after) == (False, 3, 1100 + 3600 - 1300)
