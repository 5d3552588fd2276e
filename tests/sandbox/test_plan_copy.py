"""A copy of a plan (`sandbox.ledger.copying`) answers as the original does, under its own ids."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from django.apps import apps
from django.db.models import ForeignKey

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.ledger.copying import PLAN_ROWS, copy_plan, plan_rows
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.sandbox.seeding import seed_demo_plan
from tests.helpers.sandbox_side import get
from tests.helpers.shared_plans import plan_state

# What a copy does not keep: the plan's name (given) and when the plan row was written.
_PLAN_ROW_TIMES = ("last_modified_on",)


@pytest.fixture(scope="module")
def demo(live_service) -> Plan:
    return seed_demo_plan()


def test_every_plan_row_is_copied():
    """A sandbox model added later with rows of a plan must be in the copy too."""
    belongs_to_a_plan = {
        model
        for model in apps.get_app_config("sandbox").get_models()
        if any(isinstance(field, ForeignKey) and field.related_model is Plan for field in model._meta.fields)
    }

    assert set(PLAN_ROWS) == belongs_to_a_plan


def test_the_copy_of_the_demo_exports_as_the_demo_does_under_new_ids(api: httpx2.Client, demo: Plan):
    copy = copy_plan(demo, name="The copy")
    original = get(api, f"/plans/{demo.id}", "plan")
    copied = get(api, f"/plans/{copy.plan.id}", "plan")

    assert copy.plan.id != demo.id
    assert copied["name"] == "The copy"
    assert _in_id_order(_without_times({**original, "name": "The copy"}, copy.ids)) == _in_id_order(
        _without_times(copied, {})
    )
    assert not set(copy.ids) & set(_strings(copied))  # no id of the original is left in the copy
    assert len(copied["transactions"]) == len(original["transactions"]) > 100


def test_reads_of_a_month_and_a_delta_agree(api: httpx2.Client, demo: Plan):
    copy = copy_plan(demo)
    month = demo.last_month.isoformat()
    knowledge = demo.server_knowledge

    for path, key, params in (
        (f"/plans/{{}}/months/{month}", "month", {}),
        ("/plans/{}/transactions", "transactions", {"last_knowledge_of_server": knowledge - 1}),
        ("/plans/{}/categories", "category_groups", {}),
    ):
        original = get(api, path.format(demo.id), key, **params)
        copied = get(api, path.format(copy.plan.id), key, **params)
        assert _in_id_order(_renumbered(original, copy.ids)) == _in_id_order(copied), path


def test_rows_read_once_make_copies_that_share_no_id_and_export_alike(api: httpx2.Client, demo: Plan):
    """What the tests do: the original's rows read once, then copied again and again."""
    rows = plan_rows(demo)
    first, second = copy_plan(rows, name="First"), copy_plan(rows, name="Second")
    original = get(api, f"/plans/{demo.id}", "plan")

    assert not set(first.ids.values()) & set(second.ids.values())
    for copy in (first, second):
        copied = get(api, f"/plans/{copy.plan.id}", "plan")
        expected = _without_times({**original, "name": copy.plan.name}, copy.ids)
        assert _in_id_order(expected) == _in_id_order(_without_times(copied, {}))


def test_a_write_to_the_copy_leaves_the_original_as_it_was(api: httpx2.Client, demo: Plan):
    copy = copy_plan(demo)
    before = plan_state(demo.id)
    account = get(api, f"/plans/{copy.plan.id}/accounts", "accounts")[0]

    answer = api.post(
        f"/plans/{copy.plan.id}/transactions",
        json={"transaction": {"account_id": account["id"], "date": str(utc_today()), "amount": -1_000}},
    )

    assert answer.status_code == 201, answer.text
    assert plan_state(demo.id) == before
    delta = get(
        api,
        f"/plans/{copy.plan.id}/transactions",
        "transactions",
        last_knowledge_of_server=copy.plan.server_knowledge,
    )
    assert [row["amount"] for row in delta] == [-1_000]


def _without_times(plan: dict[str, Any], ids: dict[str, str]) -> Any:
    return _renumbered({key: value for key, value in plan.items() if key not in _PLAN_ROW_TIMES}, ids)


def _renumbered(value: Any, ids: dict[str, str]) -> Any:
    """`value` with every id of the original replaced by the copy's."""
    if isinstance(value, dict):
        return {key: _renumbered(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_renumbered(item, ids) for item in value]
    return ids.get(value, value) if isinstance(value, str) else value


def _in_id_order(value: Any) -> Any:
    """Every list of rows in id order: rows of one date are listed by id, and a copy's ids are
    not in the original's order."""
    if isinstance(value, dict):
        return {key: _in_id_order(item) for key, item in value.items()}
    if isinstance(value, list):
        rows = [_in_id_order(item) for item in value]
        return (
            sorted(rows, key=lambda row: row["id"])
            if all(isinstance(row, dict) and "id" in row for row in rows)
            else rows
        )
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [each for item in value.values() for each in _strings(item)]
    if isinstance(value, list):
        return [each for item in value for each in _strings(item)]
    return [value] if isinstance(value, str) else []
