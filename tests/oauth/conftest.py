"""Fixtures of the OAuth tests: the plan owner who answers the consent page, signed in to the
service in a browser session (`browser`), and a plain HTTP client (`http`).

The harness (the owner's browser session, the SDK's OAuth client) is `tests.helpers.oauth`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx2
import pytest
from django.contrib.auth import get_user_model

from avenir_mcp.ynab_client.client import tls_context
from tests.helpers.oauth import OWNER_PASSWORD, OwnerAtConsent, owner_browser


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def owner():
    return get_user_model().objects.create_superuser(
        username=f"owner-{uuid.uuid4().hex[:8]}", password=OWNER_PASSWORD
    )


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(timeout=30, verify=tls_context()) as client:
        yield client


@pytest.fixture
async def browser(live_service, owner) -> AsyncIterator[OwnerAtConsent]:
    async with owner_browser(live_service.url, owner) as signed_in:
        yield signed_in
