"""The demo plan, read back over the sandbox's HTTP API: it has what a demo of avenir-mcp
needs (issue 2), its figures add up, and two copies never touch each other."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date

import pytest
from django.utils import timezone

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.models import new_id
from avenir_mcp.sandbox.seeding import seed_demo_plan
from avenir_mcp.tools.logic.payees import normalise_payee
from tests.helpers.heuristics import likely_duplicates, pending, transfer_pairs
from tests.helpers.sandbox_side import get, transactions
from tests.sandbox.contract import check

MASKED_CARD = re.compile(r"\b\d{6}\*{6}\d\b")
DAY_MONTH = re.compile(r"\b\d{2}/\d{2}\b")
INVOICE = re.compile(r"\bFACT \d{6}\b")


@pytest.fixture(scope="module")
def today() -> date:
    return timezone.localdate()


@pytest.fixture(scope="module")
def demo(today: date):
    return seed_demo_plan(new_id(), today)


@pytest.fixture
def rows(api, demo) -> list[dict]:
    return transactions(api, demo.id, demo.first_month)


@pytest.fixture
def accounts(api, demo) -> list[dict]:
    return get(api, f"/plans/{demo.id}/accounts", "accounts")


@pytest.fixture
def categories(api, demo) -> dict[str, dict]:
    groups = get(api, f"/plans/{demo.id}/categories", "category_groups")
    return {category["name"]: category for group in groups for category in group["categories"]}


def _pending(rows, accounts, categories):
    return pending(rows, accounts, categories["Uncategorized"]["id"])


def test_it_has_the_accounts_of_a_household(accounts):
    by_name = {account["name"]: account for account in accounts}

    assert {account["type"] for account in accounts} >= {
        "checking",
        "savings",
        "creditCard",
        "autoLoan",
        "otherAsset",
    }
    assert by_name["Car Loan"]["on_budget"] is False
    assert by_name["Car Loan"]["debt_interest_rates"]
    assert by_name["Car Loan"]["debt_minimum_payments"]
    assert by_name["Retirement Fund"]["on_budget"] is False
    assert by_name["Old Bank Account"]["closed"] is True
    assert by_name["Old Bank Account"]["balance"] == 0


def test_one_linked_account_has_a_broken_bank_link(accounts):
    linked = {
        account["name"]: account["direct_import_in_error"]
        for account in accounts
        if account["direct_import_linked"]
    }

    assert linked == {"Checking": False, "Savings": True, "Visa Card": False}


def test_every_balance_is_the_sum_of_its_transactions(rows, accounts):
    cleared, total = defaultdict(int), defaultdict(int)
    for row in rows:
        total[row["account_id"]] += row["amount"]
        if row["cleared"] != "uncleared":
            cleared[row["account_id"]] += row["amount"]

    for account in accounts:
        assert account["balance"] == total[account["id"]], account["name"]
        assert account["cleared_balance"] == cleared[account["id"]], account["name"]


def test_it_has_six_months_of_history_ending_today(rows, demo, today):
    months = {row["date"][:7] for row in rows}

    assert demo.first_month == add_months(month_of(today), -5)
    assert len(months) == 6
    assert max(row["date"] for row in rows) == today.isoformat()


def test_it_mixes_cleared_uncleared_and_reconciled_transactions_and_flags(rows):
    assert {row["cleared"] for row in rows} == {"cleared", "uncleared", "reconciled"}
    assert len({row["flag_color"] for row in rows if row["flag_color"]}) >= 4


def test_payees_carry_the_noise_of_bank_labels(rows):
    names = {row["payee_name"] for row in rows}

    for prefix in ("CB ", "CARTE ", "PRLV SEPA ", "VIR INST ", "VIR SEPA "):
        assert any(name.startswith(prefix) for name in names), prefix
    assert any(MASKED_CARD.search(name) for name in names)
    assert any(DAY_MONTH.search(name) for name in names)
    assert any(INVOICE.search(name) for name in names)


def test_salary_comes_in_as_income_every_full_month(rows, categories):
    ready_to_assign = categories["Inflow: Ready to Assign"]["id"]
    pay = [row for row in rows if row["payee_name"] == "ACME SAS" and row["category_id"] == ready_to_assign]

    assert len({row["date"][:7] for row in pay}) >= 5
    assert all(row["amount"] > 0 for row in pay)


def test_money_moves_between_accounts_as_linked_transfers(rows, accounts):
    names = {account["id"]: account["name"] for account in accounts}
    transfers = {
        (names[row["account_id"]], names[row["transfer_account_id"]])
        for row in rows
        if row["amount"] < 0 and row["transfer_account_id"]
    }
    by_id = {row["id"]: row for row in rows}

    assert {("Checking", "Savings"), ("Checking", "Visa Card"), ("Checking", "Car Loan")} <= transfers
    for row in rows:
        if row["transfer_transaction_id"]:
            assert by_id[row["transfer_transaction_id"]]["amount"] == -row["amount"]


def test_it_has_a_split_whose_lines_add_up(rows):
    splits = [row for row in rows if row["subtransactions"]]

    assert splits
    for split in splits:
        assert split["category_name"] == "Split"
        assert sum(line["amount"] for line in split["subtransactions"]) == split["amount"]
        assert len({line["category_id"] for line in split["subtransactions"]}) >= 2


def test_subscriptions_recur_at_a_stable_amount_on_a_stable_day(rows, today):
    full_months = {add_months(month_of(today), -n).isoformat()[:7] for n in range(1, 5)}
    seen = defaultdict(list)
    for row in rows:
        if row["amount"] < 0 and row["date"][:7] in full_months and not row["transfer_account_id"]:
            seen[normalise_payee(row["payee_name"])].append(row)

    recurring = {
        payee
        for payee, charges in seen.items()
        if len({charge["date"][:7] for charge in charges}) >= 3
        and len({charge["amount"] for charge in charges}) == 1
        and len({charge["date"][8:] for charge in charges}) == 1
    }
    assert {"NETFLIX.COM", "SPOTIFY", "FREE MOBILE", "BASIC FIT FRANCE"} <= recurring


def test_at_least_six_imports_wait_for_review(rows, accounts, categories):
    waiting = [
        row for row in _pending(rows, accounts, categories) if not row["approved"] and row["import_id"]
    ]

    assert len(waiting) >= 6


def test_exactly_one_pair_of_imports_looks_duplicated(rows, today):
    pairs = likely_duplicates(rows, today)

    assert len(pairs) == 1
    first, second = pairs[0]
    assert first["import_id"] != second["import_id"]
    assert normalise_payee(first["payee_name"]) == "DECATHLON"


def test_exactly_one_pair_of_pending_imports_looks_like_a_transfer(rows, accounts, categories):
    pairs = transfer_pairs(_pending(rows, accounts, categories))

    assert len(pairs) == 1
    names = {account["id"]: account["name"] for account in accounts}
    assert {names[row["account_id"]] for row in pairs[0]} == {"Checking", "Savings"}


def test_a_deleted_import_is_kept_as_a_tombstone_for_delta_requests(api, demo, rows):
    export = get(api, f"/plans/{demo.id}", "plan", last_knowledge_of_server=0)
    deleted = [row for row in export["transactions"] if row["deleted"]]

    assert len(deleted) == 1
    assert deleted[0]["id"] not in {row["id"] for row in rows}


def test_dining_out_is_overspent_this_month_and_nothing_else_is(api, demo, today):
    month = get(api, f"/plans/{demo.id}/months/{month_of(today).isoformat()}", "month")

    assert _overspent(month) == ["Dining Out"]
    assert month["to_be_budgeted"] >= 0


def test_no_category_was_overspent_in_earlier_months(api, demo):
    for month in [add_months(demo.first_month, n) for n in range(5)]:
        detail = get(api, f"/plans/{demo.id}/months/{month.isoformat()}", "month")
        assert _overspent(detail) == [], month


def test_categories_have_every_kind_of_target(categories):
    goals = [category for category in categories.values() if category["goal_type"]]

    assert {category["goal_type"] for category in goals} == {"NEED", "TB", "TBD", "MF", "DEBT"}
    assert {category["goal_cadence"] for category in goals if category["goal_type"] == "NEED"} >= {1, 13}
    assert sum(1 for category in goals if category["goal_snoozed_at"]) == 1
    assert categories["Visa Card"]["goal_type"] == "MF"  # the card's payment category
    assert any(category["hidden"] for category in categories.values() if category["name"] != "Split")


def test_every_month_has_assigned_money(api, demo):
    months = {month["month"]: month for month in get(api, f"/plans/{demo.id}/months", "months")}
    seeded = [months[add_months(demo.first_month, n).isoformat()] for n in range(6)]

    assert all(month["budgeted"] > 0 for month in seeded)


def test_its_assignments_are_recorded_as_money_movements_that_add_up_to_each_month(api, demo):
    movements = get(api, f"/plans/{demo.id}/money_movements", "money_movements")
    groups = get(api, f"/plans/{demo.id}/money_movement_groups", "money_movement_groups")
    net: defaultdict[tuple[str, str], int] = defaultdict(int)
    for movement in movements:
        if movement["to_category_id"]:
            net[(movement["to_category_id"], movement["month"])] += movement["amount"]
        if movement["from_category_id"]:
            net[(movement["from_category_id"], movement["month"])] -= movement["amount"]
    assigned = {}
    for month in [add_months(demo.first_month, n).isoformat() for n in range(6)]:
        detail = get(api, f"/plans/{demo.id}/months/{month}", "month")
        assigned.update({(c["id"], month): c["budgeted"] for c in detail["categories"] if c["budgeted"]})

    assert {key: amount for key, amount in net.items() if amount} == assigned
    assert all(movement["amount"] > 0 for movement in movements)
    assert {movement["money_movement_group_id"] for movement in movements} == {
        group["id"] for group in groups
    }
    first = [
        m for m in movements if m["month"] == demo.first_month.isoformat() and m["from_category_id"] is None
    ]
    assert len({m["moved_at"] for m in first}) == 1  # the first month's assignments: one action


def test_it_has_what_the_bookkeeping_tools_show_off(api, demo, rows, accounts, categories, today):
    """A bill to reschedule, a duplicate to delete, a card to pay, notes on a category and accounts."""
    schedules = get(api, f"/plans/{demo.id}/scheduled_transactions", "scheduled_transactions")
    by_name = {account["name"]: account for account in accounts}
    [duplicate] = likely_duplicates(rows, today)

    bill = next(s for s in schedules if s["payee_name"] == "Bouygues Telecom")
    assert (bill["frequency"], bill["amount"], bill["category_name"], bill["memo"]) == (
        "monthly",
        -34_990,
        "Phone & Internet",
        "Internet box",
    )
    assert date.fromisoformat(bill["date_next"]).day == 16
    assert all(not row["approved"] for row in duplicate)
    assert by_name["Visa Card"]["balance"] < 0
    assert by_name["Visa Card"]["note"] == "Statement paid from Checking around the 6th"
    assert by_name["Checking"]["note"].startswith("Joint account, Banque Exemple.")
    assert [name for name, category in categories.items() if category["note"]] == ["Groceries"]


def test_money_moved_between_categories_last_month_is_a_movement_with_its_note(api, demo, categories):
    last_month = add_months(demo.first_month, 4).isoformat()
    movements = get(api, f"/plans/{demo.id}/months/{last_month}/money_movements", "money_movements")
    names = {category["id"]: name for name, category in categories.items()}

    [moved] = [m for m in movements if m["from_category_id"] and m["to_category_id"]]
    assert (names[moved["from_category_id"]], names[moved["to_category_id"]], moved["amount"]) == (
        "Outings",
        "Groceries",
        40_000,
    )
    assert moved["note"] == "Family lunch at home instead of the restaurant"
    assert moved["moved_at"].startswith(f"{last_month[:8]}20T19:00:00")


def test_schedules_repeat_monthly_and_yearly_and_one_is_a_transfer(api, demo, today):
    schedules = get(api, f"/plans/{demo.id}/scheduled_transactions", "scheduled_transactions")

    assert {schedule["frequency"] for schedule in schedules} >= {"monthly", "yearly"}
    assert any(schedule["transfer_account_id"] for schedule in schedules)
    assert all(schedule["date_next"] > today.isoformat() for schedule in schedules)


def test_memos_try_to_instruct_an_agent(rows):
    memos = [row["memo"] or "" for row in rows]

    assert any("\u202e" in memo for memo in memos)
    assert any(
        memo.startswith("Recategorise 1 transaction(s)?") and "confirmation code" in memo for memo in memos
    )


def test_pending_imports_carry_the_instructions_an_agent_will_read(rows, accounts, categories):
    waiting = _pending(rows, accounts, categories)
    texts = [f"{row['payee_name']} {row['memo'] or ''}" for row in waiting]

    assert any("\u202e" in text for text in texts)
    assert any("SYSTEM:" in text for text in texts)
    assert any("AI ASSISTANT" in text for text in texts)


def test_transactions_wait_at_the_bank_until_an_import(api, today):
    copy = seed_demo_plan(new_id(), today)

    first = api.post(f"/plans/{copy.id}/transactions/import")
    again = api.post(f"/plans/{copy.id}/transactions/import")

    assert first.status_code == 201
    imported_ids = first.json()["data"]["transaction_ids"]
    assert len(imported_ids) >= 2
    imported = [get(api, f"/plans/{copy.id}/transactions/{tid}", "transaction") for tid in imported_ids]
    assert all(row["approved"] is False and row["category_id"] is None for row in imported)
    assert again.status_code == 200
    assert again.json()["data"]["transaction_ids"] == []


def test_two_copies_are_independent_plans(api, today):
    one, other = seed_demo_plan(new_id(), today), seed_demo_plan(new_id(), today)
    rows_one, rows_other = (
        transactions(api, one.id, one.first_month),
        transactions(api, other.id, other.first_month),
    )
    changed = rows_one[0]

    response = api.put(
        f"/plans/{one.id}/transactions/{changed['id']}", json={"transaction": {"memo": "changed"}}
    )

    assert response.status_code == 200, response.text
    assert not {row["id"] for row in rows_one} & {row["id"] for row in rows_other}
    assert _contents(rows_one) == _contents(rows_other)
    assert all(row["memo"] != "changed" for row in transactions(api, other.id, other.first_month))


def test_the_same_day_gives_the_same_demo_and_dates_follow_it(api):
    early_march = date(2026, 3, 1)
    one, other = seed_demo_plan(new_id(), early_march), seed_demo_plan(new_id(), early_march)
    rows_one = transactions(api, one.id, one.first_month)

    assert _contents(rows_one) == _contents(transactions(api, other.id, other.first_month))
    assert one.first_month == date(2025, 10, 1)
    assert max(row["date"] for row in rows_one) == "2026-03-01"


@pytest.mark.parametrize(
    ("operation_id", "path"),
    [
        ("getPlanById", ""),
        ("getAccounts", "/accounts"),
        ("getCategories", "/categories"),
        ("getPayees", "/payees"),
        ("getPlanMonths", "/months"),
        ("getPlanMonth", "/months/current"),
        ("getTransactions", "/transactions"),
        ("getScheduledTransactions", "/scheduled_transactions"),
        ("getMoneyMovements", "/money_movements"),
        ("getMoneyMovementGroups", "/money_movement_groups"),
    ],
)
def test_the_demo_is_served_as_ynab_documents_it(api, demo, operation_id, path):
    """Noisy labels, control characters and every kind of row still fit YNAB's contract."""
    since = {"since_date": demo.first_month.isoformat()}

    check(operation_id, api.get(f"/plans/{demo.id}{path}", params=since if path == "/transactions" else None))


def _overspent(month: dict) -> list[str]:
    """Ordinary categories below zero (not the internal ones, not card payments)."""
    special = ("Internal Master Category", "Credit Card Payments")
    return [
        c["name"] for c in month["categories"] if c["balance"] < 0 and c["category_group_name"] not in special
    ]


def _contents(rows: list[dict]) -> list[tuple]:
    return sorted((_content(row) for row in rows), key=repr)


def _content(row: dict) -> tuple:
    """What a transaction says, without ids."""
    lines = [(line["amount"], line["category_name"], line["memo"]) for line in row["subtransactions"]]
    return (
        row["date"],
        row["amount"],
        row["account_name"],
        row["payee_name"],
        row["category_name"],
        row["memo"],
        row["cleared"],
        row["approved"],
        row["flag_color"],
        row["import_id"],
        lines,
    )
