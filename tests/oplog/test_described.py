"""An operation in the person's terms without knowing its tool: the generic before → after table."""

from __future__ import annotations

from avenir_mcp.oplog.described import ChangeRow, change_rows, field_words
from avenir_mcp.oplog.models import Operation
from avenir_mcp.ynab_client import PlanSnapshot


def _op(subject: dict, undo_data: object) -> Operation:
    return Operation(
        id="k3P9xQ2mTa7Z", plan_id="plan-1", tool="a_future_tool", subject=subject, undo_data=undo_data
    )


def test_a_kind_it_does_not_know_reads_field_by_field_amounts_known_by_name():
    undo_data = {
        "thing_id": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "before": None,
        "after": {"kind": "monthly", "amount": 50_000, "by_date": None},
        "knowledge": 12345,
    }

    rows = change_rows(_op({}, undo_data), PlanSnapshot(plan_id="plan-1"))

    assert rows == [ChangeRow("", "", "none", "kind monthly; amount 50.00; by date none")]


def test_a_record_reads_the_same_whatever_order_the_database_gives_its_keys_back_in():
    """SQLite keeps a JSON object's keys as written; PostgreSQL's jsonb sorts them by length."""
    written = {"account_id": "acc-1", "date": "2026-11-02", "payee_name": "Boulangerie", "amount": -12_340}
    schedule = {"frequency": "monthly", "memo": None, **written, "category_id": "cat-1", "flag": None}
    by_length = dict(sorted(schedule.items(), key=lambda item: (len(item[0]), item[0])))

    tables = [change_rows(_op({"schedule": record}, None), None) for record in (schedule, by_length)]

    assert tables[0] == tables[1]
    assert [row.field for row in tables[0]] == [
        "account", "date", "frequency", "payee", "category", "amount", "memo", "flag",
    ]  # fmt: skip


def test_ids_the_plan_does_not_hold_show_their_beginning():
    subject = {
        "category_id": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "transaction_ids": ["short", "t" * 36] * 3,
    }

    rows = change_rows(_op(subject, None), PlanSnapshot(plan_id="plan-1"))

    assert rows == [
        ChangeRow("0f1e2d3c…", "transactions", "—", "short; tttttttt…; short; tttttttt…; short and 1 more")
    ]


def test_stored_field_names_read_as_words():
    names = ("from_category_id", "payee_name", "transaction_ids", "id", "bank_balance")
    assert [field_words(name) for name in names] == [
        "from category", "payee", "transactions", "id", "bank balance",
    ]  # fmt: skip


def test_an_undo_that_kept_only_the_ids_it_put_back_lists_them():
    undo_data = {"undo_of": "a1B2c3D4e5F6", "restored": ["0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"]}

    rows = change_rows(_op({"operation_id": "a1B2c3D4e5F6"}, undo_data), None)

    assert rows == [ChangeRow("0f1e2d3c…", "", "—", "put back")]


def test_a_deleted_transaction_reads_from_the_record_the_operation_kept_of_it():
    gone = {"id": "9a8b7c6d-0000-4000-8000-000000000001", "date": "2026-11-03", "amount": -86_400}
    undo_data = {
        "transactions": [
            {**gone, "payee_id": None, "payee_name": "Market", "lines": []},
            {**gone, "id": "9a8b7c6d-0000-4000-8000-000000000002", "payee_id": None, "payee_name": None},
        ],
        "deleted_ids": None,
    }
    subject = {"transaction_ids": [record["id"] for record in undo_data["transactions"]]}

    rows = change_rows(_op(subject, undo_data), None)

    assert rows == [
        ChangeRow("", "transactions", "—", "2026-11-03, Market, -86.40; 2026-11-03, no payee, -86.40")
    ]


def test_every_integer_the_log_keeps_reads_as_money_whatever_its_field():
    undo_data = {"category_id": "cat-1", "before": 120_000, "after": 150_000, "restoring": 1}

    rows = change_rows(_op({"budgeted": 150_000}, undo_data), None)

    assert rows == [ChangeRow("cat-1", "", "120.00", "150.00")]
