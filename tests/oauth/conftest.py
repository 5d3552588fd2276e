"""Fixtures of the OAuth tests: the plan owner who answers the consent page.

The harness (the owner's browser session, the SDK's OAuth client) is `tests.helpers.oauth`.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from tests.helpers.oauth import OWNER_PASSWORD


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def owner():
    return get_user_model().objects.create_superuser(
        username=f"owner-{uuid.uuid4().hex[:8]}", password=OWNER_PASSWORD
    )
