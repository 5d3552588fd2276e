"""Money movements against the live sandbox: one request a read, none within the freshness
window unless the plan was written to since, and answers read into typed values."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from avenir_mcp.ynab_client.cache import PlanCache
from avenir_mcp.ynab_client.errors import MalformedAnswer
from avenir_mcp.ynab_client.movements import MoneyMovement, MovementCache, parse_money_movements
from avenir_mcp.ynab_client.pacing import RequestKind, request_kind

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]


async def test_a_read_is_one_request_and_gives_what_the_sandbox_holds(client, demo_plan_id, sandbox_log):
    await sandbox_log.mark()

    found = await MovementCache().movements(client, demo_plan_id)
    month = max(m.month for m in found.movements if m.month is not None)
    one_month = await MovementCache().movements(client, demo_plan_id, month)

    asked = await sandbox_log.requests(demo_plan_id)
    assert [entry.path.split(demo_plan_id)[1] for entry in asked] == [
        "/money_movements",
        f"/months/{month.isoformat()}/money_movements",
    ]
    assert found.plan_id == demo_plan_id
    assert found.month is None
    assert len(found.movements) > len(one_month.movements) > 0
    assert {m.month for m in one_month.movements} == {one_month.month} == {month}
    assert all(isinstance(m.amount, int) and m.amount > 0 for m in found.movements)
    snapshot = await PlanCache().snapshot(client, demo_plan_id)
    assert found.server_knowledge == snapshot.server_knowledge


async def test_within_the_window_a_read_asks_nothing_until_the_window_passes_or_a_write_ends_it(
    client, demo_plan_id, sandbox_log, settings, freshness_clock, either_store
):
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 10
    movements = MovementCache()
    first = await movements.movements(client, demo_plan_id)
    await sandbox_log.mark()

    freshness_clock.now += 9.5
    inside = await movements.movements(client, demo_plan_id)
    asked_inside = await sandbox_log.requests(demo_plan_id)
    freshness_clock.now += 0.5
    after = await movements.movements(client, demo_plan_id)
    with request_kind(RequestKind.WRITE):  # a write's read always asks
        await movements.movements(client, demo_plan_id)
    snapshot = await PlanCache().snapshot(client, demo_plan_id)
    category = next(c for c in snapshot.categories.values() if c.name == "Gym")
    await client.patch_month_category(demo_plan_id, "current", category.id, 1_230)
    written = await movements.movements(client, demo_plan_id)

    assert inside is first
    assert asked_inside == []
    assert after is not first
    assert after.as_of == freshness_clock.wall_time()
    assert len(await sandbox_log.requests("/money_movements")) == 3
    assert written.server_knowledge > after.server_knowledge
    assert len(written.movements) == len(after.movements) + 1


@pytest.mark.parametrize(
    "data",
    [
        {"money_movements": [{"id": "m1", "amount": "10"}], "server_knowledge": 3},
        {"money_movements": [{"amount": 10}], "server_knowledge": 3},
        {"money_movements": [{"id": 4, "amount": 10}], "server_knowledge": 3},
        {"money_movements": []},
        {"money_movements": [{"id": "m1", "amount": 10, "month": "September"}], "server_knowledge": 3},
    ],
)
def test_an_answer_in_another_shape_is_a_malformed_answer(data):
    with pytest.raises(MalformedAnswer, match="money movements"):
        parse_money_movements(data)


def test_an_answer_is_read_with_its_nullable_fields():
    rows, knowledge = parse_money_movements(
        {
            "money_movements": [
                {
                    "id": "m1",
                    "month": "2026-09-01",
                    "moved_at": "2026-09-02T15:04:05Z",
                    "note": "Rebalance",
                    "from_category_id": "c1",
                    "to_category_id": None,
                    "amount": 50_000,
                },
                {"id": "m2", "amount": 1},
            ],
            "server_knowledge": 42,
        }
    )

    assert knowledge == 42
    assert rows == (
        MoneyMovement(
            "m1",
            date(2026, 9, 1),
            datetime(2026, 9, 2, 15, 4, 5, tzinfo=UTC),
            "Rebalance",
            "c1",
            None,
            50_000,
        ),
        MoneyMovement("m2", None, None, None, None, None, 1),
    )
