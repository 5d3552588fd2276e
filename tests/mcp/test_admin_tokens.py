"""The owner administers MCP tokens in the admin: created (shown once), listed, revoked."""

from __future__ import annotations

import hashlib
import html
import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client as BrowserClient

from avenir_mcp.tokens.client_config import stdio_setup
from avenir_mcp.tokens.models import McpToken

TOKENS_URL = "/admin/tokens/mcptoken/"


@pytest.fixture
def owner() -> BrowserClient:
    user = get_user_model().objects.create_superuser(username=f"owner-{uuid.uuid4().hex[:8]}", password="x")
    browser = BrowserClient()
    browser.force_login(user)
    return browser


def test_creating_a_token_shows_it_once_and_stores_its_hash(owner):
    name = f"admin {uuid.uuid4().hex[:8]}"

    created = owner.post(f"{TOKENS_URL}add/", {"name": name, "scope": McpToken.SCOPE_READ}, follow=True)
    shown = re.search(r"<code>(avm_[\w-]+)</code>", created.content.decode())
    row = McpToken.objects.get(name=name)
    change_page = owner.get(f"{TOKENS_URL}{row.pk}/change/").content.decode()

    assert shown is not None
    assert row.token_hash == hashlib.sha256(shown[1].encode()).hexdigest()
    assert row.read_only is True
    assert stdio_setup(writes=False) in html.unescape(created.content.decode())  # as create_mcp_token
    assert shown[1] not in change_page


def test_the_list_shows_scope_and_last_use(owner, issue_token):
    row, _token = issue_token(read_only=True)

    listing = owner.get(TOKENS_URL, {"q": row.name}).content.decode()

    assert row.name in listing
    assert "read-only" in listing
    assert "Last used at" in listing
    assert "Revoked at" in listing


def test_revoking_from_the_list_refuses_the_token_from_then_on(owner, issue_token):
    row, _token = issue_token()

    owner.post(TOKENS_URL, {"action": "revoke_tokens", "_selected_action": [row.pk]}, follow=True)

    assert McpToken.objects.active().filter(pk=row.pk).exists() is False


def test_a_tokens_scope_cannot_be_raised_after_creation(owner, issue_token):
    row, _token = issue_token(read_only=True)

    owner.post(f"{TOKENS_URL}{row.pk}/change/", {"name": row.name, "scope": McpToken.SCOPE_WRITE})

    assert McpToken.objects.get(pk=row.pk).read_only is True


def test_the_new_token_form_starts_read_only(owner):
    form = owner.get(f"{TOKENS_URL}add/").content.decode()

    selected = re.findall(r'<option value="([^"]*)"[^>]*selected', form)
    assert selected == [McpToken.SCOPE_READ]
