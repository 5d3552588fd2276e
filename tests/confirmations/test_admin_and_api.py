"""The owner's view of pending confirmations: the admin page and GET /api/confirmations."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client as DjangoClient

from avenir_mcp.confirmations import codes
from avenir_mcp.confirmations.codes import Binding, Kind
from avenir_mcp.confirmations.views import pending_page_url

PAGE = "/admin/confirmations/pending/"
API = "/api/confirmations"
PREVIEW = "Budget Restaurants for 2026-09-01: 120.00 → 150.00?\n- a line"


@pytest.fixture
def waiting() -> Iterator[tuple[str, Binding]]:
    """A code waiting in the server's own store, for a plan of this test."""
    binding = Binding("a" * 64, f"plan-{uuid.uuid4()}", "set_category_budget", "token:41")
    code = codes.store.issue(Kind.CODE, binding, preview=PREVIEW, principal_name="Claude Desktop")
    yield code, binding
    for item in codes.store.pending():
        if item.plan_id == binding.plan_id:
            codes.store.revoke(item.id)


def user(*, staff: bool) -> User:
    return User.objects.create_user(username=f"u-{uuid.uuid4().hex[:12]}", password="x", is_staff=staff)


def logged_in(*, staff: bool, enforce_csrf: bool = False) -> DjangoClient:
    client = DjangoClient(enforce_csrf_checks=enforce_csrf)
    client.force_login(user(staff=staff))
    return client


def test_the_page_lists_what_waits_for_staff_without_the_code(waiting):
    code, binding = waiting

    response = logged_in(staff=True).get(PAGE)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Pending confirmations" in page
    for shown in (
        "set_category_budget",
        binding.plan_id,
        "Claude Desktop",
        "Budget Restaurants for 2026-09-01",
    ):
        assert shown in page
    assert "9 min" in page  # expires in
    assert "memory of the server" in page
    assert code not in page


def test_the_page_names_the_plan_the_kind_and_the_time_left_of_each(monkeypatch):
    now = [1_000.0]
    store = codes.ConfirmationStore(clock=lambda: now[0])
    monkeypatch.setattr(codes, "store", store)
    plan_id = f"de{uuid.uuid4().hex}"
    binding = Binding("c" * 64, plan_id, "set_category_budget", "token:41")
    store.issue(Kind.CODE, binding, preview=PREVIEW, principal_name="Claude Desktop")
    now[0] += 61
    store.issue(Kind.QUESTION, binding, preview=PREVIEW, principal_name="Claude Desktop")

    page = logged_in(staff=True).get(PAGE).content.decode()

    assert page.count(f">{plan_id[:8]}…</td>") == 2  # the plan is not in this server's list: its id's start
    code_row, question_row = page.split("<tr")[-2:]
    assert "confirmation code (agent)" in code_row
    assert "8 min 59 s" in code_row
    assert "question in the client" in question_row
    assert "10 min 00 s" in question_row


def test_the_admin_index_links_to_the_page_for_staff():
    response = logged_in(staff=True).get("/admin/")

    assert response.status_code == 200
    assert f'href="{PAGE}"' in response.content.decode()
    # Listed as an app of its own with one view-only entry (a "View" link, no "Add"), in order.
    [entry] = [app for app in response.context["app_list"] if app["app_label"] == "confirmations"]
    assert entry == {
        "name": "Confirmations",
        "app_label": "confirmations",
        "app_url": PAGE,
        "has_module_perms": True,
        "models": [
            {
                "name": "Pending confirmations",
                "object_name": "PendingConfirmation",
                "admin_url": PAGE,
                "add_url": None,
                "view_only": True,
                "perms": {"view": True},
            }
        ],
    }
    names = [app["name"].lower() for app in response.context["app_list"]]
    assert names == sorted(names)


def test_another_apps_page_lists_that_app_alone_and_the_login_page_lists_nothing():
    owner = DjangoClient()
    owner.force_login(User.objects.create_superuser(username=f"o-{uuid.uuid4().hex[:12]}", password="x"))
    on_auth = owner.get("/admin/auth/")
    assert [app["app_label"] for app in on_auth.context["app_list"]] == ["auth"]

    login = DjangoClient().get("/admin/login/")
    assert login.status_code == 200
    assert PAGE not in login.content.decode()


@pytest.mark.parametrize("client_of", [lambda: DjangoClient(), lambda: logged_in(staff=False)])
def test_the_page_is_refused_to_anyone_but_staff(client_of, waiting):
    response = client_of().get(PAGE)

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_revoking_makes_the_code_unusable(waiting):
    code, binding = waiting
    [item] = [item for item in codes.store.pending() if item.plan_id == binding.plan_id]
    client = logged_in(staff=True)

    response = client.post(PAGE, {"id": item.id}, follow=True)

    assert response.status_code == 200
    assert [str(message) for message in response.context["messages"]] == [
        "Revoked: that confirmation can no longer be used."
    ]
    assert binding.plan_id not in response.content.decode()
    assert codes.store.spend(Kind.CODE, code, binding) is False


@pytest.mark.parametrize("posted", [{"id": "no-such-id"}, {}])
def test_revoking_what_no_longer_waits_says_so_and_revokes_nothing(waiting, posted):
    code, binding = waiting

    response = logged_in(staff=True).post(PAGE, posted, follow=True)

    assert response.status_code == 200
    assert [str(message) for message in response.context["messages"]] == [
        "Nothing to revoke: it was already used, expired or revoked."
    ]
    assert codes.store.spend(Kind.CODE, code, binding) is True


def test_revoking_needs_the_csrf_token(waiting):
    code, binding = waiting
    [item] = [item for item in codes.store.pending() if item.plan_id == binding.plan_id]

    response = logged_in(staff=True, enforce_csrf=True).post(PAGE, {"id": item.id})

    assert response.status_code == 403
    assert codes.store.spend(Kind.CODE, code, binding) is True


def test_the_api_lists_what_waits_for_staff_without_the_code(waiting):
    code, binding = waiting

    response = logged_in(staff=True).get(API)

    assert response.status_code == 200
    [item] = [item for item in response.json() if item["plan_id"] == binding.plan_id]
    assert item["tool"] == "set_category_budget"
    assert item["kind"] == "code"
    assert item["token"] == "Claude Desktop"
    assert item["preview"] == PREVIEW
    assert 590 <= item["expires_in_seconds"] <= 600
    assert code not in response.content.decode()


def test_the_api_answers_401_without_a_session_and_403_to_non_staff(waiting):
    assert DjangoClient().get(API).status_code == 401
    refused = logged_in(staff=False).get(API)
    assert (refused.status_code, refused.json()) == (403, {"detail": "Pending confirmations are for staff."})


@pytest.mark.parametrize("self_url", ["https://budget.example.org", "https://budget.example.org/"])
def test_the_pages_address_given_to_the_person_has_one_slash_whatever_the_setting(settings, self_url):
    settings.AVENIR_MCP_SELF_URL = self_url

    assert pending_page_url() == "https://budget.example.org/admin/confirmations/pending/"
