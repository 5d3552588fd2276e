"""Helpers of the operation log's tests: a plan of one's own, and operations made through the log."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Permission, User

from tools import oplog
from tools.auth import Principal
from tools.models import McpToken, Operation

LOCAL = Principal.local("stdio")


def fresh_plan_id() -> str:
    """A plan id no other test uses: tests share one database and never roll back."""
    return f"plan-{uuid.uuid4().hex[:16]}"


@pytest.fixture
def plan_id() -> str:
    return fresh_plan_id()


async def record(
    plan_id: str,
    *,
    tool: str = "set_category_budget",
    status: str = "applied",
    preview: str = "Budget Restaurants for 2026-09-01: 120.00 → 150.00?",
    principal: Principal = LOCAL,
    undoable: bool = True,
    undo_of: Operation | None = None,
    confirmed_by: str = "elicitation",
    undo_data: Any = None,
) -> Operation:
    """An operation as a write tool leaves it: begun, then completed with `status`."""
    op = await oplog.begin(
        plan_id=plan_id,
        tool=tool,
        subject={"category_id": "cat-1", "month": "2026-09-01", "budgeted": 150000},
        fingerprint="f" * 64,
        preview=preview,
        confirmed_by=confirmed_by,
        principal=principal,
        undoable=undoable,
        undo_of=undo_of,
    )
    if status != "pending":
        await oplog.complete(op, status=status, undo_data=undo_data)
    return op


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
    view = Permission.objects.get(codename="view_operation", content_type__app_label="tools")
    user.user_permissions.add(view)
    return user


@pytest.fixture
def staff_without_permission() -> User:
    return _user(is_staff=True)


@pytest.fixture
def customer() -> User:
    """Logged in, but not staff."""
    return _user()
