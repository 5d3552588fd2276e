"""The operation log in the admin: the owner audits it; nobody, superusers included, edits it."""

from __future__ import annotations

import html
import os
import re
import uuid
from datetime import date

import pytest
from asgiref.sync import async_to_sync
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import path, reverse
from django.utils import formats, timezone

from avenir_mcp import ynab_client
from avenir_mcp.oplog import log
from avenir_mcp.oplog.admin import OperationAdmin
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import create_plan
from avenir_mcp.ynab_client import PlanSnapshot, store
from avenir_mcp.ynab_client.cache import PlanCache
from tests.helpers.operations import LOCAL
from tests.helpers.write_cases.schedules import days_ahead
from tests.writes.assigned_plans import DINING_SPENT, EUROS, GROCERIES_SPENT, BudgetHome, budget_home
from tests.writes.checks import ynab

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


def test_an_operation_folds_its_stored_subject_and_undo_data_under_technical_details(
    superuser, plan_id, record_sync, token
):
    undo_data = {"category_id": "cat-1", "before": 120000, "after": 150000}
    op = record_sync(plan_id, undo_data=undo_data)

    page = _page(_browser(superuser).get(_detail_url(op)))

    technical = _technical_details(page)
    assert '{\n  "budgeted": 150000,\n  "category_id": "cat-1",\n  "month": "2026-09-01"\n}' in technical
    assert '{\n  "after": 150000,\n  "before": 120000,\n  "category_id": "cat-1"\n}' in technical
    for shown in (op.fingerprint, str(op.correlation_id), op.writer):
        assert shown in technical
        assert shown not in page.replace(technical, "")
    for shown in (op.pk, plan_id, "set_category_budget", "stdio"):
        assert shown in page
    assert "Budget Restaurants for 2026-09-01: 120.00 → 150.00?" in page
    assert 'name="_save"' not in page
    assert "Undo?" not in page
    assert "Undoable" not in page


def _technical_details(page: str) -> str:
    start = page.index('<details class="technical-details">')
    return page[start : page.index("</details>", start)]


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

    when = formats.localize(timezone.template_localtime(op.created_at))  # the admin's one format
    assert f'<td class="field-when nowrap">{when}</td>' in _row_of(listing, op.pk)


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

    assert headers == ["id", "when", "plan", "short_summary", "status", "undo"]
    assert 'href="/static/oplog/operations.css"' in listing
    assert b"field-short_summary { min-width" in b"".join(stylesheet.streaming_content)


# --- an operation in the person's terms -------------------------------------------------------

ASKED = "Asked as the person saw it?"


@pytest.fixture
def euro_budget(live_service) -> tuple[BudgetHome, PlanSnapshot]:
    """A budget in euros (symbol after, `.` grouping, `,` decimals), held by this process."""
    budget = budget_home(name=f"Foyer {uuid.uuid4().hex[:6]}", currency_format=EUROS)
    rent = {
        "account_id": budget.home.checking, "date": days_ahead(10), "frequency": "monthly",
        "amount": -950_000, "payee_name": "Landlord", "category_id": budget.home.rent,
    }  # fmt: skip
    async_to_sync(ynab)(
        "POST", f"/plans/{budget.id}/scheduled_transactions", json={"scheduled_transaction": rent}
    )
    return budget, async_to_sync(ynab_client.plan_snapshot)(budget.id)


def _logged(plan_id: str, tool: str, subject: dict, undo_data: object, **fields) -> Operation:
    """An operation of `tool` as the log keeps it: its stored subject and undo data."""

    async def write() -> Operation:
        op = await log.begin(
            plan_id=plan_id,
            tool=tool,
            subject=subject,
            fingerprint="f" * 64,
            preview=fields.pop("preview", ASKED),
            confirmed_by="code",
            principal=LOCAL,
            undoable=fields.pop("undoable", True),
            undo_of=fields.pop("undo_of", None),
        )
        status = fields.pop("status", "applied")
        if status != "pending":
            await log.complete(op, status=status, undo_data=undo_data)
        return op

    return async_to_sync(write)()


