"""Open registration, limited per client address (`oauth.registration.RegistrationLimit`), over real HTTP.

Each test registers from addresses of its own, given as a reverse proxy on 127.0.0.1 gives
them (`X-Forwarded-For`, which uvicorn trusts from there), and moves the limit's clock by hand.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.avenir_site.asgi import oauth_application
from avenir_mcp.oauth.models import OAuthClient
from avenir_mcp.oauth.registration import RegistrationLimit
from tests.helpers.oauth import REDIRECT_URI

pytestmark = pytest.mark.anyio

_addresses = itertools.count(1)


@dataclass
class FakeClock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(live_service) -> Iterator[FakeClock]:
    """The limit's clock, one minute into a window (windows are 10 minutes, epoch-aligned)."""
    fake = FakeClock(datetime(2031, 5, 1, 12, 1, tzinfo=UTC))
    limit = oauth_application.registration_limit
    real, limit.clock = limit.clock, fake
    yield fake
    limit.clock = real


@pytest.fixture
def limit_of_three(settings) -> None:
    settings.AVENIR_MCP_REGISTRATION_LIMIT = 3


def new_address() -> str:
    """An address no other test registers from (TEST-NET-3, RFC 5737)."""
    count = next(_addresses)
    return f"203.0.{count // 250}.{count % 250 + 1}"


async def register_from(
    http: httpx2.AsyncClient, base_url: str, address: str, **metadata: object
) -> httpx2.Response:
    body = {"client_name": f"Limited {uuid.uuid4().hex[:8]}", "redirect_uris": [REDIRECT_URI], **metadata}
    return await http.post(f"{base_url}/register", json=body, headers={"X-Forwarded-For": address})


async def test_past_the_limit_an_address_gets_429_with_retry_after_and_nothing_stored(
    live_service, http, clock, limit_of_three
):
    address = new_address()
    accepted = [await register_from(http, live_service.url, address) for _ in range(3)]

    refused = await register_from(http, live_service.url, address, client_name="One too many")

    assert [answer.status_code for answer in accepted] == [201, 201, 201]
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "540"  # the window ends 9 minutes later
    assert refused.json() == {
        "error": "too_many_requests",
        "error_description": "Too many client registrations from this address: try again in 540 seconds.",
    }
    assert not await OAuthClient.objects.filter(name="One too many").aexists()


async def test_when_the_window_ends_the_address_registers_again(live_service, http, clock, limit_of_three):
    address = new_address()
    for _ in range(3):
        await register_from(http, live_service.url, address)
    clock.now += timedelta(minutes=8, seconds=59)
    still_refused = await register_from(http, live_service.url, address)

    clock.now += timedelta(seconds=1)
    accepted = await register_from(http, live_service.url, address)

    assert (still_refused.status_code, still_refused.headers["Retry-After"]) == (429, "1")
    assert accepted.status_code == 201


async def test_one_address_past_its_limit_leaves_others_registering(
    live_service, http, clock, limit_of_three
):
    crowded, other = new_address(), new_address()
    for _ in range(3):
        await register_from(http, live_service.url, crowded)

    refused = await register_from(http, live_service.url, crowded)
    accepted = await register_from(http, live_service.url, other)

    assert refused.status_code == 429
    assert accepted.status_code == 201


async def test_refused_registrations_count_and_the_refused_by_the_limit_do_not(
    live_service, http, clock, limit_of_three
):
    address = new_address()
    bad = [await register_from(http, live_service.url, address, redirect_uris=["http://x.example/"])]
    bad.append(await register_from(http, live_service.url, address, client_name="n" * 201))
    last_place = await register_from(http, live_service.url, address)
    knocking = [await register_from(http, live_service.url, address) for _ in range(5)]

    clock.now += timedelta(minutes=9)  # the next window: knocking while refused took no place in it
    next_window = [await register_from(http, live_service.url, address) for _ in range(3)]

    assert [answer.status_code for answer in bad] == [400, 400]
    assert last_place.status_code == 201
    assert {answer.status_code for answer in knocking} == {429}
    assert [answer.status_code for answer in next_window] == [201, 201, 201]


async def test_the_count_is_in_the_database_shared_by_every_process(
    live_service, http, clock, limit_of_three
):
    """Another process serving the same database has its own limit object, and the same counts."""
    address = new_address()
    for _ in range(2):
        await register_from(http, live_service.url, address)
    another_process = RegistrationLimit(clock=clock)

    taken_there = await sync_to_async(another_process.admit)(address)
    refused_here = await register_from(http, live_service.url, address)

    assert taken_there.admitted
    assert refused_here.status_code == 429
