"""set_category_budget through the SDK's real client: every confirmation path, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.confirmations import messages
from avenir_mcp.oplog.models import Operation
from tests.helpers.write_cases.set_category_budget import NEW_AMOUNT, budget_case
from tests.writes.assigned_plans import (
    EUROS,
    BudgetHome,
    assigned,
    budget_home,
    set_assigned,
)
from tests.writes.harness import (
    ANSWER_WAYS,
    ARGUMENTS_ONLY_PATHS,
    FAULT_PATHS,
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
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return budget_case(budget)


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("set_category_budget", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("set_category_budget", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: budget_case(budget_home())) as case:
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
async def test_the_same_request_is_accepted_when_the_assigned_amount_moved_before_the_answer(budget, way):
    """The person agreed to a total of 150.00: it is set, and the log keeps what it really replaced."""
    case = budget_case(budget)
    await before(case)

    result = await answered_after(way, case, lambda: set_assigned(budget, budget.home.dining, 130_000))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert await assigned(budget, budget.home.dining) == NEW_AMOUNT
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == {"category_id": budget.home.dining, "month": budget.month, "amount": NEW_AMOUNT}
    assert op.fingerprint == documented_fingerprint(budget.id, op.subject)
    assert op.undo_data["categories"] == [
        {"category_id": budget.home.dining, "before": 130_000, "after": NEW_AMOUNT}
    ]


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_names_the_category_month_both_amounts_and_what_stays_available(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))

    assert first["preview"] == (
        f"Budget Dining Out for {case.arguments['month']}-01: 120.00 → 150.00?\n"
        "- Dining Out: assigned 120.00 → 150.00; available 39.00 → 69.00"
    )
    assert (first["category"], first["month"], first["from_amount"], first["to_amount"]) == (
        "Dining Out",
        f"{case.arguments['month']}-01",
        "120.00",
        "150.00",
    )


async def test_lowering_it_below_what_was_spent_names_the_category_left_overspent(budget):
    """Dining Out has 120.00 assigned and 81.00 spent: 50.00 leaves it 31.00 short."""
    case = budget_case(budget, amount="50")

    async with connected(MODERN) as client:
        first = content(await call(client, case))

    assert first["preview"] == (
        f"Budget Dining Out for {budget.month}: 120.00 → 50.00?\n"
        "- Dining Out: assigned 120.00 → 50.00; available 39.00 → -31.00\n"
        f"This leaves Dining Out overspent by 31.00 for {budget.month}."
    )


async def test_the_applied_result_says_what_was_budgeted_and_how_to_undo(case):
    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        answer = content(await call(client, case, confirmation=code))

    assert answer["message"] == (
        f"Budgeted Dining Out for {answer['month']}: 120.00 → 150.00. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )
    assert (answer["from_amount"], answer["to_amount"]) == ("120.00", "150.00")


async def test_the_plans_own_digits_and_separator_are_used_and_a_negative_amount_keeps_its_sign(live_service):
    budget = await sync_to_async(budget_home)(currency_format=EUROS)
    case = budget_case(budget, amount="-1234.5")

    async with connected(MODERN) as client:
        first = content(await call(client, case))

    assert first["preview"] == (
        f"Budget Dining Out for {budget.month}: 120,00 → -1234,50?\n"
        "- Dining Out: assigned 120,00 → -1234,50; available 39,00 → -1315,50\n"
        f"This leaves Dining Out overspent by 1315,50 for {budget.month}."
    )
    assert first["to_amount"] == "-1234.50"  # results stay machine-readable


async def test_the_same_amount_is_nothing_to_do_and_nothing_is_asked(budget):
    case = budget_case(budget, amount="120")
    start = await before(budget_case(budget))

    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert (
        answer["message"] == f"Nothing to change: Dining Out already has 120.00 assigned for {budget.month}."
    )
    assert (answer["preview"], answer["confirmation"], answer["operation_id"]) == (None, None, None)
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"month": "2026-13"}, "Month '2026-13' is not a calendar month"),
        ({"month": "September"}, "Month 'September' is not understood"),
        ({"month": "1999-01"}, "Month 1999-01-01 is outside this plan"),
        (
            {"category_id": "no-such-category"},
            "No category 'no-such-category' in this plan; get_category_balances",
        ),
        ({"category_id": "bad id!"}, "'bad id!' is not a valid category id"),
        ({"amount": "12.3456"}, "has 4 decimals"),
        ({"amount": "1e3"}, "exponent"),
    ],
)
async def test_it_refuses_bad_arguments_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    case = budget_case(shared_budget, **arguments)
    start = await before(budget_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert refusal in error_text(refused, case)
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("internal", "refusal"),
    [
        ("ready_to_assign", "Category 'Inflow: Ready to Assign' is Ready to Assign, which follows from"),
        ("uncategorized", "Category 'Uncategorized' is one of YNAB's internal categories"),
    ],
)
async def test_it_refuses_ynabs_internal_categories(shared_budget, internal, refusal):
    case = budget_case(shared_budget, category_id=getattr(shared_budget.home, internal))
    start = await before(budget_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(refusal)
    await expect_nothing_written(case, start)


async def test_a_month_given_as_current_is_resolved_in_the_subject_and_the_log(budget):
    case = budget_case(budget, month="current")

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert answer["month"] == budget.month
    assert op.subject["month"] == budget.month
    assert await assigned(budget, budget.home.dining) == NEW_AMOUNT


async def test_a_code_issued_for_one_amount_does_not_set_another(budget):
    case = budget_case(budget)
    start = await before(case)

    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        refused = await call(client, budget_case(budget, amount="999.00"), confirmation=code)

    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)
