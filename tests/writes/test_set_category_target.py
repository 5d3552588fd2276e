"""set_category_target through the SDK's real client: every confirmation path, refusals, faults, the log."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.confirmations import messages
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write, utc_today
from avenir_mcp.sandbox.models import Category
from avenir_mcp.ynab_client import client as ynab_client
from tests.helpers.garbled_answers import GarblingTransport
from tests.helpers.write_cases.set_category_target import AS_SET, BY_DATE, SENT, SET_BY_DATE, target_case
from tests.writes.assigned_plans import BudgetHome, budget_home
from tests.writes.category_plans import change_category, goal
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
    standing,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return target_case(budget)


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("set_category_target", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("set_category_target", FAULT_PATHS)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: target_case(budget_home())) as case:
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
async def test_the_same_request_is_accepted_when_the_target_moved_before_the_answer(budget, way):
    """The person agreed to 1200.00 by a date: it is set, and the log keeps the target it really
    replaced (50.00 monthly, set in YNAB meanwhile), so undo puts that one back."""
    h = budget.home
    case = target_case(budget)
    await before(case)

    result = await answered_after(way, case, lambda: change_category(budget.id, h.dining, goal_target=50_000))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert (answer["before"], answer["after"]) == ("50.00 monthly", f"1200.00 by {BY_DATE}")
    assert await goal(budget.id, h.dining) == AS_SET
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == {"category_id": h.dining, "fields": SENT}
    assert op.fingerprint == documented_fingerprint(budget.id, {"category_id": h.dining, "fields": SENT})
    monthly = {
        "kind": "monthly",
        "amount": 50_000,
        "by_date": None,
        "whole": True,
        "ynab_name": None,
        "snoozed": False,
    }
    assert op.undo_data == {
        "category_id": h.dining,
        "before": monthly,
        "after": SET_BY_DATE,
        "restore": {"goal_target": 50_000, "goal_frequency": "monthly", "goal_needs_whole_amount": True},
    }


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_and_the_result_read_the_targets_as_ynab_shows_them(case):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == f"Set the target of Dining Out: no target → 1200.00 by {BY_DATE}?"
    assert (first["category"], first["before"], first["after"], first["undoable"]) == (
        "Dining Out",
        "no target",
        f"1200.00 by {BY_DATE}",
        True,
    )
    assert answer["message"] == (
        f"Set the target of Dining Out: no target → 1200.00 by {BY_DATE}. Done as operation "
        f"{answer['operation_id']}; undo_operation with that id reverses it."
    )


@pytest.mark.parametrize(
    ("arguments", "after", "kept"),
    [
        ({"by_date": None}, "50.00 monthly", ("NEED", 50_000, None, 1, 1, True, None)),
        ({"by_date": None, "frequency": "weekly"}, "50.00 weekly", ("NEED", 50_000, None, 2, 1, True, None)),
        ({"by_date": None, "frequency": "yearly"}, "50.00 yearly", ("NEED", 50_000, None, 13, 1, True, None)),
    ],
)
async def test_an_amount_alone_makes_a_monthly_target_and_a_frequency_repeats_it(
    budget, arguments, after, kept
):
    case = target_case(budget, amount="50", **arguments)

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == f"Set the target of Dining Out: no target → {after}?"
    assert answer["after"] == after
    assert await goal(budget.id, budget.home.dining) == kept


async def test_an_amount_alone_keeps_the_kind_and_nothing_at_all_removes_the_target(budget):
    h = budget.home
    await change_category(budget.id, h.dining, goal_target=80_000, goal_frequency="weekly")

    async with connected(MODERN) as client:
        amount = content(await call(client, target_case(budget, amount="95.5", by_date=None)))
        removal = content(await call(client, target_case(budget, amount=None, by_date=None)))

    assert amount["preview"] == "Set the target of Dining Out: 80.00 weekly → 95.50 weekly?"
    assert removal["preview"] == "Set the target of Dining Out: 80.00 weekly → no target?"


async def test_the_same_target_is_nothing_to_do_and_nothing_is_asked(budget):
    case = target_case(budget)
    await change_category(budget.id, budget.home.dining, goal_target=1_200_000, goal_target_date=BY_DATE)
    start = await standing(case)

    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert (
        answer["message"] == f"Nothing to change: the target of Dining Out is already 1200.00 by {BY_DATE}."
    )
    assert (answer["preview"], answer["confirmation"], answer["operation_id"]) == (None, None, None)
    await expect_nothing_written(case, start)


def _yesterday() -> str:
    return (utc_today() - timedelta(days=2)).isoformat()


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (
            {"frequency": "monthly"},
            "Give by_date or frequency, not both: a YNAB target has a date or repeats, not both.",
        ),
        (
            {"amount": None},
            "A by_date or frequency needs an amount: give the target's amount too (nothing at all removes "
            "the target).",
        ),
        (
            {"amount": None, "by_date": None, "frequency": "weekly"},
            "A by_date or frequency needs an amount: give the target's amount too (nothing at all removes "
            "the target).",
        ),
        (
            {"amount": "0"},
            "amount must be more than 0; to remove the target, give no amount, by_date or frequency.",
        ),
        (
            {"amount": "-5"},
            "amount must be more than 0; to remove the target, give no amount, by_date or frequency.",
        ),
        ({"by_date": "past"}, "by_date {past} is in the past: give today ({today}) or later."),
        ({"by_date": "2027-02-30"}, "by_date '2027-02-30' is not a calendar date"),
        (
            {"category_id": "no-such-category"},
            "No category 'no-such-category' in this plan; get_category_balances gives the valid ids.",
        ),
        (
            {"category_id": "ready_to_assign"},
            "Category 'Inflow: Ready to Assign' is one of YNAB's internal categories, which YNAB's API does "
            "not change; choose a category from get_category_balances.",
        ),
        (
            {"category_id": "card_payment", "by_date": None, "frequency": "monthly"},
            "Category 'Visa' is a credit card payment category: YNAB takes no frequency for it; give an "
            "amount alone (a monthly payment) or with by_date (paid off by that date).",
        ),
    ],
)
async def test_it_refuses_before_asking_and_writes_nothing(shared_budget, arguments, refusal):
    h = shared_budget.home
    if arguments.get("by_date") == "past":
        arguments = {**arguments, "by_date": _yesterday()}
        refusal = refusal.format(past=arguments["by_date"], today=today().isoformat())
    if arguments.get("category_id") in ("ready_to_assign", "card_payment"):
        arguments = {**arguments, "category_id": getattr(h, arguments["category_id"])}
    case = target_case(shared_budget, **arguments)
    start = await before(target_case(shared_budget))

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case).startswith(refusal)
    await expect_nothing_written(target_case(shared_budget), start)


def _make_debt_target(plan_id: str, category_id: str) -> None:
    """A loan's category carries YNAB's debt target, which only YNAB itself sets (not the API)."""
    with plan_write(plan_id) as write:
        Category.objects.filter(pk=category_id).update(goal_type="DEBT", knowledge=write.knowledge)


async def test_a_loans_category_takes_no_date_nor_frequency(budget):
    h = budget.home
    await change_category(budget.id, h.rent, goal_target=250_000)
    await sync_to_async(_make_debt_target)(budget.id, h.rent)
    refusal = (
        "Category 'Rent' is tied to a loan account: its target follows the loan's payment, so YNAB takes no "
        "date or frequency for it; give an amount alone."
    )

    async with connected(MODERN) as client:
        dated = await call(client, target_case(budget, category_id=h.rent))
        weekly = await call(client, target_case(budget, category_id=h.rent, by_date=None, frequency="weekly"))

    case = target_case(budget, category_id=h.rent)
    assert (error_text(dated, case), error_text(weekly, case)) == (refusal, refusal)


async def test_a_code_issued_for_one_target_does_not_set_another(budget):
    case = target_case(budget)
    start = await before(case)

    async with connected(MODERN) as client:
        code = content(await call(client, case))["confirmation"]
        refused = await call(client, target_case(budget, amount="999.00"), confirmation=code)

    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)


def _deleted_in_ynab(plan_id: str, category_id: str) -> None:
    """A category YNAB deleted (the API cannot delete one; YNAB's app can)."""
    with plan_write(plan_id) as write:
        Category.objects.filter(pk=category_id).update(deleted=True, knowledge=write.knowledge)


async def test_a_category_deleted_in_ynab_is_refused_as_unknown(case, budget):
    async with connected(MODERN) as client:
        content(await call(client, case))  # the plan is read and kept warm
    await sync_to_async(_deleted_in_ynab)(budget.id, budget.home.dining)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == (
        f"No category '{budget.home.dining}' in this plan; get_category_balances gives the valid ids."
    )


async def test_an_answer_that_does_not_say_the_target_reports_the_target_sent(case, settings, monkeypatch):
    """YNAB took the change but its 200 holds no category: the result and the log say the target sent."""
    key = (settings.AVENIR_MCP_YNAB_URL, settings.SANDBOX_TOKEN)
    garbled = GarblingTransport(f"/categories/{case.arguments['category_id']}", body=b'{"data": {}}')
    monkeypatch.setitem(
        ynab_client._clients, key, ynab_client.YnabClient(base_url=key[0], token=key[1], transport=garbled)
    )

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert answer["status"] == "applied", answer
    assert answer["message"].startswith(
        f"Set the target of Dining Out: no target → 1200.00 by {BY_DATE}. Done"
    )
    assert answer["after"] == f"1200.00 by {BY_DATE}"
    assert await goal(case.plan_id, case.arguments["category_id"]) == AS_SET
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.status == "applied"
    assert op.undo_data["after"] == SET_BY_DATE
