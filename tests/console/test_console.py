"""The owner's console (the admin site): named avenir-mcp, opening on what waits for the owner,
the sandbox's section only while the sandbox serves, one date format on every page."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client as DjangoClient

from avenir_mcp.confirmations import codes
from avenir_mcp.confirmations.codes import Binding, Kind
from avenir_mcp.oplog import settling
from avenir_mcp.tokens.models import McpToken

INDEX = "/admin/"
PREVIEW = "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
DATE_TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d"


@pytest.fixture
def owner() -> DjangoClient:
    browser = DjangoClient()
    browser.force_login(
        User.objects.create_superuser(username=f"owner-{uuid.uuid4().hex[:10]}", password=None)
    )
    return browser


@pytest.fixture
def waiting() -> Iterator[Binding]:
    """A code waiting in the server's store, for a plan of this test."""
    binding = Binding("b" * 64, f"plan-{uuid.uuid4()}", "set_category_budget", "token:42")
    codes.store.issue(Kind.CODE, binding, preview=PREVIEW, principal_name="Claude Desktop")
    yield binding
    for item in codes.store.pending():
        if item.plan_id == binding.plan_id:
            codes.store.revoke(item.id)


def section_names(page: str) -> list[str]:
    """The index's sections, in order (their captions)."""
    return re.findall(r'<caption>\s*<a href="[^"]*" class="section"[^>]*>([^<]+)</a>', page)


def test_every_page_names_avenir_mcp_never_django(owner):
    pages = [
        owner.get(address) for address in (INDEX, "/admin/oplog/operation/", "/admin/confirmations/pending/")
    ]
    pages.append(DjangoClient().get("/admin/login/"))

    for response in pages:
        page = response.content.decode()
        assert response.status_code == 200
        assert "Django administration" not in page
        assert "avenir-mcp" in re.search(r"<title>(.*?)</title>", page, re.S).group(1)


def test_the_index_opens_on_what_waits_for_the_owner(owner, waiting):
    page = owner.get(INDEX).content.decode()
    waiting_part = page[page.index('id="needs-you"') : page.index('id="console-ynab"')]

    assert "set_category_budget" in waiting_part
    assert re.search(r"<td>\d+ min \d\d s</td>", waiting_part)  # its time left
    attention = settling.needs_attention().count()
    assert (f'href="/admin/oplog/operation/?attention=yes"><strong>{attention}</strong>' in waiting_part) == (
        attention > 0
    )
    assert re.search(r"<strong>\d+</strong> requests? in the last hour", page)
    assert page.index('id="needs-you"') < page.index("Operation log")  # above the sections


def test_the_sandboxs_section_comes_last_while_the_sandbox_serves(owner, settings):
    settings.YNAB_IS_EMBEDDED_SANDBOX = True

    sections = section_names(owner.get(INDEX).content.decode())

    assert sections[-1] == "YNAB sandbox"
    assert "Operation log" in sections


def test_with_the_real_ynab_the_sandbox_is_neither_on_the_index_nor_in_the_sidebar(owner, settings):
    settings.YNAB_IS_EMBEDDED_SANDBOX = False

    index = owner.get(INDEX).content.decode()
    sidebar = owner.get("/admin/oplog/operation/").content.decode()

    assert "YNAB sandbox" not in index
    assert "/admin/sandbox/" not in index
    assert "/admin/sandbox/" not in sidebar
    assert "Operation log" in section_names(index)


def test_dates_read_the_same_on_list_and_record_pages(owner):
    token, _plaintext = McpToken.issue(f"laptop {uuid.uuid4().hex[:8]}")

    listing = owner.get("/admin/tokens/mcptoken/", {"q": token.name}).content.decode()
    record = owner.get(f"/admin/tokens/mcptoken/{token.pk}/change/").content.decode()

    for page in (listing, record):
        assert re.search(
            rf'<td class="field-created_at[^"]*">{DATE_TIME}</td>|<div class="readonly">{DATE_TIME}</div>',
            page,
        )
        assert not re.search(r"\b[ap]\.m\.", page)
