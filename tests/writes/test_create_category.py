"""create_category through the SDK's real client: every confirmation path, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import CategoryGroup
from tests.helpers.write_cases.create_category import create_case
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.category_plans import group_of, names_in_group
from tests.writes.checks import sandbox_http, ynab
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

PERMANENT = "Permanent: YNAB's API cannot delete categories; hiding it in YNAB is the only way back."


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return create_case(budget)


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; the two tests after the matrix cover a change.
PATHS = paths_for("create_category", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("create_category", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: create_case(budget_home())) as case:
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
async def test_the_same_request_is_accepted_when_the_group_was_renamed_before_the_answer(budget, way):
    h = budget.home
    case = create_case(budget)
    await before(case)

    async def renamed_in_ynab() -> None:
        path = f"/plans/{budget.id}/category_groups/{h.everyday_group}"
        await ynab("PATCH", path, json={"category_group": {"name": "Daily"}})

    result = await answered_after(way, case, renamed_in_ynab)

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert answer["group"] == "Daily"
    assert answer["message"].startswith("Created category ‘Pets’ in Daily.")
    assert "Pets" in await names_in_group(budget.id, h.everyday_group)
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == {"category_group_id": h.everyday_group, "name": "Pets"}
    assert op.fingerprint == documented_fingerprint(budget.id, op.subject)


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_a_name_taken_in_ynab_before_the_answer_is_refused_and_nothing_is_created(budget, way):
    """The same arguments now describe a duplicate: the yes does not create a second ‘Pets’."""
    h = budget.home
    case = create_case(budget)
    await before(case)

    async def created_in_ynab() -> None:
        category = {"name": "PETS", "category_group_id": h.everyday_group}
        await ynab("POST", f"/plans/{budget.id}/categories", json={"category": category})

    result = await answered_after(way, case, created_in_ynab)

    assert error_text(result, case) == (
        "Category group 'Everyday' already has a category named 'Pets' (names are compared without case); "
        "choose another name."
    )
    assert [name for name in await names_in_group(budget.id, h.everyday_group) if name.lower() == "pets"] == [
        "PETS"
    ]
    assert await Operation.objects.filter(plan_id=budget.id).acount() == 0


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_says_it_is_permanent_and_the_result_gives_the_new_id(budget, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == f"Create category ‘Pets’ in Everyday?\n{PERMANENT}"
    assert (first["category_id"], first["name"], first["group"]) == (None, "Pets", "Everyday")
    categories = (await ynab("GET", f"/plans/{budget.id}/categories"))["category_groups"]
    (pets,) = [c for g in categories for c in g["categories"] if c["name"] == "Pets"]
    assert answer["category_id"] == pets["id"]
    assert answer["message"] == (
        f"Created category ‘Pets’ in Everyday. Done as operation {answer['operation_id']}; it cannot be "
        "undone: YNAB's API cannot delete a category; hiding it in YNAB is the only way back."
    )


async def test_undo_refuses_it_with_the_reason(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))
        refused = await client.call_tool(
            "undo_operation", {"plan_id": case.plan_id, "operation_id": answer["operation_id"]}
        )

    assert error_text(refused, case) == (
        f"Operation {answer['operation_id']} (create_category) "
        "cannot be undone: YNAB's API cannot delete a category; hiding it in YNAB is the only way back."
    )


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"name": ""}, "name is empty: give at least one visible character."),
        (
            {"name": "Pets\n"},
            "name contains U+000A, a control or invisible character: give the text on one line with visible "
            "characters only.",
        ),
        ({"name": "p" * 101}, "name is 101 characters long: give at most 100."),
        (
            {"name": "GROCERIES"},
            "Category group 'Everyday' already has a category named 'GROCERIES' (names are compared without "
            "case); choose another name.",
        ),
        (
            {"category_group_id": "no-such-group"},
            "No category group 'no-such-group' in this plan; list_category_groups gives the valid ids.",
        ),
        ({"category_group_id": "bad id!"}, "'bad id!' is not a valid category group id"),
        (
            {"category_group_id": "internal_group"},
            "Category group 'Internal Master Category' is YNAB's internal group and takes no categories; "
            "choose a group from list_category_groups.",
        ),
        (
            {"category_group_id": "card_group"},
            "Category group 'Credit Card Payments' holds only the payment categories YNAB makes for credit "
            "cards; choose another group from list_category_groups.",
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


async def test_a_hidden_group_is_refused_before_asking_and_nothing_is_written(budget):
    arguments = {"category_group_id": await _hidden_group(budget)}  # hiding one writes: a plan of its own
    await _refused_before_asking(
        budget,
        arguments,
        "Category group 'Archive' is hidden in YNAB; choose a visible group from list_category_groups, "
        "or unhide it in YNAB first.",
    )


async def _refused_before_asking(budget: BudgetHome, arguments: dict, refusal: str) -> None:
    case = create_case(budget, **arguments)
    start = await before(create_case(budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(refusal)
    await expect_nothing_written(create_case(budget), start)


async def _hidden_group(budget: BudgetHome) -> str:
    """A group the person hid in YNAB's app (the API cannot hide one)."""
    return await sync_to_async(_hide_new_group)(budget.id, "Archive")


def _hide_new_group(plan_id: str, name: str) -> str:
    with sandbox_http() as http:
        answer = http.post(f"/plans/{plan_id}/category_groups", json={"category_group": {"name": name}})
    assert answer.status_code == 201, answer.text
    created = answer.json()["data"]["category_group"]["id"]
    with plan_write(plan_id) as write:
        CategoryGroup.objects.filter(pk=created).update(hidden=True, knowledge=write.knowledge)
    return created
