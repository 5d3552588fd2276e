"""The owner's undo in the admin: the button, the intermediate page, and the POST that runs it."""

from __future__ import annotations

import html
import re
import uuid

import httpx2
import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.undo import Budgets, logged, make_budgets, set_assigned

sync = async_to_sync


@pytest.fixture
def budgets_sync(demo_plan) -> Budgets:
    return sync(make_budgets)(demo_plan)


def _user(*permissions: str, **flags: bool) -> User:
    user = User.objects.create_user(username=f"user-{uuid.uuid4().hex[:12]}", password=None, **flags)
    for codename in permissions:
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label="oplog"))
    return user


@pytest.fixture
def owner() -> User:
    return _user(is_staff=True, is_superuser=True)


@pytest.fixture
def undoer() -> User:
    """Staff who may view the log and undo from it, without being a superuser."""
    return _user("view_operation", "undo_operation", is_staff=True)


@pytest.fixture
def auditor() -> User:
    """Staff who may view the log, and not undo."""
    return _user("view_operation", is_staff=True)


def _browser(user: User) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _page(response) -> str:
    return html.unescape(response.content.decode())


def _detail_url(op: Operation | str) -> str:
    return reverse("admin:oplog_operation_change", args=[getattr(op, "pk", op)])


def _undo_url(op: Operation) -> str:
    return reverse("admin:oplog_operation_undo", args=[op.pk])


def _digest(page: str) -> str:
    return re.search(r'name="digest" value="([0-9a-f]{64})"', page).group(1)


def _current(budgets: Budgets) -> list[int]:
    return sync(budgets.current)()


def test_an_operation_that_can_be_undone_shows_an_undo_button_to_the_owner(owner, budgets_sync):
    page = _page(_browser(owner).get(_detail_url(budgets_sync.op)))

    assert f'href="{_undo_url(budgets_sync.op)}"' in page


def test_there_is_no_button_for_an_operation_that_cannot_be_undone(owner, budgets_sync):
    imported = sync(logged)(budgets_sync.plan_id, tool="import_transactions", undoable=False)
    failed = sync(logged)(budgets_sync.plan_id, status="failed", undo_data=budgets_sync.op.undo_data)

    for op in (imported, failed):
        page = _page(_browser(owner).get(_detail_url(op)))
        assert _undo_url(op) not in page


def test_staff_who_may_only_view_the_log_get_no_button_and_no_page(auditor, budgets_sync):
    browser = _browser(auditor)

    assert _undo_url(budgets_sync.op) not in _page(browser.get(_detail_url(budgets_sync.op)))
    assert browser.get(_undo_url(budgets_sync.op)).status_code == 403
    assert browser.post(_undo_url(budgets_sync.op), {"digest": "0" * 64}).status_code == 403
    assert _current(budgets_sync) == budgets_sync.after


def test_the_intermediate_page_is_refused_to_anyone_not_staff(budgets_sync):
    for browser in (Client(), _browser(_user())):
        response = browser.get(_undo_url(budgets_sync.op))
        assert response.status_code == 302
        assert response.url.startswith(reverse("admin:login"))


def test_the_intermediate_page_shows_what_would_be_restored_and_the_conflicts_and_writes_nothing(
    undoer, budgets_sync
):
    changed = budgets_sync.items[1]
    sync(set_assigned)(budgets_sync.plan_id, budgets_sync.month, changed["category_id"], 777_000)
    mark = sync(request_mark)()

    response = _browser(undoer).get(_undo_url(budgets_sync.op))

    page = _page(response)
    assert response.status_code == 200
    assert f"Undo: budget 1 category(ies) for {budgets_sync.month}?" in page
    assert "- Groceries: " in page
    conflicts = page[page.index('id="undo-conflicts"') :]
    assert "Dining Out" in conflicts
    assert changed["category_id"] in conflicts
    assert "assigned is now 777,00" in conflicts
    assert 'value="Yes, undo it in YNAB"' in page
    assert sync(writes_after)(mark) == []


def test_posting_the_page_runs_the_undo_and_logs_it_as_the_admins(undoer, budgets_sync):
    browser = _browser(undoer)
    digest = _digest(_page(browser.get(_undo_url(budgets_sync.op))))
    mark = sync(request_mark)()

    response = browser.post(_undo_url(budgets_sync.op), {"digest": digest})

    original = Operation.objects.get(pk=budgets_sync.op.pk)
    undo_row = Operation.objects.get(pk=original.undone_by_id)
    assert response.status_code == 302
    assert response.url == _detail_url(undo_row)
    assert _current(budgets_sync) == budgets_sync.before
    assert len(sync(writes_after)(mark)) == 2
    assert original.status == "undone"
    assert (undo_row.tool, undo_row.status, undo_row.undo_of_id) == ("undo_operation", "applied", original.pk)
    assert undo_row.confirmed_by == "admin"
    assert undo_row.client == f"admin: {undoer.username}"
    assert undo_row.token_id is None
    assert undo_row.preview.startswith(f"Undo: budget 2 category(ies) for {budgets_sync.month}?")
    followed = _page(browser.get(response.url))
    assert f"Done as operation {undo_row.pk}, undoing {original.pk}" in followed


def test_a_plan_changed_since_the_page_was_shown_is_shown_again_and_nothing_is_written(undoer, budgets_sync):
    browser = _browser(undoer)
    digest = _digest(_page(browser.get(_undo_url(budgets_sync.op))))
    changed = budgets_sync.items[0]
    sync(set_assigned)(budgets_sync.plan_id, budgets_sync.month, changed["category_id"], 555_000)
    mark = sync(request_mark)()

    response = browser.post(_undo_url(budgets_sync.op), {"digest": digest})

    page = _page(response)
    assert response.status_code == 200
    assert "The plan changed since the page was shown: nothing was undone" in page
    assert f"Undo: budget 1 category(ies) for {budgets_sync.month}?" in page
    assert _digest(page) != digest
    assert sync(writes_after)(mark) == []
    assert Operation.objects.get(pk=budgets_sync.op.pk).status == "applied"


