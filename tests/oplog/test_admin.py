"""The operation log in the admin: the owner audits it; nobody, superusers included, edits it."""

from __future__ import annotations

import html
import re
import uuid
from datetime import date

from asgiref.sync import async_to_sync
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import path, reverse
from django.utils import timezone

import ynab_client
from oplog.admin import OperationAdmin
from oplog.models import Operation
from sandbox.ledger import create_plan

CHANGELIST = reverse("admin:oplog_operation_changelist")


def _browser(user: User) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _page(response) -> str:
    return html.unescape(response.content.decode())


def _detail_url(op: Operation) -> str:
    return reverse("admin:oplog_operation_change", args=[op.pk])


def test_the_log_lists_operations_with_filters_by_plan_tool_status_date_and_confirmation(
    superuser, plan_id, record_sync
):
    moved = record_sync(plan_id, tool="move_money", confirmed_by="code")
    failed = record_sync(plan_id, tool="move_money", status="failed")
    budgeted = record_sync(plan_id, tool="set_category_budget")
    browser = _browser(superuser)

    listing = browser.get(CHANGELIST)
    filtered = browser.get(
        CHANGELIST,
        {"plan_id": plan_id, "tool": "move_money", "status__exact": "applied", "confirmed_by__exact": "code"},
    )
    today = timezone.localdate(moved.created_at)
    by_date = browser.get(
        CHANGELIST,
        {
            "plan_id": plan_id,
            "created_at__day": today.day,
            "created_at__month": today.month,
            "created_at__year": today.year,
        },
    )

    assert listing.status_code == 200
    for heading in ("By status", "By tool", "By confirmed by", "By created at", "By plan"):
        assert heading in _page(listing)
    assert filtered.status_code == 200
    assert moved.pk in _page(filtered)
    assert failed.pk not in _page(filtered)
    assert budgeted.pk not in _page(filtered)
    assert all(op.pk in _page(by_date) for op in (moved, failed, budgeted))


def test_the_log_is_searchable_by_id_plan_tool_and_preview(superuser, plan_id, record_sync):
    renamed = record_sync(plan_id, tool="rename_payee", preview="Rename payee ‘CB MARKET’ to ‘Market Fresh’?")
    other = record_sync(plan_id, tool="set_category_budget")
    browser = _browser(superuser)

    by_id = _page(browser.get(CHANGELIST, {"q": renamed.pk}))
    by_plan = _page(browser.get(CHANGELIST, {"q": plan_id}))
    by_preview = _page(browser.get(CHANGELIST, {"q": "Market Fresh", "plan_id": plan_id}))
    by_tool = _page(browser.get(CHANGELIST, {"q": "rename_payee", "plan_id": plan_id}))

    assert renamed.pk in by_id
    assert other.pk not in by_id
    assert renamed.pk in by_plan
    assert other.pk in by_plan
    assert renamed.pk in by_preview
    assert other.pk not in by_preview
    assert renamed.pk in by_tool
    assert other.pk not in by_tool


def test_an_operation_shows_every_field_with_its_subject_and_undo_data_pretty_printed(
    superuser, plan_id, record_sync, token
):
    undo_data = {"category_id": "cat-1", "before": 120000, "after": 150000}
    op = record_sync(plan_id, undo_data=undo_data)

    page = _page(_browser(superuser).get(_detail_url(op)))

    assert '{\n  "budgeted": 150000,\n  "category_id": "cat-1",\n  "month": "2026-09-01"\n}' in page
    assert '{\n  "after": 150000,\n  "before": 120000,\n  "category_id": "cat-1"\n}' in page
    for shown in (op.pk, plan_id, "set_category_budget", op.fingerprint, str(op.correlation_id), "stdio"):
        assert shown in page
    assert "Budget Restaurants for 2026-09-01: 120.00 → 150.00?" in page
    assert 'name="_save"' not in page


def test_nobody_can_add_change_or_delete_an_operation_not_even_a_superuser(superuser, plan_id, record_sync):
    op = record_sync(plan_id)
    browser = _browser(superuser)

    add = browser.get(reverse("admin:oplog_operation_add"))
    change = browser.post(_detail_url(op), {"status": "undone", "plan_id": "elsewhere", "_save": "Save"})
    delete = browser.post(reverse("admin:oplog_operation_delete", args=[op.pk]), {"post": "yes"})
    bulk = browser.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [op.pk], "post": "yes"})

    assert (add.status_code, change.status_code, delete.status_code) == (403, 403, 403)
    assert "delete_selected" not in _page(browser.get(CHANGELIST))
    assert bulk.status_code in (200, 302)
    row = Operation.objects.get(pk=op.pk)
    assert (row.status, row.plan_id) == ("applied", plan_id)


