"""create_transactions through the SDK's real client: every confirmation path, faults, refusals, preview."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account, Category
from avenir_mcp.tools.logic.new_transactions import digest
from avenir_mcp.values.months import years_earlier
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.write_cases.create_transactions import TOOL, created_on, creating, days_ago, ids_on
from tests.writes.checks import make_available, requests_since, says_yes, standing, ynab
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


async def case_on(home: Household) -> WriteCase:
    originals = await ids_on(home.id, home.home.checking)
    lines = [
        {
            "date": days_ago(1),
            "amount": "-4.50",
            "payee_name": "Parking Meter",
            "memo": "street",
            "category_id": home.home.dining,
        },
        {"date": days_ago(2), "amount": "20.00", "payee_name": "Cash from Mum", "category_id": None},
    ]
    case = creating(home, lines, originals, approved=True)
    # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: the account, the transactions,
    # approved.
    subject = {
        "account_id": home.home.checking,
        "approved": True,
        "transactions": [
            {
                "date": days_ago(1),
                "amount": -4_500,
                "payee_name": "Parking Meter",
                "memo": "street",
                "category_id": home.home.dining,
            },
            {
                "date": days_ago(2),
                "amount": 20_000,
                "payee_name": "Cash from Mum",
                "memo": None,
                "category_id": None,
            },
        ],
    }

    async def restore() -> None:
        for transaction_id in await ids_on(home.id, home.home.checking) - originals:
            await ynab("DELETE", f"/plans/{home.id}/transactions/{transaction_id}")

    def check_log(op: Operation) -> None:
        assert op.fingerprint == documented_fingerprint(home.id, subject)
        assert op.subject == {  # what the log keeps of it: no payee, memo or amount
            "account_id": home.home.checking,
            "approved": True,
            "transactions": [
                {"date": days_ago(1), "category_id": home.home.dining},
                {"date": days_ago(2), "category_id": None},
            ],
        }
        assert op.undo_data["account_id"] == home.home.checking
        if op.status == "applied":
            assert len(op.undo_data["transactions"]) == 2
            assert all(len(item["digest"]) == 64 for item in op.undo_data["transactions"])
        else:  # no answer: the ids were never learnt
            assert op.undo_data["transactions"] == []

    case.restore = restore
    case.private_values = (*home.private, "Parking Meter", "street", "Cash from Mum", 4_500, 20_000)
    case.check_log = check_log
    return case


# The subject is the arguments alone: nothing YNAB holds makes the same arguments a different change,
# so the plan-changed paths have no case here; test_the_same_request_is_accepted_... covers a change.
PATHS = paths_for("create_transactions", ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for("create_transactions", FAULT_PATHS)


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
async def test_the_same_request_is_accepted_when_a_look_alike_appeared_before_the_answer(case, home, way):
    """docs/confirmation.md#subjects-and-the-fingerprint binds the yes to the account, the transactions and
    approved: a transaction like the first line entered meanwhile (the preview would now say "looks like")
    does not stop it."""
    await before(case)
    entered: list[str] = []

    async def look_alike() -> None:  # same amount, payee the same once normalised, a day apart
        body = {
            "transaction": {
                "account_id": home.home.checking,
                "date": days_ago(2),
                "amount": -4_500,
                "payee_name": "CB PARKING METER 12/01",
            }
        }
        entered.append((await ynab("POST", f"/plans/{home.id}/transactions", json=body))["transaction"]["id"])

    result = await answered_after(way, case, look_alike)

    answer = content(result)
    assert answer["status"] == "applied", answer
    originals = await ids_on(home.id, home.home.checking) - set(answer["created_ids"])
    assert set(entered) <= originals  # the look-alike is there too
    assert await created_on(home.id, home.home.checking, originals) == case.expected_after
    op = await Operation.objects.aget(pk=answer["operation_id"])
    case.check_log(op)


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_log_keeps_each_created_transaction_by_id_and_digest(case, home):
    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    op = await Operation.objects.aget(pk=answer["operation_id"])
    data = await ynab("GET", f"/plans/{home.id}/transactions")
    held = {t["id"]: t for t in data["transactions"]}
    assert answer["created_ids"] == [item["id"] for item in op.undo_data["transactions"]]
    for item in op.undo_data["transactions"]:
        t = held[item["id"]]
        assert item["digest"] == digest(t["date"], t["amount"], t["payee_id"], t["category_id"], t["memo"])
    assert answer["transactions"] == [
        {
            "date": days_ago(1),
            "amount": "-4.50",
            "payee": "Parking Meter",
            "category": "Dining Out",
            "memo": "street",
        },
        {"date": days_ago(2), "amount": "20.00", "payee": "Cash from Mum", "category": None, "memo": None},
    ]
    assert answer["account"] == "Checking"
    assert answer["message"] == (
        f"Created 2 transaction(s). Done as operation {op.pk}; undo_operation with that id reverses it."
    )


async def test_the_preview_names_look_alikes_inflows_and_memos_whole(home):
    originals = await ids_on(home.id, home.home.checking)
    lines = [
        {
            "date": days_ago(1),
            "amount": "-12.34",
            "payee_name": "Corner Cafe",
            "memo": "lunch",
            "category_id": home.home.dining,
        },
        {"date": days_ago(1), "amount": 20, "payee_name": "Cash from Mum"},
        {"date": days_ago(1), "amount": "-3.2", "payee_name": "CB Bakery 12/01", "memo": "bread"},
        {"date": days_ago(3), "amount": "-3.20", "payee_name": "BAKERY", "category_id": home.home.groceries},
    ]
    await make_available(home.id, days_ago(1), home.home.dining, 50_000)
    await make_available(home.id, days_ago(3), home.home.groceries, 2_000)
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, creating(home, lines, originals)))

    dining_month, groceries_month = f"{days_ago(1)[:7]}-01", f"{days_ago(3)[:7]}-01"
    assert person.messages == [
        "Create 4 transaction(s) on Checking?\n"
        f"- {days_ago(1)}; Corner Cafe; 12.34; Dining Out; memo: lunch "
        f"(looks like {days_ago(3)}, CORNER CAFE)\n"
        f"- {days_ago(1)}; Cash from Mum; +20.00; (uncategorised)\n"
        f"- {days_ago(1)}; CB Bakery 12/01; 3.20; (uncategorised); memo: bread "
        f"(looks like {days_ago(3)}, BAKERY)\n"
        f"- {days_ago(3)}; BAKERY; 3.20; Groceries (looks like {days_ago(1)}, CB Bakery 12/01)\n"
        "Available, before → after:\n"
        f"- Groceries for {groceries_month}: 2.00 → -1.20\n"
        f"- Dining Out for {dining_month}: 50.00 → 37.66\n"
        f"This leaves Groceries overspent by 1.20 for {groceries_month}."
    ]
    assert answer["status"] == "applied"


async def test_a_line_dated_exactly_five_years_ago_is_created_as_ynab_takes_it(home):
    """The oldest date accepted is YNAB's own: today five years back (the sandbox refuses older)."""
    originals = await ids_on(home.id, home.home.checking)
    oldest = years_earlier(today(), 5).isoformat()
    case = creating(home, [{"date": oldest, "amount": "-7.00", "payee_name": "Old Receipt"}], originals)

    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "applied", answer
    (created,) = answer["created_ids"]
    held = await ynab("GET", f"/plans/{home.id}/transactions/{created}")
    assert (held["transaction"]["date"], held["transaction"]["amount"]) == (oldest, -7_000)


