"""The audit API, /api/operations: the log as JSON, for staff allowed to view it."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import get_args

import httpx2
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from avenir_mcp.oplog.models import ConfirmedByName, Operation, StatusName
from tests.helpers.operations import fresh_plan_id

LIST = "/api/operations"


def _browser(user: User) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def test_the_published_status_and_confirmation_names_are_exactly_the_logs_own():
    assert list(get_args(StatusName)) == list(Operation.Status.values)
    assert list(get_args(ConfirmedByName)) == list(Operation.ConfirmedBy.values)


def test_it_answers_401_without_a_session_and_403_to_anyone_not_allowed(
    customer, staff_without_permission, plan_id, record_sync
):
    op = record_sync(plan_id)

    for url in (LIST, f"{LIST}/{op.pk}"):
        assert Client().get(url).status_code == 401
        assert _browser(customer).get(url).status_code == 403
        assert _browser(staff_without_permission).get(url).status_code == 403


def test_it_lists_a_plans_operations_newest_first_with_their_summary(auditor, plan_id, record_sync, token):
    first = record_sync(plan_id, tool="move_money", preview="Move 30.00 from Tennis to Restaurants?\n- x")
    second = record_sync(plan_id, tool="import_transactions", preview="", undoable=False, confirmed_by="none")

    answer = _browser(auditor).get(LIST, {"plan": plan_id})

    assert answer.status_code == 200
    body = answer.json()
    assert [row["operation_id"] for row in body["operations"]] == [second.pk, first.pk]
    assert body["next_cursor"] is None
    newest = body["operations"][0]
    assert newest["summary"] == "Import transactions"
    assert (newest["status"], newest["confirmed_by"], newest["client"]) == ("applied", "none", "stdio")
    assert (newest["undoable"], newest["can_be_undone"], newest["undo_of"]) == (False, False, None)
    assert body["operations"][1]["summary"] == "Move 30.00 from Tennis to Restaurants?"
    assert body["operations"][1]["can_be_undone"] is True


def test_it_filters_by_tool_status_and_time_and_pages_with_a_cursor(auditor, plan_id, record_sync):
    old = record_sync(plan_id, tool="move_money")
    Operation.objects.filter(pk=old.pk).update(created_at=old.created_at - dt.timedelta(days=2))
    moves = [record_sync(plan_id, tool="move_money") for _ in range(3)]
    record_sync(plan_id, tool="move_money", status="failed")
    record_sync(plan_id, tool="flag_transactions")
    browser = _browser(auditor)
    since = (old.created_at - dt.timedelta(days=1)).isoformat()
    filters = {"plan": plan_id, "tool": "move_money", "status": "applied", "since": since, "limit": 2}

    first = browser.get(LIST, filters).json()
    second = browser.get(LIST, {**filters, "cursor": first["next_cursor"]}).json()
    replayed = browser.get(LIST, {**filters, "tool": "flag_transactions", "cursor": first["next_cursor"]})

    pages = [row["operation_id"] for row in first["operations"] + second["operations"]]
    assert pages == [op.pk for op in reversed(moves)]
    assert second["next_cursor"] is None
    assert replayed.status_code == 400
    assert "call again without cursor" in replayed.json()["detail"]


@pytest.mark.parametrize(
    ("since", "listed"),
    [
        ("0001-01-01T00:00:00+14:00", True),  # before year 1 in UTC
        ("0001-01-01T00:00:00", True),  # in the server's time zone
        ("9999-12-31T23:59:59-12:00", False),  # after 9999 in UTC
        ("9999-12-31T23:59:59", False),
    ],
)
def test_a_since_at_the_calendars_ends_lists_everything_or_nothing_never_a_500(
    auditor, plan_id, record_sync, since, listed
):
    op = record_sync(plan_id)

    answer = _browser(auditor).get(LIST, {"plan": plan_id, "since": since})

    assert answer.status_code == 200, answer.content
    assert [row["operation_id"] for row in answer.json()["operations"]] == ([op.pk] if listed else [])


def test_without_a_plan_it_lists_every_plans_operations(auditor, plan_id, record_sync):
    tool = f"tool_{uuid.uuid4().hex[:12]}"  # this test's rows alone, whatever else the log holds
    mine = record_sync(plan_id, tool=tool)
    elsewhere = record_sync(fresh_plan_id(), tool=tool)

    body = _browser(auditor).get(LIST, {"tool": tool}).json()

    listed = [(row["operation_id"], row["plan_id"]) for row in body["operations"]]
    assert listed == [(elsewhere.pk, elsewhere.plan_id), (mine.pk, plan_id)]


def test_it_refuses_filters_it_does_not_know(auditor):
    browser = _browser(auditor)

    assert browser.get(LIST, {"status": "done"}).status_code == 422
    assert browser.get(LIST, {"limit": 201}).status_code == 422


def test_one_operation_comes_with_every_field(auditor, plan_id, record_sync):
    op = record_sync(plan_id, status="unknown", undo_data={"before": 1, "after": 2})
    Operation.objects.filter(pk=op.pk).update(error="No answer to the PATCH.")

    answer = _browser(auditor).get(f"{LIST}/{op.pk}")
    missing = _browser(auditor).get(f"{LIST}/000000000000")

    assert answer.status_code == 200
    body = answer.json()
    assert body["operation_id"] == op.pk
    assert body["subject"] == {"category_id": "cat-1", "month": "2026-09-01", "budgeted": 150000}
    assert (body["undo_data"], body["error"], body["status"]) == (
        {"before": 1, "after": 2},
        "No answer to the PATCH.",
        "unknown",
    )
    assert (body["fingerprint"], body["correlation_id"]) == ("f" * 64, str(op.correlation_id))
    assert body["preview"].startswith("Budget Restaurants")
    assert missing.status_code == 404


def test_it_serves_the_log_over_http_to_a_staff_session(live_service, superuser, plan_id, record_sync):
    op = record_sync(plan_id)
    session = _browser(superuser).cookies[settings.SESSION_COOKIE_NAME].value

    answer = httpx2.get(
        f"{live_service.url}{LIST}",
        params={"plan": plan_id},
        cookies={settings.SESSION_COOKIE_NAME: session},
        timeout=10,
    )
    anonymous = httpx2.get(f"{live_service.url}{LIST}", timeout=10)

    assert answer.status_code == 200
    assert [row["operation_id"] for row in answer.json()["operations"]] == [op.pk]
    assert anonymous.status_code == 401
