"""Fixtures of the operation log's tests: a plan of one's own, operations made through the log, users.

The helpers they use are in `tests.helpers.operations`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Permission, User

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tokens.models import McpToken
from tests.helpers.operations import fresh_plan_id, record


@pytest.fixture
def plan_id() -> str:
    return fresh_plan_id()


@pytest.fixture
def record_sync() -> Callable[..., Operation]:
    """`record` for synchronous tests (admin, API)."""
    return async_to_sync(record)


@pytest.fixture
def token() -> McpToken:
    row, _plaintext = McpToken.issue(f"Claude Desktop {uuid.uuid4().hex[:8]}")
    return row


def _user(**flags: bool) -> User:
    return User.objects.create_user(username=f"user-{uuid.uuid4().hex[:12]}", password=None, **flags)


@pytest.fixture
def superuser() -> User:
    return _user(is_staff=True, is_superuser=True)


@pytest.fixture
def auditor() -> User:
    """Staff allowed to view operations, and nothing else."""
    user = _user(is_staff=True)
    view = Permission.objects.get(codename="view_operation", content_type__app_label="oplog")
    user.user_permissions.add(view)
    return user


@pytest.fixture
def staff_without_permission() -> User:
    return _user(is_staff=True)


@pytest.fixture
def customer() -> User:
    """Logged in, but not staff."""
    return _user()
