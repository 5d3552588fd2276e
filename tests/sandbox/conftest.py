"""Fixtures of the sandbox API tests: an authorised HTTP client and small plans of their own."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from django.conf import settings

from avenir_mcp.ynab_client.client import tls_context
from tests.sandbox.plans import SmallPlan, small_plan


@pytest.fixture
def api(sandbox_url: str) -> Iterator[httpx2.Client]:
    """The sandbox's API v1 over real HTTP, with the sandbox's bearer token."""
    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    with httpx2.Client(base_url=sandbox_url, headers=headers, timeout=15, verify=tls_context()) as client:
        yield client


@pytest.fixture
def home() -> SmallPlan:
    """A fresh small household plan (see `tests.sandbox.plans.small_plan`)."""
    return small_plan()