async def test_twenty_one_lines_show_twenty_then_how_many_more(home):
    originals = await ids_on(home.id, home.home.checking)
    lines = [{"date": days_ago(1), "amount": f"-{n + 1}.05", "payee_name": f"Shop {n}"} for n in range(21)]
    person = says_yes()

    async with connected(MODERN, person) as client:
        content(await call(client, creating(home, lines, originals)))

    shown = person.messages[0].splitlines()
    assert shown[0] == "Create 21 transaction(s) on Checking?"
    assert shown[1:21] == [f"- {days_ago(1)}; Shop {n}; {n + 1}.05; (uncategorised)" for n in range(20)]
    assert shown[21:] == ["… and 1 more"]


@pytest.fixture
def demo(live_service):
    return demo_plan_copy()


async def test_amounts_read_in_the_plans_own_number_format(demo):
    checking = await Account.objects.aget(plan=demo, name="Checking")
    groceries = await Category.objects.aget(plan=demo, name="Groceries")
    await make_available(demo.id, days_ago(1), groceries.id, 1_000_000)
    arguments = {
        "plan_id": demo.id,
        "account_id": checking.id,
        "transactions": [
            {
                "date": days_ago(1),
                "amount": "-1234.5",
                "payee_name": "Garage Dupont",
                "category_id": groceries.id,
            },
            {"date": days_ago(1), "amount": "0.07", "payee_name": "Interest"},
        ],
    }
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await client.call_tool(TOOL, arguments))

    month = f"{days_ago(1)[:7]}-01"
    assert person.messages == [
        "Create 2 transaction(s) on Checking?\n"
        f"- {days_ago(1)}; Garage Dupont; 1234,50; Groceries\n"
        f"- {days_ago(1)}; Interest; +0,07; (uncategorised)\n"
        "Available, before → after:\n"
        f"- Groceries for {month}: 1000,00 → -234,50\n"
        f"This leaves Groceries overspent by 234,50 for {month}."
    ]
    assert [t["amount"] for t in answer["transactions"]] == ["-1234.50", "0.07"]


