"""update_category through the SDK's real client: every confirmation path, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.tools.writes.update_category import CHECK
from tests.helpers.write_cases.update_category import update_case
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.category_plans import change_category, group_of, place
from tests.writes.checks import ynab
from tests.writes.harness import (
    ANSWER_WAYS,
    ARGUMENTS_ONLY_PATHS,
    CONFIRMED_PATHS,
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
    expect_applied,
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)

pytestmark = pytest.mark.anyio


def rename_only_case(budget: BudgetHome) -> WriteCase:
    """A new name alone: the subject's new group is the group the category is in when asked
    (the question says `to ‘Restaurants’ (Everyday)`), so moving it in YNAB meanwhile changes
    the subject itself."""
    h = budget.home
    subject = {"category_id": h.dining, "name": "Restaurants", "category_group_id": h.everyday_group}

    def check_log(op: Operation) -> None:
        assert op.subject == subject
        assert op.fingerprint == documented_fingerprint(budget.id, subject)

    return WriteCase(
        tool="update_category",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "category_id": h.dining, "name": "Restaurants"},
        state=lambda: place(budget.id, h.dining),
        expected_after=("Restaurants", h.everyday_group),
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/categories/{h.dining}$",
        check=CHECK,
        change_plan=lambda: _moved_to_bills(budget),
        restore=lambda: change_category(budget.id, h.dining, name="Dining Out"),
        private_values=budget.private,
        check_log=check_log,
    )


async def _moved_to_bills(budget: BudgetHome) -> None:
    await change_category(budget.id, budget.home.dining, category_group_id=await group_of(budget.home.rent))


@pytest.fixture
async def bills(budget: BudgetHome) -> str:
    return await group_of(budget.home.rent)


@pytest.fixture
def case(budget: BudgetHome, bills: str) -> WriteCase:
    return update_case(budget, bills)


async def updating_rent(budget: BudgetHome) -> WriteCase:
    """`case` on `budget`, for a fixture of a wider scope than `bills`'."""
    return update_case(budget, await group_of(budget.home.rent))


