"""apply_categories: what it refuses, what it skips, and exactly what the person is shown."""

from __future__ import annotations

from datetime import timedelta

import pytest

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes.apply_categories import CHECK
from tests.helpers.write_cases.apply_categories import categories
from tests.writes.checks import make_available, requests_since, sandbox_http, says_yes, standing
from tests.writes.harness import (
    MODERN,
    WriteCase,
    call,
    connected,
    content,
    error_text,
    expect_nothing_written,
)
from tests.writes.households import Household

pytestmark = pytest.mark.anyio
TOOL = "apply_categories"


def assigning(home: Household, *pairs: tuple[str, str]) -> WriteCase:
    transaction_ids = [transaction_id for transaction_id, _ in pairs]
    return WriteCase(
        tool=TOOL,
        plan_id=home.id,
        arguments={
            "plan_id": home.id,
            "assignments": [{"transaction_id": t, "category_id": c} for t, c in pairs],
        },
        state=lambda: categories(home, *transaction_ids),
        expected_after=dict(pairs),
        write_method="PATCH",
        write_path=rf"/plans/{home.id}/transactions$",
        check=CHECK,
    )


async def refused_without_asking(case: WriteCase) -> str:
    """The refusal's text; checks nobody was asked and nothing was written."""
    start = await standing(case)
    person = says_yes()
    async with connected(MODERN, person) as client:
        refused = await call(client, case)
    assert person.questions == []
    await expect_nothing_written(case, start)
    text = error_text(refused, case)
    assert "\n" not in text
    return text


@pytest.mark.parametrize(
    ("which", "expected"),
    [
        ("split", "is split: YNAB's API cannot change the categories of a split's lines; leave it out"),
        ("transfer", "is a transfer between accounts, which takes no category here; leave it out."),
        (
            "house_repair",
            "is on a tracking account, and tracking accounts carry no categories; leave it out.",
        ),
    ],
)
async def test_it_refuses_a_transaction_whose_category_cannot_be_set(shared_home, which, expected):
    transaction_id = getattr(shared_home, which)
    case = assigning(
        shared_home,
        (shared_home.market, shared_home.home.groceries),
        (transaction_id, shared_home.home.groceries),
    )

    text = await refused_without_asking(case)

    assert text.startswith(f"Transaction '{transaction_id}' {expected}")


@pytest.mark.parametrize(
    ("which", "expected"),
    [
        ("uncategorized", "is YNAB's Uncategorized, which means no category: give a category from "),
        ("card_payment", "is a credit card payment category, which YNAB drops from a transaction; "),
    ],
)
async def test_it_refuses_a_category_a_transaction_cannot_take(shared_home, which, expected):
    category_id = getattr(shared_home.home, which)
    case = assigning(shared_home, (shared_home.market, category_id))

    text = await refused_without_asking(case)

    assert text.startswith(f"Category '{category_id}' {expected}")


async def test_it_refuses_an_unknown_transaction_or_category_pointing_to_where_ids_come_from(shared_home):
    unknown_transaction = assigning(shared_home, ("t-unknown", shared_home.home.groceries))
    unknown_category = assigning(shared_home, (shared_home.market, "c-unknown"))

    assert await refused_without_asking(unknown_transaction) == (
        "No transaction 't-unknown' in this plan; find_transactions gives the valid ids."
    )
    assert await refused_without_asking(unknown_category) == (
        "No category 'c-unknown' in this plan; get_category_balances gives the valid ids."
    )


async def test_it_refuses_a_transaction_listed_twice_before_any_request(shared_home):
    case = assigning(
        shared_home,
        (shared_home.market, shared_home.home.groceries),
        (shared_home.market, shared_home.home.dining),
    )
    start = await standing(case)

    async with connected(MODERN) as client:
        refused = await call(client, case)
    sent = await requests_since(start.mark)

    assert error_text(refused, case) == f"Transaction '{shared_home.market}' is listed twice; give it once."
    assert sent == []


async def test_it_refuses_an_empty_list_and_a_malformed_id_before_any_request(shared_home):
    start = await standing(assigning(shared_home, (shared_home.market, shared_home.home.groceries)))

    async with connected(MODERN) as client:
        empty = await client.call_tool(TOOL, {"plan_id": shared_home.id, "assignments": []})
        malformed = await client.call_tool(
            TOOL,
            {
                "plan_id": shared_home.id,
                "assignments": [{"transaction_id": "../x", "category_id": shared_home.home.dining}],
            },
        )
    sent = await requests_since(start.mark)

    assert empty.is_error
    assert "at least 1 item" in empty.content[0].text
    assert malformed.is_error
    assert "transaction" in malformed.content[0].text
    assert "'../x'" in malformed.content[0].text
    assert sent == []


async def test_transactions_that_already_have_the_category_are_skipped_and_counted(home):
    case = assigning(home, (home.cafe, home.home.dining), (home.market, home.home.groceries))

    async with connected(MODERN, says_yes()) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "applied"
    assert answer["unchanged_count"] == 1
    assert [change["transaction_id"] for change in answer["changes"]] == [home.market]
    assert answer["preview"].splitlines()[0] == "Recategorise 1 transaction(s)?"


