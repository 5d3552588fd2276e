"""split_transaction through the SDK's real client: every confirmation path, faults, refusals, preview,
and the undo that is refused with its reason."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import plan_write, utc_today
from avenir_mcp.sandbox.models import Subtransaction, Transaction
from avenir_mcp.tools.logic.splits import SplitLine
from avenir_mcp.tools.writes.split_transaction import LoggedSplit, SplitRecord, SplitSubject
from tests.helpers.write_cases.split_transaction import TOOL, held, splitting
from tests.writes.checks import make_available, requests_since, sandbox_http, says_yes, standing, ynab
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
NOT_UNDOABLE = "Only YNAB itself can undo a split; undo_operation cannot."


def unsplit(plan_id: str, transaction_id: str) -> None:
    """As YNAB's app can: the split's lines removed, the transaction left uncategorised."""
    with plan_write(plan_id) as write:
        before = write.snapshot([transaction_id])
        Subtransaction.objects.filter(transaction_id=transaction_id).update(
            deleted=True, knowledge=write.knowledge
        )
        Transaction.objects.filter(pk=transaction_id).update(category=None, knowledge=write.knowledge)
        write.transactions_changed(before, [transaction_id])


async def case_on(home: Household) -> WriteCase:
    h = home.home
    lines = [
        {"amount": "-50.00", "category_id": h.groceries, "memo": "food"},
        {"amount": "-36.43", "category_id": h.dining},
    ]
    case = splitting(home, home.market, lines)
    *kept, _ = await held(home, home.market)
    kept[0] = "Split"
    case.expected_after = (*kept, [(-50_000, h.groceries, "food"), (-36_430, h.dining, None)])

    # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: the transaction, the lines
    # (amount, category, memo).
    subject = {
        "transaction_id": home.market,
        "lines": [
            {"amount": -50_000, "category_id": h.groceries, "memo": "food"},
            {"amount": -36_430, "category_id": h.dining, "memo": None},
        ],
    }

    def check_log(op: Operation) -> None:
        assert op.fingerprint == documented_fingerprint(home.id, subject)
        assert op.subject == {"transaction_id": home.market, "line_category_ids": [h.groceries, h.dining]}
        assert op.undo_data["transaction_id"] == home.market
        assert op.undoable is False

    case.restore = lambda: sync_to_async(unsplit)(home.id, home.market)
    case.private_values = (*home.private, "food", 50_000, 36_430)
    case.check_log = check_log
    return case


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different split
# (a transaction split meanwhile, or of another amount, is refused as on a first call), so the
# plan-changed paths have no case here; test_the_same_split_is_made_... covers a change.
PATHS = paths_for("split_transaction", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("split_transaction", FAULT_PATHS)


@pytest.fixture
async def case(home: Household) -> WriteCase:
    return await case_on(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: case_on(household())) as case:
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
async def test_the_same_split_is_made_when_the_transaction_was_categorised_before_the_answer(case, home, way):
    """Categorised Rent meanwhile: the person's yes to these lines still splits it, and the log keeps
    the category it really had before."""
    await before(case)

    async def categorised() -> None:
        body = {"transactions": [{"id": home.market, "category_id": home.home.rent}]}
        await ynab("PATCH", f"/plans/{home.id}/transactions", json=body)

    result = await answered_after(way, case, categorised)

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert await case.state() == case.expected_after
    op = await Operation.objects.aget(pk=answer["operation_id"])
    case.check_log(op)
    assert op.undo_data == {"transaction_id": home.market, "category_before": home.home.rent}


async def test_a_transaction_split_before_the_answer_is_refused_and_not_split_again(case, home):
    """The same arguments no longer fit (YNAB's app split it meanwhile): the code's call refuses, as a
    first call would, and sends nothing."""
    await before(case)
    h = home.home

    async def split_in_the_app() -> None:
        t = (await ynab("GET", f"/plans/{home.id}/transactions/{home.market}"))["transaction"]
        fields = {name: t[name] for name in ("account_id", "date", "amount", "payee_id", "memo", "cleared")}
        lines = [{"amount": -80_000, "category_id": h.rent}, {"amount": -6_430, "category_id": h.dining}]
        body = {"transaction": {**fields, "category_id": None, "subtransactions": lines}}
        await ynab("PUT", f"/plans/{home.id}/transactions/{home.market}", json=body)

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        await split_in_the_app()
        start = await standing(case)
        refused = await call(client, case, confirmation=first["confirmation"])

    assert error_text(refused, case) == (
        f"Transaction '{home.market}' is split already: YNAB's API cannot change a split's lines; the "
        "person can change them in YNAB."
    )
    await expect_nothing_written(case, start)


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_and_result_show_the_split_whole_and_undo_is_refused_with_the_reason(case, home):
    day = (utc_today() - timedelta(days=3)).isoformat()
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))
        undo = await client.call_tool(
            "undo_operation", {"plan_id": home.id, "operation_id": answer["operation_id"]}
        )

    op = answer["operation_id"]
    month = f"{day[:7]}-01"
    # The market's payment was uncategorised; Groceries was at -20.00 and Dining Out at -22.34.
    assert person.messages == [
        f"Split {day} CB MARKET FRESH 0509 86.43 into 2 lines?\n"
        "- Groceries: 50.00; memo: food\n"
        "- Dining Out: 36.43\n"
        "Available, before → after:\n"
        f"- Groceries for {month}: -20.00 → -70.00\n"
        f"- Dining Out for {month}: -22.34 → -58.77\n"
        f"This leaves 2 categories overspent: Groceries by 70.00 for {month}; "
        f"Dining Out by 58.77 for {month}.\n"
        f"{NOT_UNDOABLE}"
    ]
    assert {
        k: answer[k] for k in ("transaction_id", "date", "payee", "amount", "from_category", "lines")
    } == {
        "transaction_id": home.market,
        "date": day,
        "payee": "CB MARKET FRESH 0509",
        "amount": "-86.43",
        "from_category": None,
        "lines": [
            {"amount": "-50.00", "category": "Groceries", "memo": "food"},
            {"amount": "-36.43", "category": "Dining Out", "memo": None},
        ],
    }
    assert answer["message"] == (
        f"Split the transaction into 2 lines. Done as operation {op}; it cannot be undone: YNAB's API "
        "cannot edit a split; only YNAB itself can undo it."
    )
    assert undo.is_error
    assert undo.content[0].text == (
        f"Operation {op} (split_transaction) cannot be undone: "
        "YNAB's API cannot edit a split; only YNAB itself can undo it."
    )


async def test_an_inflow_splits_with_plus_signs_and_twenty_one_lines_show_twenty(home):
    h = home.home
    day = (utc_today() - timedelta(days=3)).isoformat()
    inflow = splitting(
        home,
        home.salary,
        [
            {"amount": "1000", "category_id": h.ready_to_assign},
            {"amount": "234.56", "category_id": h.groceries},
        ],
    )
    with sandbox_http() as http:
        body = {
            "transaction": {"account_id": h.checking, "date": day, "amount": -21_000, "payee_name": "BAZAAR"}
        }
        many_id = http.post(f"/plans/{home.id}/transactions", json=body).json()["data"]["transaction"]["id"]
    many = splitting(home, many_id, [{"amount": "-1", "category_id": h.groceries} for _ in range(21)])
    person = says_yes()

    async with connected(MODERN, person) as client:
        content(await call(client, inflow))
        content(await call(client, many))

    month = f"{day[:7]}-01"
    # Groceries is at -20.00 that month (the household's split); Ready to Assign is not a category's
    # available, and the salary was uncategorised: neither is listed.
    assert person.messages[0] == (
        f"Split {day} ACME PAYROLL +1234.56 into 2 lines?\n"
        "- Inflow: Ready to Assign: +1000.00\n"
        "- Groceries: +234.56\n"
        "Available, before → after:\n"
        f"- Groceries for {month}: -20.00 → 214.56\n"
        f"{NOT_UNDOABLE}"
    )
    shown = person.messages[1].splitlines()
    assert shown[0] == f"Split {day} BAZAAR 21.00 into 21 lines?"
    assert shown[1:21] == ["- Groceries: 1.00"] * 20
    assert shown[21:] == [
        "… and 1 more",
        "Available, before → after:",
        f"- Groceries for {month}: 214.56 → 193.56",
        NOT_UNDOABLE,
    ]


@pytest.mark.parametrize(
    ("which", "expected"),
    [
        (
            "split",
            "Transaction '{id}' is split already: YNAB's API cannot change a split's lines; the person can "
            "change them in YNAB.",
        ),
        ("transfer", "Transaction '{id}' is a transfer between accounts, which cannot be split here."),
        (
            "house_repair",
            "Transaction '{id}' is on a tracking account, and tracking accounts carry no categories, "
            "so it cannot be split.",
        ),
    ],
)
async def test_a_transaction_that_cannot_be_split_is_refused_before_asking(shared_home, which, expected):
    transaction_id = getattr(shared_home, which)
    case = splitting(
        shared_home, transaction_id, [{"amount": "-1", "category_id": shared_home.home.groceries}] * 2
    )
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == expected.format(id=transaction_id)
    assert person.questions == []
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            [("-40", "groceries"), ("-40", "dining")],
            "The lines add up to -80.00, not the transaction's -86.43: make them add up to its amount "
            "exactly.",
        ),
        ([("-86.43", "c-unknown"), ("0.000", "dining")], None),
        (
            [("-80", "c-unknown"), ("-6.43", "dining")],
            "No category 'c-unknown' in this plan; get_category_balances gives the valid ids.",
        ),
        (
            [("-80", "uncategorized"), ("-6.43", "dining")],
            "Category '{uncategorized}' is YNAB's Uncategorized, which means no category: give a "
            "category from get_category_balances.",
        ),
        (
            [("-80", "card_payment"), ("-6.43", "dining")],
            "Category '{card_payment}' is a credit card payment category, which YNAB drops from a "
            "transaction; give a spending category from get_category_balances.",
        ),
    ],
)
async def test_lines_the_plan_refuses_are_refused_before_asking(shared_home, lines, expected):
    h = shared_home.home
    ids = {
        "groceries": h.groceries,
        "dining": h.dining,
        "uncategorized": h.uncategorized,
        "card_payment": h.card_payment,
    }
    given = [{"amount": amount, "category_id": ids.get(category, category)} for amount, category in lines]
    case = splitting(shared_home, shared_home.market, given)
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        refused = await call(client, case)

    if expected is None:  # a zero line is refused before the plan is read
        expected = "Line 2 has an amount of zero: every line of a split carries money; leave it out."
        assert await requests_since(start.mark) == []
    assert error_text(refused, case) == expected.format(**ids)
    assert person.questions == []
    await expect_nothing_written(case, start)


async def test_one_line_or_an_unknown_transaction_is_refused_saying_what_to_use(shared_home):
    one = splitting(
        shared_home, shared_home.market, [{"amount": "-86.43", "category_id": shared_home.home.groceries}]
    )
    unknown = splitting(
        shared_home, "t-unknown", [{"amount": "-1", "category_id": shared_home.home.groceries}] * 2
    )
    start = await standing(one)

    async with connected(MODERN) as client:
        one_refused = await call(client, one)
        assert await requests_since(start.mark) == []
        unknown_refused = await call(client, unknown)

    assert error_text(one_refused, one) == (
        "A split needs at least 2 lines, and 1 were given: to give the transaction one category, use "
        "apply_categories."
    )
    assert error_text(unknown_refused, unknown) == (
        "No transaction 't-unknown' in this plan; find_transactions gives the valid ids."
    )


async def test_the_demo_plans_fuel_and_sandwich_payment_splits_in_its_own_number_format(live_service):

    from avenir_mcp.sandbox.models import Category
    from tests.helpers.plan_copies import demo_plan_copy

    demo = await sync_to_async(demo_plan_copy)()
    payment = await Transaction.objects.select_related("payee").aget(
        plan=demo, memo="Fuel 52.00, sandwich and coffee 9.20", deleted=False
    )
    fuel = await Category.objects.aget(plan=demo, name="Fuel")
    dining = await Category.objects.aget(plan=demo, name="Dining Out")
    day = payment.date.isoformat()
    await make_available(demo.id, day, fuel.id, 100_000)
    await make_available(demo.id, day, dining.id, 5_000)
    arguments = {
        "plan_id": demo.id,
        "transaction_id": payment.id,
        "lines": [
            {"amount": "-52.00", "category_id": fuel.id},
            {"amount": "-9.20", "category_id": dining.id, "memo": "sandwich and coffee"},
        ],
    }
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await client.call_tool(TOOL, arguments))

    assert payment.category_id is None
    month = f"{day[:7]}-01"
    assert person.messages == [
        f"Split {day} {payment.payee.name} 61,20 into 2 lines?\n"
        "- Fuel: 52,00\n"
        "- Dining Out: 9,20; memo: sandwich and coffee\n"
        "Available, before → after:\n"
        f"- Dining Out for {month}: 5,00 → -4,20\n"
        f"- Fuel for {month}: 100,00 → 48,00\n"
        f"This leaves Dining Out overspent by 4,20 for {month}.\n"
        f"{NOT_UNDOABLE}"
    ]
    assert answer["status"] == "applied"


def test_the_log_keeps_the_lines_categories_and_the_category_before_as_rows_already_hold_them():
    lines = (SplitLine(-51_130, "groceries", None), SplitLine(-9_200, "dining", "coffee"))
    subject = SplitSubject(transaction_id="t-market", lines=lines)
    old_subject = {"transaction_id": "t-market", "line_category_ids": ["groceries", "dining"]}
    old_undo_data = {"transaction_id": "t-market", "category_before": None}

    assert subject.fingerprinted() == {
        "transaction_id": "t-market",
        "lines": [
            {"amount": -51_130, "category_id": "groceries", "memo": None},
            {"amount": -9_200, "category_id": "dining", "memo": "coffee"},
        ],
    }
    assert subject.stored() == old_subject
    assert LoggedSplit.from_stored(old_subject).line_category_ids == ("groceries", "dining")
    assert SplitRecord.from_stored(old_undo_data).stored() == old_undo_data
