"""move_money through the SDK's real client: every confirmation path, refusals, the preview, the log."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.ledger.session import plan_write
from avenir_mcp.sandbox.models import Category
from tests.helpers.write_cases.move_money import MOVED, both, move_case, subject_of
from tests.writes.assigned_plans import (
    DINING_ASSIGNED,
    EUROS,
    BudgetHome,
    budget_home,
    figures,
    ready_to_assign,
    set_assigned,
)
from tests.writes.checks import ynab
from tests.writes.harness import (
    ANSWER_WAYS,
    ARGUMENTS_ONLY_PATHS,
    MODERN,
    Env,
    WriteCase,
    answered_after,
    before,
    call,
    case_shared_by_module,
    connected,
    content,
    documented_fingerprint,
    error_text,
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
    standing,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return move_case(budget)


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("move_money", ARGUMENTS_ONLY_PATHS)
# No harness fault path: a lost answer to either write is read back, landed or not
# (tests/writes/test_move_money_faults.py), where the harness's lost-answer path expects a row left
# unknown; YNAB's and pacing's refusals of a first write are the flow's (harness.TOOLS_OWN_PATHS);
# the fault matrix refuses its second write.


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: move_case(budget_home())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_the_same_request_is_accepted_when_the_figures_moved_before_the_answer(budget, way):
    """The person agreed to move 30.00: it moves from what Groceries holds now, and the log keeps it."""
    case = move_case(budget)
    await before(case)

    result = await answered_after(way, case, lambda: set_assigned(budget, budget.home.groceries, 90_000))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert await both(budget) == (90_000 - MOVED, DINING_ASSIGNED + MOVED)
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == subject_of(budget)
    assert op.fingerprint == documented_fingerprint(budget.id, op.subject)
    assert op.undo_data["categories"][0] == {
        "category_id": budget.home.groceries,
        "before": 90_000,
        "after": 90_000 - MOVED,
    }


async def test_the_preview_shows_both_categories_assigned_and_available_before_and_after(budget, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))

    assert first["preview"] == (
        f"Move 30.00 from Groceries to Dining Out for {budget.month}?\n"
        "- Groceries: assigned 80.00 → 50.00; available 32.00 → 2.00\n"
        "- Dining Out: assigned 120.00 → 150.00; available 39.00 → 69.00"
    )


async def test_the_applied_result_gives_both_categories_and_ready_to_assign_does_not_move(budget, case):
    ready_before = await ready_to_assign(budget)

    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        answer = content(await call(client, case, confirmation=code))

    h = budget.home
    assert (answer["month"], answer["amount"]) == (budget.month, "30.00")
    assert answer["from_category"] == {
        "category_id": h.groceries,
        "name": "Groceries",
        "from_amount": "80.00",
        "to_amount": "50.00",
        "available_after": "2.00",
    }
    assert answer["to_category"] == {
        "category_id": h.dining,
        "name": "Dining Out",
        "from_amount": "120.00",
        "to_amount": "150.00",
        "available_after": "69.00",
    }
    assert answer["message"] == (
        f"Moved 30.00 from Groceries to Dining Out for {budget.month}. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )
    assert await figures(budget, h.groceries) == (50_000, 2_000)
    assert await figures(budget, h.dining) == (150_000, 69_000)
    assert await ready_to_assign(budget) == ready_before


async def test_the_preview_and_the_result_message_read_amounts_in_the_plans_format(live_service):
    budget = await sync_to_async(budget_home)(currency_format=EUROS)
    case = move_case(budget, amount="40")

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"].splitlines()[0] == f"Move 40,00 from Groceries to Dining Out for {budget.month}?"
    assert answer["message"].startswith(f"Moved 40,00 from Groceries to Dining Out for {budget.month}. ")
    assert answer["amount"] == "40.00"  # the structured result stays machine-readable


async def test_leaving_the_source_overspent_is_allowed_and_the_preview_says_so(budget):
    case = move_case(budget, amount="50.5")

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"].splitlines()[1:] == [
        "- Groceries: assigned 80.00 → 29.50; available 32.00 → -18.50",
        "- Dining Out: assigned 120.00 → 170.50; available 39.00 → 89.50",
        f"This leaves Groceries overspent by 18.50 for {budget.month}.",
    ]
    assert answer["status"] == "applied"
    assert answer["from_category"]["available_after"] == "-18.50"
    assert await figures(budget, budget.home.groceries) == (29_500, -18_500)


async def test_a_destination_still_overspent_after_the_move_is_named_too(budget):
    """Dining Out overspent by 61.00 (100.00 more spent): 10.00 moved in leaves it 51.00 short."""
    spending = {"account_id": budget.home.checking, "date": utc_today().isoformat(), "amount": -100_000}
    body = {"transaction": {**spending, "payee_name": "Bistro", "category_id": budget.home.dining}}
    await ynab("POST", f"/plans/{budget.id}/transactions", json=body)

    async with connected(MODERN) as client:
        first = content(await call(client, move_case(budget, amount="10")))

    assert first["preview"] == (
        f"Move 10.00 from Groceries to Dining Out for {budget.month}?\n"
        "- Groceries: assigned 80.00 → 70.00; available 32.00 → 22.00\n"
        "- Dining Out: assigned 120.00 → 130.00; available -61.00 → -51.00\n"
        f"This leaves Dining Out overspent by 51.00 for {budget.month}."
    )


async def test_money_can_go_to_a_category_with_nothing_assigned(budget):
    case = move_case(budget, to_category_id=budget.home.rent, amount="10")

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"].splitlines()[2] == "- Rent: assigned 0.00 → 10.00; available 0.00 → 10.00"
    assert await figures(budget, budget.home.rent) == (10_000, 10_000)


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"to_category_id": "SAME"}, "are the same category"),
        ({"amount": "0"}, "amount must be above zero"),
        ({"amount": "-30"}, "amount must be above zero"),
        ({"amount": "3.0001"}, "has 4 decimals"),
        ({"month": "2026-9"}, "Month '2026-9' is not understood"),
        ({"month": "1999-01-01"}, "Month 1999-01-01 is outside this plan"),
        ({"from_category_id": "gone-category"}, "No category 'gone-category' in this plan"),
        ({"to_category_id": "gone-category"}, "No category 'gone-category' in this plan"),
        ({"from_category_id": "READY"}, "is Ready to Assign"),
        ({"to_category_id": "UNCATEGORIZED"}, "internal categories"),
    ],
)
async def test_it_refuses_what_cannot_be_moved_before_asking_and_writes_nothing(
    shared_budget, arguments, refusal
):
    h = shared_budget.home
    named = {"SAME": h.groceries, "READY": h.ready_to_assign, "UNCATEGORIZED": h.uncategorized}
    case = move_case(shared_budget, **{key: named.get(value, value) for key, value in arguments.items()})
    start = await before(move_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert refusal in error_text(refused, case)
    await expect_nothing_written(case, start)


async def test_a_category_deleted_in_ynab_is_refused_as_unknown(budget):
    await sync_to_async(_delete_in_ynab)(budget.id, budget.home.dining)
    # The deleted category cannot be read back any more: watch the source alone.
    case = replace(move_case(budget), state=lambda: figures(budget, budget.home.groceries))
    start = await standing(case)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(f"No category '{budget.home.dining}' in this plan")
    await expect_nothing_written(case, start)


def _delete_in_ynab(plan_id: str, category_id: str) -> None:
    """Delete a category as YNAB's app does: a change the next delta read returns."""
    with plan_write(plan_id) as write:
        Category.objects.filter(pk=category_id).update(deleted=True, knowledge=write.knowledge)
        write.months_changed_from(write.plan.first_month)
