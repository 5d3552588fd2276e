"""create_account through the SDK's real client: its own confirmation paths, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from tests.helpers.write_cases.create_account import account_case, close_in_ynab, open_account
from tests.writes.assigned_plans import EUROS, BudgetHome, budget_home
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

PERMANENT = "Permanent: YNAB's API cannot close or delete accounts; close it in YNAB to take it back."


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return account_case(budget)


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; the name taken before the answer is tested below.
PATHS = paths_for("create_account", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("create_account", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: account_case(budget_home())) as case:
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


async def test_the_preview_says_it_is_permanent_and_the_account_opens_with_its_starting_balance(budget, case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert (
        first["preview"]
        == f"Create account ‘Emergency fund’ (savings) with a balance of 2500.00?\n{PERMANENT}"
    )
    assert {key: first[key] for key in ("account_id", "name", "type", "on_budget", "balance")} == {
        "account_id": None,
        "name": "Emergency fund",
        "type": "savings",
        "on_budget": True,
        "balance": "2500.00",
    }
    created = await open_account(budget.id, "Emergency fund")
    assert answer["account_id"] == created["id"]
    assert answer["message"] == (
        f"Created account ‘Emergency fund’ (savings). Done as operation {answer['operation_id']}; it "
        "cannot be undone: YNAB's API cannot close or delete an account; closing it in YNAB is the only "
        "way back."
    )
    transactions = (await ynab("GET", f"/plans/{budget.id}/accounts/{created['id']}/transactions"))[
        "transactions"
    ]
    assert [(t["payee_name"], t["amount"], t["category_name"]) for t in transactions] == [
        ("Starting Balance", 2_500_000, "Inflow: Ready to Assign")
    ]


async def test_a_card_owing_money_opens_on_budget_and_a_liability_as_a_tracking_account():
    budget = await sync_to_async(budget_home)(currency_format=EUROS)
    card = account_case(budget, name="Store card", type="creditCard", balance="-150.5")
    loan = account_case(budget, name="Family loan", type="otherLiability", balance=-2000)

    async with connected(MODERN) as client:
        card_asked = content(await call(client, card))
        loan_asked = content(await call(client, loan))

    assert (
        card_asked["preview"]
        == f"Create account ‘Store card’ (creditCard) with a balance of -150,50?\n{PERMANENT}"
    )
    assert (card_asked["on_budget"], card_asked["balance"]) == (True, "-150.50")
    assert loan_asked["preview"].startswith(
        "Create account ‘Family loan’ (otherLiability) with a balance of -2000,00?"
    )
    assert (loan_asked["on_budget"], loan_asked["balance"]) == (False, "-2000.00")


async def test_undo_refuses_it_with_the_reason(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))
        refused = await client.call_tool(
            "undo_operation", {"plan_id": case.plan_id, "operation_id": answer["operation_id"]}
        )

    assert error_text(refused, case) == (
        f"Operation {answer['operation_id']} (create_account) "
        "cannot be undone: YNAB's API cannot close or delete an account; closing it in YNAB is the only "
        "way back."
    )


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_a_name_taken_in_ynab_before_the_answer_is_refused_and_nothing_is_created(budget, way):
    """The same arguments now describe a second ‘Emergency fund’: the yes does not create it."""
    case = account_case(budget)
    await before(case)

    async def opened_in_ynab() -> None:
        account = {"name": "EMERGENCY FUND", "type": "cash", "balance": 0}
        await ynab("POST", f"/plans/{budget.id}/accounts", json={"account": account})

    result = await answered_after(way, case, opened_in_ynab)

    assert error_text(result, case) == (
        "An open account is already named 'EMERGENCY FUND' (names are compared without case); "
        "choose another name."
    )
    assert await open_account(budget.id, "Emergency fund") is None
    assert await Operation.objects.filter(plan_id=budget.id).acount() == 0


async def test_a_closed_accounts_name_is_free_again(budget):
    await sync_to_async(close_in_ynab)(budget.id, budget.home.savings)
    case = account_case(budget, name="savings")

    async with connected(MODERN) as client:
        asked = content(await call(client, case))

    assert asked["status"] == "confirmation_required"
    assert asked["preview"].startswith("Create account ‘savings’ (savings) with a balance of 2500.00?")


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({"name": ""}, "name is empty: give at least one visible character."),
        (
            {"name": "Fund\t"},
            "name contains U+0009, a control or invisible character: give the text on one line with visible "
            "characters only.",
        ),
        ({"name": "f" * 101}, "name is 101 characters long: give at most 100."),
        (
            {"name": "checking"},
            "An open account is already named 'Checking' (names are compared without case); "
            "choose another name.",
        ),
        (
            {"type": "creditCard", "balance": "150"},
            "The balance of an account of type creditCard is what is owed, so it is negative (or 0): "
            "give -150.00 for 150.00 owed.",
        ),
        (
            {"type": "otherLiability", "balance": 0.5},
            "The balance of an account of type otherLiability is what is owed, so it is negative (or 0): "
            "give -0.50 for 0.50 owed.",
        ),
        ({"balance": "12.3456"}, "balance '12.3456' has 4 decimals: give at most 3."),
        (
            {"type": "mortgage"},
            "Argument 'type': input should be 'checking', 'savings', 'cash', 'creditCard', 'otherAsset' or "
            "'otherLiability'.",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    case = account_case(shared_budget, **arguments)
    start = await before(account_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(refusal)
    await expect_nothing_written(account_case(shared_budget), start)
