"""Money movements as list_money_movements shows them: order and the names of their sides."""

from __future__ import annotations

from datetime import UTC, date, datetime

from avenir_mcp.tools.logic.money_movements import DELETED_CATEGORY, newest_first, side_name
from avenir_mcp.ynab_client.movements import MoneyMovement
from tests.logic.plan_rows import category, group, snapshot


def _moved(id: str, moved_at: datetime | None, month: date | None = date(2026, 9, 1)) -> MoneyMovement:
    return MoneyMovement(id, month, moved_at, None, None, "c-food", 1_000)


def test_newest_first_puts_the_latest_time_first_then_the_later_month_then_id_and_no_time_last():
    at = datetime(2026, 9, 3, 8, tzinfo=UTC)
    movements = [
        _moved("a", None),
        _moved("b", at),
        _moved("c", datetime(2026, 9, 4, tzinfo=UTC)),
        _moved("d", at, date(2026, 10, 1)),
        _moved("e", at),
        _moved("f", None, None),
    ]

    assert [m.id for m in newest_first(movements)] == ["c", "d", "e", "b", "a", "f"]


def test_a_side_is_the_category_name_or_none_for_ready_to_assign_and_says_when_it_was_deleted():
    plan = snapshot(
        category_groups=[group("g-int", "Internal Master Category", internal=True), group("g", "Everyday")],
        categories=[
            category("c-rta", "g-int", "Inflow: Ready to Assign", internal=True),
            category("c-unc", "g-int", "Uncategorized", internal=True),
            category("c-food", "g", "Groceries"),
        ],
    )

    assert side_name(plan, None) is None
    assert side_name(plan, "c-rta") is None
    assert side_name(plan, "c-food") == "Groceries"
    assert side_name(plan, "c-gone") == DELETED_CATEGORY