def test_posting_the_same_page_twice_undoes_once(undoer, budgets_sync):
    browser = _browser(undoer)
    digest = _digest(_page(browser.get(_undo_url(budgets_sync.op))))
    browser.post(_undo_url(budgets_sync.op), {"digest": digest})
    mark = sync(request_mark)()

    again = browser.post(_undo_url(budgets_sync.op), {"digest": digest}, follow=True)

    assert "was already undone by operation" in _page(again)
    assert sync(writes_after)(mark) == []
    assert Operation.objects.filter(undo_of_id=budgets_sync.op.pk).count() == 1


def test_the_page_says_why_an_operation_cannot_be_undone(owner, budgets_sync):
    imported = sync(logged)(budgets_sync.plan_id, tool="import_transactions", undoable=False)

    page = _page(_browser(owner).get(_undo_url(imported)))

    assert f"Operation {imported.pk} (import_transactions) cannot be undone: imports are not reversed" in page
    assert "Yes, undo it in YNAB" not in page


def test_the_page_says_when_nothing_is_left_to_restore(owner, budgets_sync):
    for item in budgets_sync.items:
        sync(set_assigned)(budgets_sync.plan_id, budgets_sync.month, item["category_id"], item["before"])

    page = _page(_browser(owner).get(_undo_url(budgets_sync.op)))

    assert f"Nothing to undo in operation {budgets_sync.op.pk}: 2 item(s) already as before" in page
    assert "Yes, undo it in YNAB" not in page


def test_the_owner_undoes_through_the_real_server(live_service, undoer, budgets_sync):
    """The same click under uvicorn: the admin's view waits on the sandbox served by the same process."""
    session = _browser(undoer).cookies["sessionid"].value
    with httpx2.Client(base_url=live_service.url, cookies={"sessionid": session}, timeout=30) as http:
        page = http.get(_undo_url(budgets_sync.op)).text
        form_token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        response = http.post(
            _undo_url(budgets_sync.op),
            data={"digest": _digest(html.unescape(page)), "csrfmiddlewaretoken": form_token},
            headers={"Referer": f"{live_service.url}{_undo_url(budgets_sync.op)}"},
        )

    assert response.status_code == 302
    assert _current(budgets_sync) == budgets_sync.before
    assert Operation.objects.get(pk=budgets_sync.op.pk).status == "undone"


def test_an_operation_whose_outcome_is_open_is_settled_before_its_undo_is_proposed(owner, demo_plan):
    budgets = sync(make_budgets)(demo_plan)
    lost = sync(logged)(budgets.plan_id, status="unknown", undo_data=budgets.op.undo_data)

    page = _page(_browser(owner).get(_undo_url(lost)))

    settled = Operation.objects.get(pk=lost.pk)
    assert (settled.status, settled.settled_at is not None) == ("applied", True)
    assert f"Undo: budget 2 category(ies) for {budgets.month}?" in page
    assert "Yes, undo it in YNAB" in page


def _plan_read_fails(budgets: Budgets) -> None:
    faults.inject("status", method="GET", path=rf"^/plans/{budgets.plan_id}$", status=400, count=5)


def test_the_page_says_when_the_plan_cannot_be_read(owner, budgets_sync):
    _plan_read_fails(budgets_sync)

    page = _page(_browser(owner).get(_undo_url(budgets_sync.op)))

    assert "The plan could not be read, so nothing can be undone: " in page
    assert "Yes, undo it in YNAB" not in page


def test_posting_while_the_plan_cannot_be_read_undoes_nothing_and_says_why(undoer, budgets_sync):
    browser = _browser(undoer)
    digest = _digest(_page(browser.get(_undo_url(budgets_sync.op))))
    _plan_read_fails(budgets_sync)
    mark = sync(request_mark)()

    response = browser.post(_undo_url(budgets_sync.op), {"digest": digest}, follow=True)

    assert "The plan could not be read, so nothing was undone: " in _page(response)
    assert response.redirect_chain[-1][0] == _detail_url(budgets_sync.op)
    assert sync(writes_after)(mark) == []
    assert Operation.objects.get(pk=budgets_sync.op.pk).status == "applied"
    assert not Operation.objects.filter(undo_of_id=budgets_sync.op.pk).exists()


def test_an_undo_ynab_refuses_is_logged_failed_and_the_operation_stays_in_effect(undoer, budgets_sync):
    browser = _browser(undoer)
    digest = _digest(_page(browser.get(_undo_url(budgets_sync.op))))
    faults.inject("status", method="PATCH", path=rf"^/plans/{budgets_sync.plan_id}/months/", status=400)

    response = browser.post(_undo_url(budgets_sync.op), {"digest": digest}, follow=True)

    undo_row = Operation.objects.get(undo_of_id=budgets_sync.op.pk)
    assert undo_row.status == "failed"
    assert undo_row.error in _page(response)
    assert response.redirect_chain[-1][0] == _detail_url(budgets_sync.op)
    assert _current(budgets_sync) == budgets_sync.after
    assert Operation.objects.get(pk=budgets_sync.op.pk).status == "applied"


def test_the_undo_page_of_an_operation_that_does_not_exist_is_not_found(owner, budgets_sync):
    response = _browser(owner).get(reverse("admin:oplog_operation_undo", args=["NoSuchOp0000"]))

    assert response.status_code == 404