async def test_a_closed_account_is_refused(demo):
    closed = await Account.objects.aget(plan=demo, closed=True)
    arguments = {
        "plan_id": demo.id,
        "account_id": closed.id,
        "transactions": [{"date": days_ago(1), "amount": "-1.00", "payee_name": "Bank fee"}],
    }
    async with connected(MODERN, says_yes()) as client:
        refused = await client.call_tool(TOOL, arguments)

    assert refused.is_error
    assert refused.content[0].text == (
        f"Account '{closed.id}' is closed, so YNAB takes nothing new on it; "
        "give an open account from list_accounts."
    )


def _line(**fields) -> dict:
    return {"date": days_ago(1), "amount": "-1.00", "payee_name": "Kiosk", **fields}


@pytest.mark.parametrize(
    ("which", "line", "expected"),
    [
        ("unknown account", None, "No account 'a-unknown' in this plan; list_accounts gives the valid ids."),
        (
            "unknown category",
            {"category_id": "c-unknown"},
            "No category 'c-unknown' in this plan; get_category_balances gives the valid ids.",
        ),
        (
            "uncategorized",
            {"category_id": "uncategorized"},
            "Category '{id}' is YNAB's Uncategorized, which means no category: give a category from "
            "get_category_balances.",
        ),
        (
            "card payment",
            {"category_id": "card_payment"},
            "Category '{id}' is a credit card payment category, which YNAB drops from a transaction; give a "
            "spending category from get_category_balances.",
        ),
        (
            "category on a tracking account",
            {"category_id": "groceries"},
            "Transaction 1 has a category, but account '{house}' is a tracking account, and tracking "
            "accounts carry no categories: give category_id null.",
        ),
    ],
)
async def test_what_the_plan_refuses_is_refused_before_asking(shared_home, which, line, expected):
    h = shared_home.home
    account = (
        "a-unknown"
        if line is None
        else (h.house if which == "category on a tracking account" else h.checking)
    )
    fields = dict(line or {})
    if fields.get("category_id") in ("uncategorized", "card_payment", "groceries"):
        fields["category_id"] = getattr(h, fields["category_id"])
    case = creating(shared_home, [_line(**fields)], await ids_on(shared_home.id, h.checking))
    case.arguments["account_id"] = account
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        refused = await call(client, case)

    assert error_text(refused, case) == expected.format(id=fields.get("category_id"), house=h.house)
    assert person.questions == []
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            _line(date=(utc_today() + timedelta(days=2)).isoformat()),
            "Transaction 1 is dated {future}, after today ({today}): YNAB refuses future-dated transactions; "
            "the person can schedule it in YNAB instead.",
        ),
        (
            _line(date="0001-01-01"),
            "Transaction 1 is dated 0001-01-01, more than 5 years ago, which YNAB refuses: give a date "
            "from {oldest} to today ({today}).",
        ),
        (
            _line(date=(years_earlier(utc_today(), 5) - timedelta(days=1)).isoformat()),
            "Transaction 1 is dated {day}, more than 5 years ago, which YNAB refuses: give a date "
            "from {oldest} to today ({today}).",
        ),
        (
            _line(payee_name="Kiosk\u202eevil"),
            "payee_name of transaction 1 contains U+202E (RIGHT-TO-LEFT OVERRIDE), a control or invisible "
            "character: give the text on one line with visible characters only.",
        ),
        (
            _line(payee_name="   "),
            "payee_name of transaction 1 is empty: give at least one visible character.",
        ),
        (
            _line(payee_name="P" * 201),
            "payee_name of transaction 1 is 201 characters long: give at most 200.",
        ),
        (
            _line(memo="line one\nline two"),
            "memo of transaction 1 contains U+000A, a control or invisible character: give the text "
            "on one line with visible characters only.",
        ),
        (_line(memo="m" * 501), "memo of transaction 1 is 501 characters long: give at most 500."),
        (
            _line(amount="1e3"),
            "amount of transaction 1 '1e3' has an exponent (write the number out): give currency units "
            'as a decimal like "-42.50".',
        ),
    ],
)
async def test_what_the_arguments_alone_show_is_refused_before_any_request(shared_home, line, expected):
    case = creating(shared_home, [line], set())
    start = await standing(case)

    async with connected(MODERN, says_yes()) as client:
        refused = await call(client, case)

    # the line's own date (two days ahead when collected: still ahead if midnight passed since)
    oldest = years_earlier(today(), 5).isoformat()
    said = expected.format(future=line["date"], day=line["date"], today=today().isoformat(), oldest=oldest)
    assert error_text(refused, case) == said
    assert await requests_since(start.mark) == []


async def test_an_empty_list_is_refused_by_the_schema(shared_home):
    async with connected(MODERN) as client:
        refused = await client.call_tool(
            TOOL, {"plan_id": shared_home.id, "account_id": shared_home.home.checking, "transactions": []}
        )
    assert refused.is_error
    assert "at least 1 item" in refused.content[0].text
