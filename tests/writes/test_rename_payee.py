"""rename_payee through the SDK's real client: every confirmation path, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import Account, Payee
from tests.helpers.write_cases.rename_payee import NEW, OLD, payee_called, rename_case
from tests.writes.category_plans import payee_name, rename_in_ynab
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
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio


@pytest.fixture
async def cafe(home: Household) -> str:
    return await payee_called(home, OLD)


@pytest.fixture
def case(home: Household, cafe: str) -> WriteCase:
    return rename_case(home, cafe)


async def renaming_the_cafe(home: Household) -> WriteCase:
    """`case` on `home`, for a fixture of a wider scope than `cafe`'s."""
    return rename_case(home, await payee_called(home, OLD))


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("rename_payee", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("rename_payee", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: renaming_the_cafe(household())) as case:
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
async def test_the_same_request_is_accepted_when_the_payee_was_renamed_before_the_answer(home, cafe, way):
    """The person agreed to ‘Corner Cafe’: that is its name, and the log keeps the name it really
    replaced, so undo puts that one back."""
    case = rename_case(home, cafe)
    await before(case)

    result = await answered_after(way, case, lambda: rename_in_ynab(home.id, cafe, "CORNER CAFE PARIS"))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert (answer["from_name"], answer["to_name"]) == ("CORNER CAFE PARIS", NEW)
    assert await payee_name(home.id, cafe) == NEW
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == {"payee_id": cafe}
    assert op.fingerprint == documented_fingerprint(home.id, {"payee_id": cafe, "name": NEW})
    assert op.undo_data == {"payee_id": cafe, "before": "CORNER CAFE PARIS", "after": NEW}


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_gives_how_many_transactions_use_it(home, case):
    market = rename_case(home, await payee_called(home, "CB MARKET FRESH 0509"), name="Market Fresh")
    async with connected(MODERN) as client:
        first = content(await call(client, market))
        answer = content(await call(client, market, confirmation=first["confirmation"]))

    assert (
        first["preview"]
        == "Rename payee ‘CB MARKET FRESH 0509’ to ‘Market Fresh’ (used by 1 transaction(s))?"
    )
    assert {key: answer[key] for key in ("from_name", "to_name", "transactions")} == {
        "from_name": "CB MARKET FRESH 0509",
        "to_name": "Market Fresh",
        "transactions": 1,
    }
    assert answer["message"] == (
        "Renamed payee ‘CB MARKET FRESH 0509’ to ‘Market Fresh’. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )


async def test_the_same_name_is_nothing_to_do_and_a_change_of_case_is_a_rename(home, cafe):
    async with connected(MODERN) as client:
        same = content(await call(client, rename_case(home, cafe, name=OLD)))
        case_only = content(await call(client, rename_case(home, cafe, name="corner cafe")))

    assert (same["status"], same["message"]) == (
        "nothing_to_do",
        "Nothing to change: the payee is already named ‘CORNER CAFE’.",
    )
    assert case_only["status"] == "confirmation_required"


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"name": "acme payroll"},
            "Another payee is already named 'ACME PAYROLL' (names are compared without case), and YNAB's API "
            "cannot merge payees: choose another name, or merge them in YNAB itself.",
        ),
        ({"name": " "}, "name is empty: give at least one visible character."),
        ({"name": "n" * 501}, "name is 501 characters long: give at most 500."),
        (
            {"name": "Cafe\u200b"},
            "name contains U+200B (ZERO WIDTH SPACE), a control or invisible character: give the text on one "
            "line with visible characters only.",
        ),
        (
            {"payee_id": "no-such-payee"},
            "No payee 'no-such-payee' in this plan; list_payees gives the valid ids.",
        ),
        (
            {"payee_id": "transfer"},
            "Payee 'Transfer : Savings' is a transfer payee: it follows its account's name, which only YNAB "
            "itself can change; choose another payee from list_payees.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_home, arguments, refusal):
    home = shared_home
    cafe = await payee_called(home, OLD)
    if arguments.get("payee_id") == "transfer":
        transfer = (await Account.objects.aget(pk=home.home.savings)).transfer_payee_id
        arguments = {**arguments, "payee_id": transfer}
    given = dict(arguments)
    case = rename_case(home, given.pop("payee_id", cafe), **given)
    start = await before(rename_case(home, cafe))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == refusal
    await expect_nothing_written(rename_case(home, cafe), start)


def _deleted_in_ynab(plan_id: str, payee_id: str) -> None:
    """A payee YNAB deleted (the API cannot: YNAB's app can, once nothing uses it)."""
    with plan_write(plan_id) as write:
        Payee.objects.filter(pk=payee_id).update(deleted=True, knowledge=write.knowledge)


async def test_a_payee_deleted_in_ynab_is_refused_as_unknown(home, cafe):
    async with connected(MODERN) as client:
        content(await call(client, rename_case(home, cafe)))  # the plan is read and kept warm
    await sync_to_async(_deleted_in_ynab)(home.id, cafe)
    case = rename_case(home, cafe)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == f"No payee '{cafe}' in this plan; list_payees gives the valid ids."