def test_staff_allowed_to_view_operations_can_audit_them(auditor, plan_id, record_sync):
    op = record_sync(plan_id)
    browser = _browser(auditor)

    assert browser.get(CHANGELIST).status_code == 200
    assert browser.get(_detail_url(op)).status_code == 200
    assert browser.get(reverse("admin:oplog_operation_add")).status_code == 403


def test_the_log_is_refused_to_anyone_not_staff_or_not_allowed(
    customer, staff_without_permission, plan_id, record_sync
):
    op = record_sync(plan_id)

    anonymous = Client().get(_detail_url(op))
    not_staff = _browser(customer).get(CHANGELIST)
    not_allowed = _browser(staff_without_permission).get(_detail_url(op))

    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("admin:login"))
    assert not_staff.status_code == 302
    assert not_staff["Location"].startswith(reverse("admin:login"))
    assert not_allowed.status_code == 403


def test_undo_from_the_admin_plugs_in_through_undo_urls():
    def start_undo(request, object_id):  # pragma: no cover - only routed, never called
        raise AssertionError

    class WithUndo(OperationAdmin):
        def undo_urls(self):
            return [path("<path:object_id>/undo/", start_undo, name="oplog_operation_undo")]

    urls = WithUndo(Operation, admin.site).get_urls()

    assert urls[0].name == "oplog_operation_undo"
    assert [url.name for url in OperationAdmin(Operation, admin.site).undo_urls()] == ["oplog_operation_undo"]


def test_the_log_names_plans_and_keeps_their_ids_out_of_the_columns(superuser, record_sync, live_service):
    named = create_plan(name=f"Maison {uuid.uuid4().hex[:6]}", first_month=date(2026, 1, 1))
    async_to_sync(ynab_client.list_plans)()  # the process has listed it: it knows its name
    unknown = str(uuid.uuid4())  # a plan this process has never listed nor read: its id, shortened
    mine, other = record_sync(named.id), record_sync(unknown)
    browser = _browser(superuser)

    listing = _page(browser.get(CHANGELIST))
    detail = _page(browser.get(_detail_url(mine)))

    rows = {op.pk: _row_of(listing, op.pk) for op in (mine, other)}
    assert f'<span title="{named.id}">{named.name}</span>' in rows[mine.pk]
    assert f'<span title="{unknown}">{unknown[:8]}…</span>' in rows[other.pk]
    assert f">{named.id}<" not in listing  # a full id shows only as a tooltip
    assert f'<a href="?plan_id={named.id}">{named.name}</a>' in listing  # the filter, by name
    assert f"{named.name} ({named.id})" in detail


def test_the_log_gives_times_in_one_short_line(superuser, plan_id, record_sync):
    op = record_sync(plan_id)

    listing = _page(_browser(superuser).get(CHANGELIST, {"plan_id": plan_id}))

    when = timezone.localtime(op.created_at).strftime("%Y-%m-%d %H:%M")
    assert f'<td class="field-when">{when}</td>' in _row_of(listing, op.pk)


def _row_of(page: str, op_id: str) -> str:
    start = page.index(f"/{op_id}/change/")
    return page[page.rindex("<tr", 0, start) : page.index("</tr>", start)]


def test_the_list_keeps_to_columns_that_leave_the_summary_room_at_1366_pixels(
    superuser, plan_id, record_sync
):
    record_sync(plan_id)

    listing = _browser(superuser).get(CHANGELIST, {"plan_id": plan_id}).content.decode()
    headers = re.findall(r'<th scope="col"\s+class="[^"]*column-(\w+)', listing)
    stylesheet = Client().get("/static/oplog/operations.css")

    assert headers == ["id", "when", "plan", "short_summary", "status", "undo_possible"]
    assert 'href="/static/oplog/operations.css"' in listing
    assert b"field-short_summary { min-width" in b"".join(stylesheet.streaming_content)
