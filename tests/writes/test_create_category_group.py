"""create_category_group through the SDK's real client: its own paths, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from tests.helpers.write_cases.category_groups import group_case, group_names, hide_in_ynab
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.checks import ynab
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
    error_text,
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)

pytestmark = pytest.mark.anyio

PERMANENT = "Permanent: YNAB's API cannot delete category groups; hiding it in YNAB is the only way back."


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return group_case(budget)


# The subject is the argument alone: the name taken before the answer is tested below.
PATHS = paths_for("create_category_group", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("create_category_group", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    with case_shared_by_module(lambda: group_case(budget_home())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_says_it_is_permanent_and_the_result_gives_the_new_id(budget, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == f"Create category group ‘Kids’?\n{PERMANENT}"
    assert (first["category_group_id"], first["name"]) == (None, "Kids")
    (kids,) = [group for group, name in (await group_names(budget.id)).items() if name == "Kids"]
    assert answer["category_group_id"] == kids
    assert answer["message"] == (
        f"Created category group ‘Kids’. Done as operation {answer['operation_id']}; it cannot be undone: "
        "YNAB's API cannot delete a category group; hiding it in YNAB is the only way back."
    )


async def test_undo_refuses_it_with_the_reason(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))
        refused = await client.call_tool(
            "undo_operation", {"plan_id": case.plan_id, "operation_id": answer["operation_id"]}
        )

    assert error_text(refused, case) == (
        f"Operation {answer['operation_id']} (create_category_group) cannot be undone: "
        "YNAB's API cannot delete a category group; hiding it in YNAB is the only way back."
    )


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_a_name_taken_in_ynab_before_the_answer_is_refused_and_nothing_is_created(budget, way):
    case = group_case(budget)
    await before(case)

    async def created_in_ynab() -> None:
        await ynab("POST", f"/plans/{budget.id}/category_groups", json={"category_group": {"name": "KIDS"}})

    result = await answered_after(way, case, created_in_ynab)

    assert error_text(result, case) == (
        "A category group is already named 'KIDS' (names are compared without case); choose another name."
    )
    assert [name for name in (await group_names(budget.id)).values() if name.casefold() == "kids"] == ["KIDS"]
    assert await Operation.objects.filter(plan_id=budget.id).acount() == 0


async def test_a_hidden_groups_name_is_free(budget):
    await sync_to_async(hide_in_ynab)(budget.id, budget.home.everyday_group)
    case = group_case(budget, name="everyday")

    async with connected(MODERN) as client:
        asked = content(await call(client, case))

    assert asked["preview"] == f"Create category group ‘everyday’?\n{PERMANENT}"


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"name": " "}, "name is empty: give at least one visible character."),
        (
            {"name": "Kids\u200b"},
            "name contains U+200B (ZERO WIDTH SPACE), a control or invisible character: give the text on one "
            "line with visible characters only.",
        ),
        ({"name": "k" * 51}, "name is 51 characters long: give at most 50."),
        (
            {"name": "BILLS"},
            "A category group is already named 'Bills' (names are compared without case); "
            "choose another name.",
        ),
        (
            {"name": "credit card payments"},
            "A category group is already named 'Credit Card Payments' (names are compared without case); "
            "choose another name.",
        ),
        (
            {"name": "Internal Master Category"},
            "A category group is already named 'Internal Master Category' (names are compared without case); "
            "choose another name.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    case = group_case(shared_budget, **arguments)
    start = await before(group_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(group_case(shared_budget), start)