def _change_table(page: str) -> list[list[str]]:
    """The before → after table's rows, cell by cell."""
    start = page.index('<table id="change-table">')
    table = page[start : page.index("</table>", start)]
    body = table[table.index("<tbody>") :]
    return [
        [re.sub(r"\s+", " ", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def _outside_technical_details(page: str) -> str:
    return page.replace(_technical_details(page), "")


def _kinds(budget: BudgetHome, plan: PlanSnapshot) -> dict[str, tuple[dict, object, list[list[str]]]]:
    """Per write tool: a subject and undo data as it stores them, and the table they read as."""
    h = budget.home
    market = next(t for t in plan.transactions.values() if t.amount == GROCERIES_SPENT)
    cafe = next(t for t in plan.transactions.values() if t.amount == DINING_SPENT)
    market_line = f"{market.date.isoformat()}, CB MARKET FRESH 0509, -48,00€"
    cafe_line = f"{cafe.date.isoformat()}, CORNER CAFE, -81,00€"
    (rent,) = plan.scheduled_transactions.values()
    rent_line = f"monthly from {rent.date_next.isoformat()}, Landlord, -950,00€"
    schedule = {
        "account_id": h.checking, "date": rent.date_next.isoformat(), "frequency": "monthly",
        "amount": -950_000, "payee_id": rent.payee_id, "payee_name": None, "transfer_account_id": None,
        "category_id": h.rent, "memo": None, "flag": None,
    }  # fmt: skip
    assigned = {
        "month": budget.month,
        "categories": [{"category_id": h.dining, "before": 120_000, "after": 1_250_000}],
    }
    return {
        "set_category_budget": (
            {"category_id": h.dining, "month": budget.month, "amount": 1_250_000},
            assigned,
            [["Dining Out", "assigned", "120,00€", "1.250,00€"]],
        ),
        "move_money": (
            {
                "month": budget.month,
                "from_category_id": h.groceries,
                "to_category_id": h.dining,
                "amount": 5_500,
            },
            {
                "month": budget.month,
                "categories": [
                    {"category_id": h.groceries, "before": 80_000, "after": 74_500},
                    {"category_id": h.dining, "before": 120_000, "after": 125_500},
                ],
            },
            [["Groceries", "assigned", "80,00€", "74,50€"], ["Dining Out", "assigned", "120,00€", "125,50€"]],
        ),
        "apply_categories": (
            {"changes": [{"transaction_id": market.id, "category_id": h.dining}]},
            {"transactions": [{"id": market.id, "before": h.groceries, "after": h.dining}]},
            [[market_line, "category", "Groceries", "Dining Out"]],
        ),
        "update_transactions": (
            {"updates": [{"transaction_id": cafe.id, "fields": [{"field": "amount", "to": -91_000}]}]},
            {
                "transactions": [
                    {
                        "id": cafe.id,
                        "fields": [
                            {"field": "amount", "before": -81_000, "after": -91_000},
                            {
                                "field": "payee_name",
                                "before": {"id": None, "name": "CORNER CAFE"},
                                "after": {"id": None, "name": "Le Coin"},
                            },
                            {"field": "account_id", "before": h.checking, "after": h.savings},
                        ],
                    }
                ]
            },
            [
                [cafe_line, "amount", "-81,00€", "-91,00€"],
                [cafe_line, "payee", "CORNER CAFE", "Le Coin"],
                [cafe_line, "account", "Checking", "Savings"],
            ],
        ),
        "flag_transactions": (
            {"flags": [{"transaction_id": market.id, "color": "red"}]},
            {"flags": [{"id": market.id, "before": None, "after": "red"}]},
            [[market_line, "flag", "none", "red"]],
        ),
        "update_category": (
            {"category_id": h.rent, "name": "Housing", "category_group_id": h.everyday_group},
            {
                "category_id": h.rent,
                "before": {"name": "Rent", "group_id": h.everyday_group, "group": "Everyday"},
                "after": {"name": "Housing", "group_id": h.everyday_group, "group": "Everyday"},
                "note": None,
            },
            [["Rent", "name", "Rent", "Housing"]],
        ),
        "set_category_target": (
            {"category_id": h.groceries, "fields": {"goal_target": 300_000}},
            {
                "category_id": h.groceries,
                "before": {
                    "kind": "none",
                    "amount": None,
                    "by_date": None,
                    "whole": None,
                    "ynab_name": None,
                    "snoozed": False,
                },
                "after": {
                    "kind": "monthly",
                    "amount": 300_000,
                    "by_date": None,
                    "whole": None,
                    "ynab_name": None,
                    "snoozed": False,
                },
                "restore": {"goal_target": 0},
            },
            [["Groceries", "kind", "none", "monthly"], ["Groceries", "amount", "none", "300,00€"]],
        ),
        "create_account": (
            {"name": "Livret A", "type": "savings", "balance": 2_500_000},
            {"account_id": None},
            [["", "name", "—", "Livret A"], ["", "type", "—", "savings"], ["", "balance", "—", "2.500,00€"]],
        ),
        "reconcile_account": (
            {"account_id": h.checking, "bank_balance": 871_000, "difference": -1_500},
            {
                "account_id": h.checking,
                "reconciled_ids": [],
                "adjustment_id": None,
                "adjustment_digest": None,
                "knowledge_before": 4321,
            },
            [["Checking", "bank balance", "—", "871,00€"], ["Checking", "difference", "—", "-1,50€"]],
        ),
        "create_transactions": (
            {
                "account_id": h.checking,
                "approved": True,
                "transactions": [
                    {
                        "date": "2026-11-02",
                        "amount": -12_340,
                        "payee_name": "Boulangerie",
                        "memo": None,
                        "category_id": h.groceries,
                    }
                ],
            },
            {"account_id": None, "transactions": [], "asked": [], "knowledge": 77, "found_by_content": False},
            [
                ["Checking", "approved", "—", "yes"],
                ["Groceries", "date", "—", "2026-11-02"],
                ["Groceries", "payee", "—", "Boulangerie"],
                ["Groceries", "amount", "—", "-12,34€"],
                ["Groceries", "memo", "—", "none"],
            ],
        ),
        "create_scheduled_transaction": (
            {"schedule": schedule},
            {"scheduled_transaction_id": None, "alike": []},
            [
                ["schedule", "account", "—", "Checking"],
                ["schedule", "date", "—", rent.date_next.isoformat()],
                ["schedule", "frequency", "—", "monthly"],
                ["schedule", "payee", "—", "Landlord"],
                ["schedule", "payee", "—", "none"],
                ["schedule", "category", "—", "Rent"],
                ["schedule", "transfer account", "—", "none"],
                ["schedule", "amount", "—", "-950,00€"],
                ["schedule", "memo", "—", "none"],
                ["schedule", "flag", "—", "none"],
            ],
        ),
        "update_scheduled_transaction": (
            {"scheduled_transaction_id": rent.id, "after": {**schedule, "amount": -990_000}},
            {
                "scheduled_transaction_id": rent.id,
                "before": schedule,
                "after": {**schedule, "amount": -990_000, "category_id": h.dining},
                "fields": ["amount", "category_id"],
            },
            [[rent_line, "category", "Rent", "Dining Out"], [rent_line, "amount", "-950,00€", "-990,00€"]],
        ),
        "undo_operation": (
            {"operation_id": "k3P9xQ2mTa7Z"},
            {
                "undo_of": "k3P9xQ2mTa7Z",
                "month": budget.month,
                "restored": [
                    {"category_id": h.dining, "assigned": 120_000},
                    {"category_id": h.groceries, "target": {"kind": "monthly", "amount": 50_000}},
                ],
            },
            [
                ["Dining Out", "assigned", "—", "120,00€"],
                ["target", "kind", "—", "monthly"],
                ["target", "amount", "—", "50,00€"],
            ],
        ),
        "delete_transactions": (
            {"transaction_ids": [market.id, cafe.id]},
            {"transactions": [], "deleted_ids": None, "untouched_ids": None},
            [["", "transactions", "—", f"{market_line}; {cafe_line}"]],
        ),
    }


KINDS = [
    "set_category_budget", "move_money", "apply_categories", "update_transactions", "flag_transactions",
    "update_category", "set_category_target", "create_account", "reconcile_account", "delete_transactions",
    "create_transactions", "create_scheduled_transaction", "update_scheduled_transaction", "undo_operation",
]  # fmt: skip


@pytest.mark.parametrize("tool", KINDS)
def test_an_operations_change_reads_before_to_after_in_names_and_the_plans_currency(
    superuser, euro_budget, tool
):
    budget, plan = euro_budget
    subject, undo_data, table = _kinds(budget, plan)[tool]
    op = _logged(budget.id, tool, subject, undo_data)

    page = _page(_browser(superuser).get(_detail_url(op)))

    assert _change_table(page) == table
    person = _outside_technical_details(page)
    for stored in (*_integers(subject), *_integers(undo_data)):
        assert not re.search(rf"(?<![\d.,]){stored}(?![\d.,])", person), stored  # no milliunit figure
    assert ASKED in person


def _integers(value: object) -> list[int]:
    if isinstance(value, dict):
        return [number for inner in value.values() for number in _integers(inner)]
    if isinstance(value, list):
        return [number for inner in value for number in _integers(inner)]
    return (
        [abs(value)] if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1000 else []
    )


def test_the_list_shows_the_change_with_the_plans_currency_and_reads_no_ynab(superuser, euro_budget):
    budget, plan = euro_budget
    subject, undo_data, _table = _kinds(budget, plan)["set_category_budget"]
    op = _logged(budget.id, "set_category_budget", subject, undo_data)
    browser = _browser(superuser)
    sent = ynab_client.ynab_status().requests_last_hour

    listing = _page(browser.get(CHANGELIST, {"plan_id": budget.id}))
    browser.get(_detail_url(op))

    assert "Dining Out, assigned: 120,00€ → 1.250,00€" in _row_of(listing, op.pk)
    assert ynab_client.ynab_status().requests_last_hour == sent


def test_an_undo_reads_the_change_it_undid_turned_back(superuser, euro_budget):
    budget, plan = euro_budget
    subject, undo_data, _table = _kinds(budget, plan)["set_category_budget"]
    undone = _logged(budget.id, "set_category_budget", subject, undo_data)
    restored = [
        {"category_id": row["category_id"], "assigned": row["before"]} for row in undo_data["categories"]
    ]
    undo = _logged(
        budget.id,
        "undo_operation",
        {"operation_id": undone.pk},
        {"undo_of": undone.pk, "month": undo_data["month"], "restored": restored},
        undo_of=undone,
        undoable=False,
    )
    browser = _browser(superuser)

    page = _page(browser.get(_detail_url(undo)))
    listing = _page(browser.get(CHANGELIST, {"plan_id": budget.id}))

    assert _change_table(page) == [["Dining Out", "assigned", "1.250,00€", "120,00€"]]
    assert "Dining Out, assigned: 1.250,00€ → 120,00€" in _row_of(listing, undo.pk)


def test_after_a_restart_a_page_names_things_from_the_stored_plan_with_no_request(
    superuser, euro_budget, monkeypatch
):
    budget, plan = euro_budget
    subject, undo_data, table = _kinds(budget, plan)["set_category_budget"]
    op = _logged(budget.id, "set_category_budget", subject, undo_data)
    client = ynab_client.get_ynab_client()
    os.utime(store.save(client.base_url, client.token_tag, plan), ns=(1, 1))  # used longest ago
    other = create_plan(name=f"Other {uuid.uuid4().hex[:6]}", first_month=date(2026, 1, 1))
    store.save(client.base_url, client.token_tag, async_to_sync(ynab_client.plan_snapshot)(other.id))
    restarted = PlanCache()  # a new process: nothing in memory, the store listed at start
    restarted.warm_up(client)  # which loads the plan used last (the other) in the background
    assert restarted.held(client, budget.id) is None
    monkeypatch.setattr(ynab_client, "plan_cache", restarted)
    sent = ynab_client.ynab_status().requests_last_hour

    page = _page(_browser(superuser).get(_detail_url(op)))

    assert _change_table(page) == table == [["Dining Out", "assigned", "120,00€", "1.250,00€"]]
    assert ynab_client.ynab_status().requests_last_hour == sent


def test_a_plan_this_process_does_not_hold_shows_ids_beginnings_and_amounts_without_symbol(
    superuser, plan_id
):
    category = str(uuid.uuid4())
    undo_data = {
        "month": "2026-09-01",
        "categories": [{"category_id": category, "before": 0, "after": 1_250_000}],
    }
    op = _logged(plan_id, "set_category_budget", {"category_id": category}, undo_data)

    page = _page(_browser(superuser).get(_detail_url(op)))

    assert _change_table(page) == [[f"{category[:8]}…", "assigned", "0.00", "1,250.00"]]


def test_a_change_the_log_keeps_nothing_of_says_so(superuser, plan_id):
    op = _logged(plan_id, "import_transactions", {}, {"transaction_ids": [], "knowledge_before": 12})

    page = _page(_browser(superuser).get(_detail_url(op)))

    assert "The log keeps nothing of this change beyond its preview." in page


# --- one undo state, in words --------------------------------------------------------------------


def _undo_state(page: str) -> str:
    start = page.index('<p id="undo-state">')
    text = re.sub(r"<[^>]+>", "", page[start : page.index("</p>", start)])
    return re.sub(r"\s+", " ", text).strip()


def test_each_undo_state_reads_in_words_on_the_page_and_in_the_list(superuser, plan_id):
    browser = _browser(superuser)
    open_one = _logged(plan_id, "set_category_budget", {}, None)
    undone = _logged(plan_id, "set_category_budget", {}, None)
    undo = _logged(
        plan_id, "undo_operation", {"operation_id": undone.pk}, None, undo_of=undone, undoable=False
    )
    async_to_sync(log.mark_undone)(undone.pk, undo)
    undo.refresh_from_db()
    created = _logged(plan_id, "create_category", {"name": "Pets"}, None, undoable=False)
    failed = _logged(plan_id, "set_category_budget", {}, None, status="failed")
    pending = _logged(plan_id, "set_category_budget", {}, None, status="pending")
    when = formats.localize(timezone.template_localtime(undo.created_at))

    states = {
        op.pk: _undo_state(_page(browser.get(_detail_url(op))))
        for op in (open_one, undone, undo, created, failed, pending)
    }
    listing = _page(browser.get(CHANGELIST, {"plan_id": plan_id}))

    assert states == {
        open_one.pk: "can be undone Undo…",
        undone.pk: f"undone by operation {undo.pk} on {when}",
        undo.pk: f"undo of operation {undone.pk}",
        created.pk: f"cannot be undone: {log.not_undoable_reason('create_category')}",
        failed.pk: "cannot be undone: it failed: nothing of it is in YNAB",
        pending.pk: "cannot be undone: its outcome is still open (settling reads YNAB to close it)",
    }
    page = _page(browser.get(_detail_url(undone)))
    assert f'<a href="{_detail_url(undo)}">operation {undo.pk}</a>' in page
    words = {
        op.pk: re.search(r'<td class="field-undo">(.*?)</td>', _row_of(listing, op.pk)).group(1)
        for op in (open_one, undone, undo, created)
    }
    assert words == {
        open_one.pk: "can be undone",
        undone.pk: "undone",
        undo.pk: f"undo of {undone.pk}",
        created.pk: "cannot be undone",
    }
    assert "icon-no" not in listing
    assert "icon-yes" not in listing


def test_the_undo_button_stands_beside_the_state_for_those_allowed_to_undo(auditor, superuser, plan_id):
    op = _logged(plan_id, "set_category_budget", {}, None)

    allowed = _page(_browser(superuser).get(_detail_url(op)))
    viewer = _page(_browser(auditor).get(_detail_url(op)))

    undo_link = (
        f'<a href="{reverse("admin:oplog_operation_undo", args=[op.pk])}" class="button undolink">Undo…</a>'
    )
    assert undo_link in allowed[allowed.index('<p id="undo-state">') :]
    assert undo_link not in viewer
    assert _undo_state(viewer) == "can be undone"


def test_an_operation_that_does_not_exist_leads_back_to_the_admin(superuser):
    response = _browser(superuser).get(reverse("admin:oplog_operation_change", args=["nOsUcHoPeRa"]))

    assert response.status_code == 302
    assert response["Location"] == reverse("admin:index")
