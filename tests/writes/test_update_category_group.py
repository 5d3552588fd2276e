"""update_category_group through the SDK's real client: its own paths, refusals, faults, the log
(its undo: tests/undo/test_update_category_group_undo.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from tests.helpers.write_cases.category_groups import (
    group_names,
    group_rename_case,
    hide_in_ynab,
    rename_group_in_ynab,
)
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.category_plans import group_of
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
    standing,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return group_rename_case(budget)


# The subject is the group and its new name: a rename in YNAB meanwhile is tested below.
PATHS = paths_for("update_category_group", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("update_category_group", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    with case_shared_by_module(lambda: group_rename_case(budget_home())) as case:
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


async def test_the_preview_names_both_names_and_the_result_says_it_can_be_undone(budget, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == "Rename category group ‘Everyday’ to ‘Day to day’?"
    assert (first["category_group_id"], first["from_name"], first["to_name"]) == (
        budget.home.everyday_group,
        "Everyday",
        "Day to day",
    )
    assert answer["message"] == (
        f"Renamed category group ‘Everyday’ to ‘Day to day’. Done as operation {answer['operation_id']}; "
        "undo_operation with that id reverses it."
    )
    categories = (await ynab("GET", f"/plans/{budget.id}/categories/{budget.home.groceries}"))["category"]
    assert categories["category_group_name"] == "Day to day"


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_a_group_renamed_in_ynab_before_the_answer_is_still_renamed_and_logged_as_it_was(budget, way):
    case = group_rename_case(budget)
    await before(case)

    async def renamed_in_ynab() -> None:
        await rename_group_in_ynab(budget.id, budget.home.everyday_group, "Daily")

    answer = content(await answered_after(way, case, renamed_in_ynab))

    assert (answer["status"], answer["from_name"]) == ("applied", "Daily")
    assert (await group_names(budget.id))[budget.home.everyday_group] == "Day to day"
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert (op.undo_data["before"], op.undo_data["after"]) == ("Daily", "Day to day")


async def test_the_same_name_changes_nothing_and_a_change_of_case_is_a_rename(shared_budget):
    start = await before(group_rename_case(shared_budget))
    async with connected(MODERN) as client:
        same = content(await call(client, group_rename_case(shared_budget, name="Everyday")))
        case_only = content(await call(client, group_rename_case(shared_budget, name="EVERYDAY")))

    assert (same["status"], same["message"]) == (
        "nothing_to_do",
        "Nothing to change: the category group is already named ‘Everyday’.",
    )
    assert case_only["preview"] == "Rename category group ‘Everyday’ to ‘EVERYDAY’?"
    await expect_nothing_written(group_rename_case(shared_budget), start)


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"name": ""}, "name is empty: give at least one visible character."),
        ({"name": "d" * 51}, "name is 51 characters long: give at most 50."),
        (
            {"name": "bills"},
            "A category group is already named 'Bills' (names are compared without case); "
            "choose another name.",
        ),
        (
            {"category_group_id": "no-such-group"},
            "No category group 'no-such-group' in this plan; list_category_groups gives the valid ids.",
        ),
        ({"category_group_id": "bad id!"}, "'bad id!' is not a valid category group id"),
        (
            {"category_group_id": "internal_group"},
            "Category group 'Internal Master Category' is one of YNAB's own groups, which keeps its name; "
            "choose a group from list_category_groups.",
        ),
        (
            {"category_group_id": "card_group"},
            "Category group 'Credit Card Payments' is one of YNAB's own groups, which keeps its name; "
            "choose a group from list_category_groups.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    h = shared_budget.home
    stand_ins = {
        "internal_group": await group_of(h.uncategorized),
        "card_group": await group_of(h.card_payment),
    }
    arguments = {key: stand_ins.get(value, value) for key, value in arguments.items()}
    await _refused_before_asking(shared_budget, arguments, refusal)


async def test_a_hidden_group_is_refused_before_asking(budget):
    await sync_to_async(hide_in_ynab)(budget.id, budget.home.everyday_group)
    await _refused_before_asking(
        budget,
        {},
        "Category group 'Everyday' is hidden in YNAB; unhide it in YNAB first, or choose a visible group "
        "from list_category_groups.",
    )


async def _refused_before_asking(budget: BudgetHome, arguments: dict, refusal: str) -> None:
    case = group_rename_case(budget, **arguments)
    start = await standing(group_rename_case(budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(refusal)
    await expect_nothing_written(group_rename_case(budget), start)