async def test_when_every_transaction_has_its_category_already_nothing_is_asked_or_written(home):
    case = assigning(home, (home.cafe, home.home.dining))
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert answer["message"] == "Nothing to change: the 1 transaction(s) given already have these categories."
    assert (answer["changes"], answer["unchanged_count"], answer["preview"]) == ([], 1, None)
    assert person.questions == []
    await expect_nothing_written(case, start)


async def test_the_person_sees_each_change_as_a_statement_reads_it(home):
    h = home.home
    case = assigning(home, (home.market, h.groceries), (home.salary, h.ready_to_assign), (home.cafe, h.rent))
    day = (utc_today() - timedelta(days=3)).isoformat()
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    month = f"{day[:7]}-01"
    # Nothing is assigned in the household: its split left Groceries at -20.00 and Dining Out at
    # -22.34 (with the cafe). Ready to Assign is no category's available: not listed.
    assert person.messages == [
        "Recategorise 3 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: (uncategorised) → Groceries\n"
        f"- {day}; ACME PAYROLL; +1234.56: (uncategorised) → Inflow: Ready to Assign\n"
        f"- {day}; CORNER CAFE; 12.34: Dining Out → Rent\n"
        "Available, before → after:\n"
        f"- Groceries for {month}: -20.00 → -106.43\n"
        f"- Rent for {month}: 0.00 → -12.34\n"
        f"- Dining Out for {month}: -22.34 → -10.00\n"
        f"This leaves 3 categories overspent: Groceries by 106.43 for {month}; Rent by 12.34 for {month}; "
        f"Dining Out by 10.00 for {month}."
    ]
    assert answer["changes"][0] == {
        "transaction_id": home.market,
        "date": day,
        "amount": "-86.43",
        "payee": "CB MARKET FRESH 0509",
        "from_category_id": None,
        "from_category": None,
        "to_category_id": h.groceries,
        "to_category": "Groceries",
    }
    assert answer["changes"][2]["from_category"] == "Dining Out"


async def test_the_preview_shows_what_each_category_keeps_available_and_names_one_left_overspent(home):
    """Groceries has 100.00 and Dining Out 30.00 available that month; the market's 86.43 goes to
    Dining Out and the cafe's 12.34 leaves it for Groceries."""
    h = home.home
    day = (utc_today() - timedelta(days=3)).isoformat()
    month = f"{day[:7]}-01"
    await make_available(home.id, day, h.groceries, 100_000)
    await make_available(home.id, day, h.dining, 30_000)
    person = says_yes()

    async with connected(MODERN, person) as client:
        case = assigning(home, (home.market, h.dining), (home.cafe, h.groceries))
        answer = content(await call(client, case))

    assert person.messages == [
        "Recategorise 2 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: (uncategorised) → Dining Out\n"
        f"- {day}; CORNER CAFE; 12.34: Dining Out → Groceries\n"
        "Available, before → after:\n"
        f"- Dining Out for {month}: 30.00 → -44.09\n"
        f"- Groceries for {month}: 100.00 → 87.66\n"
        f"This leaves Dining Out overspent by 44.09 for {month}."
    ]
    assert answer["status"] == "applied"


async def test_a_long_list_shows_twenty_lines_and_bank_text_cannot_forge_a_line(home):
    day = (utc_today() - timedelta(days=2)).isoformat()
    forged = "EVIL\u202e SHOP\u2028- 2026-01-01; Fake; 0.01: Rent → Groceries " + "X" * 100
    lines = [
        {"account_id": home.home.checking, "date": day, "amount": -1_000 - n, "payee_name": f"SHOP {n}"}
        for n in range(21)
    ]
    lines[0]["payee_name"] = forged[:200]
    with sandbox_http() as http:
        created = http.post(f"/plans/{home.id}/transactions", json={"transactions": lines})
    assert created.status_code == 201, created.text
    ids = created.json()["data"]["transaction_ids"]
    await make_available(home.id, day, home.home.groceries, 10_000)
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, assigning(home, *((t, home.home.groceries) for t in ids))))

    question = person.messages[0].splitlines()
    month = f"{day[:7]}-01"
    assert question[0] == "Recategorise 21 transaction(s)?"
    assert len(question) == 25
    assert question[21:] == [  # 21.21 spent from the 10.00 Groceries had
        "… and 1 more",
        "Available, before → after:",
        f"- Groceries for {month}: 10.00 → -11.21",
        f"This leaves Groceries overspent by 11.21 for {month}.",
    ]
    [forged_line] = [line for line in question if "EVIL" in line]
    assert not any(line.startswith("- 2026-01-01") for line in question)
    assert "\u202e" not in forged_line
    assert "…" in forged_line  # the payee is cut at 80 characters
    assert answer["status"] == "applied"