# With name and group both given the subject is the arguments alone: the plan-changed paths need a
# request whose new name or group comes from the plan (rename_only_case).
PATHS = paths_for("update_category", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("update_category", FAULT_PATHS)
PLAN_CHANGED = {name: path for name, path in CONFIRMED_PATHS.items() if name.startswith("plan changed")}
PLAN_CHANGED_PATHS = paths_for("update_category", PLAN_CHANGED)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: updating_rent(budget_home())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.parametrize("path", PLAN_CHANGED_PATHS)
async def test_a_rename_alone_is_not_applied_when_the_category_moved_before_the_answer(
    path, budget, settings, monkeypatch
):
    await PLAN_CHANGED_PATHS[path](rename_only_case(budget), Env(settings, monkeypatch))


async def test_a_rename_alone_keeps_the_category_where_it_is(budget):
    case = rename_only_case(budget)
    start = await before(case)

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = await call(client, case, confirmation=first["confirmation"])

    assert first["preview"] == "Change category ‘Dining Out’ (Everyday) to ‘Restaurants’ (Everyday)?"
    await expect_applied(case, start, answer, confirmed_by="code")


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_the_same_request_is_accepted_when_the_category_was_renamed_before_the_answer(
    budget, bills, way
):
    """The person agreed to ‘Restaurants’ in Bills: that is what it becomes, although the category
    and its group were renamed in YNAB meanwhile; the log keeps the name and group it really had."""
    h = budget.home
    case = update_case(budget, bills)
    await before(case)

    async def renamed_in_ynab() -> None:
        await change_category(budget.id, h.dining, name="Eating Out")
        path = f"/plans/{budget.id}/category_groups/{h.everyday_group}"
        await ynab("PATCH", path, json={"category_group": {"name": "Daily"}})

    result = await answered_after(way, case, renamed_in_ynab)

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert (answer["from_name"], answer["from_group"]) == ("Eating Out", "Daily")
    assert await place(budget.id, h.dining) == ("Restaurants", bills)
    op = await Operation.objects.aget(pk=answer["operation_id"])
    subject = {"category_id": h.dining, "name": "Restaurants", "category_group_id": bills}
    assert op.subject == subject
    assert op.fingerprint == documented_fingerprint(budget.id, subject)
    assert op.undo_data == {
        "category_id": h.dining,
        "before": {"name": "Eating Out", "group_id": h.everyday_group, "group": "Daily"},
        "after": {"name": "Restaurants", "group_id": bills, "group": "Bills"},
    }


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_and_the_result_name_both_places(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == "Change category ‘Dining Out’ (Everyday) to ‘Restaurants’ (Bills)?"
    assert {key: answer[key] for key in ("from_name", "to_name", "from_group", "to_group")} == {
        "from_name": "Dining Out",
        "to_name": "Restaurants",
        "from_group": "Everyday",
        "to_group": "Bills",
    }
    assert answer["message"] == (
        "Changed category ‘Dining Out’ (Everyday) to ‘Restaurants’ (Bills). Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )


async def test_a_name_alone_renames_in_place_and_a_change_of_case_is_a_rename(budget, bills):
    h = budget.home
    async with connected(MODERN) as client:
        renamed = content(
            await call(client, update_case(budget, bills, category_group_id=None, name="dining out"))
        )

    assert renamed["preview"] == "Change category ‘Dining Out’ (Everyday) to ‘dining out’ (Everyday)?"
    assert await place(budget.id, h.dining) == ("Dining Out", h.everyday_group)  # only asked


async def test_no_change_is_nothing_to_do_and_nothing_is_asked(budget, bills):
    h = budget.home
    case = update_case(budget, bills, name="Dining Out", category_group_id=h.everyday_group)

    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert answer["message"] == "Nothing to change: the category is already ‘Dining Out’ (Everyday)."
    assert (answer["preview"], answer["operation_id"]) == (None, None)


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"name": None, "category_group_id": None},
            "Give name, category_group_id or note: the new name, the group to move it to, or its new note.",
        ),
        ({"name": "  "}, "name is empty: give at least one visible character."),
        (
            {"name": "Sport\u202e"},
            "name contains U+202E (RIGHT-TO-LEFT OVERRIDE), a control or invisible character: give the text "
            "on one line with visible characters only.",
        ),
        ({"name": "x" * 101}, "name is 101 characters long: give at most 100."),
        (
            {"name": "groceries", "category_group_id": None},
            "Category group 'Everyday' already has a category named 'groceries' (names are compared without "
            "case); choose another name.",
        ),
        (
            {"name": None, "category_group_id": "no-such-group"},
            "No category group 'no-such-group' in this plan; list_category_groups gives the valid ids.",
        ),
        (
            {"category_id": "no-such-category"},
            "No category 'no-such-category' in this plan; get_category_balances gives the valid ids.",
        ),
        (
            {"category_id": "uncategorized"},
            "Category 'Uncategorized' is one of YNAB's internal categories, which YNAB's API does not "
            "change; choose a category from get_category_balances.",
        ),
        (
            {"category_id": "card_payment", "name": None},
            "Category 'Visa' is a credit card payment category: YNAB keeps it in Credit Card Payments; it "
            "can be renamed but not moved.",
        ),
        (
            {"name": None, "category_group_id": "internal_group"},
            "Category group 'Internal Master Category' is YNAB's internal group and takes no categories; "
            "choose a group from list_category_groups.",
        ),
        (
            {"name": None, "category_group_id": "card_group"},
            "Category group 'Credit Card Payments' holds only the payment categories YNAB makes for credit "
            "cards; choose another group from list_category_groups.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    budget = shared_budget
    bills = await group_of(budget.home.rent)
    h = budget.home
    stand_ins = {
        "uncategorized": h.uncategorized,
        "card_payment": h.card_payment,
        "internal_group": await group_of(h.uncategorized),
        "card_group": await group_of(h.card_payment),
    }
    arguments = {key: stand_ins.get(value, value) for key, value in arguments.items()}
    case = update_case(budget, bills, **arguments)
    start = await before(update_case(budget, bills))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(update_case(budget, bills), start)


async def test_a_name_taken_in_the_destination_group_is_refused(budget, bills):
    case = update_case(budget, bills, name="RENT")

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        "Category group 'Bills' already has a category named 'RENT' (names are compared without case); "
        "choose another name."
    )


async def test_a_group_alone_moves_the_category_keeping_its_name(budget, bills):
    h = budget.home
    case = update_case(budget, bills, name=None)
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == "Change category ‘Dining Out’ (Everyday) to ‘Dining Out’ (Bills)?"
    assert answer["status"] == "applied"
    assert await place(budget.id, h.dining) == ("Dining Out", bills)
