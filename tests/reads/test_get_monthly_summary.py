"""get_monthly_summary through the SDK's client, checked against the sandbox's own month."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account
from avenir_mcp.values.months import add_months, month_start
from tests.helpers.reads import call
from tests.helpers.results import ok, refusal
from tests.mcp.answers import summary as summary_line
from tests.reads.month_truth import SandboxPlan, is_internal, milliunits
from tests.sandbox.plans import SmallPlan, small_plan
from tests.writes.checks import sandbox_http

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("months_back", [0, 1, 4])
async def test_it_gives_the_months_totals_and_age_of_money_as_the_sandbox_has_them(
    demo_plan, sandbox, months_back
):
    month = add_months(month_start(timezone.localdate()), -months_back)
    truth = await sandbox.month(month)

    result = ok(await call("get_monthly_summary", plan_id=demo_plan.id, month=month.isoformat()))

    assert (result["plan_id"], result["month"]) == (demo_plan.id, month.isoformat())
    assert {
        "income": milliunits(result["income"]),
        "budgeted": milliunits(result["assigned"]),
        "activity": milliunits(result["activity"]),
        "to_be_budgeted": milliunits(result["ready_to_assign"]),
        "age_of_money": result["age_of_money"],
    } == {key: truth[key] for key in ("income", "budgeted", "activity", "to_be_budgeted", "age_of_money")}


async def test_overspent_lists_every_category_below_zero_the_most_overspent_first(demo_plan, sandbox):
    truth, groups = await sandbox.month("current"), await sandbox.groups()
    expected = {
        category["id"]: category["balance"]
        for category in truth["categories"]
        if category["balance"] < 0 and not is_internal(category, groups) and not category["deleted"]
    }

    result = ok(await call("get_monthly_summary", plan_id=demo_plan.id))

    overspent = {row["category_id"]: milliunits(row["available"]) for row in result["overspent"]}
    assert expected, "the demo has an overspent category"
    assert overspent == expected
    assert result["overspent_count"] == len(expected)
    assert list(overspent.values()) == sorted(overspent.values())


async def test_its_text_is_one_line_with_the_figures_in_the_plans_own_format(demo_plan, sandbox):
    result = await call("get_monthly_summary", plan_id=demo_plan.id, month="current")
    summary = ok(result)
    separator = (await sandbox.get("/settings"))["settings"]["currency_format"]["decimal_separator"]

    def shown(amount: str) -> str:
        return amount.replace(".", separator)

    assert separator == ",", "the demo plan writes amounts with a decimal comma"
    assert summary["age_of_money"] is not None
    count = summary["overspent_count"]
    assert count >= 1, "the demo overspends Dining Out"
    overspent = "1 overspent category" if count == 1 else f"{count} overspent categories"
    pending = summary["uncategorised"]
    waiting = {
        0: "0 uncategorised transactions",
        1: f"1 uncategorised transaction ({shown(pending['amount'])})",
    }.get(pending["count"], f"{pending['count']} uncategorised transactions ({shown(pending['amount'])})")
    assert summary_line(result) == (
        f"{summary['month']}: income {shown(summary['income'])}; assigned {shown(summary['assigned'])}; "
        f"activity {shown(summary['activity'])}; spending {shown(summary['spending'])}; Ready to Assign "
        f"{shown(summary['ready_to_assign'])}; age of money {summary['age_of_money']} days; {waiting}; "
        f"{overspent}."
    )


async def test_an_overspent_hidden_category_still_shows(own_demo_plan, own_sandbox):
    before = await own_sandbox.month("current")
    hidden = next(category for category in before["categories"] if category["name"] == "Old Gym Membership")
    await own_sandbox.assign("current", hidden["id"], hidden["budgeted"] - 12_340)
    after = next(
        category
        for category in (await own_sandbox.month("current"))["categories"]
        if category["id"] == hidden["id"]
    )

    result = ok(await call("get_monthly_summary", plan_id=own_demo_plan.id))

    assert hidden["hidden"]
    assert after["balance"] < 0
    listed = {row["category_id"]: row for row in result["overspent"]}
    assert listed[hidden["id"]]["name"] == "Old Gym Membership"
    assert milliunits(listed[hidden["id"]]["available"]) == after["balance"]


@pytest.mark.parametrize("month", ["2026-13", "last month", "2026-09-02"])
async def test_it_refuses_a_month_it_cannot_read_before_any_ynab_request(demo_plan, ynab_requests, month):
    result = await call("get_monthly_summary", plan_id=demo_plan.id, month=month)

    assert refusal(result).startswith("Month ")
    assert await ynab_requests() == []


async def test_it_refuses_a_month_after_the_plans_last_one(demo_plan, sandbox):
    first, last = await sandbox.months_held()
    after = add_months(month_start(timezone.localdate()), 12).isoformat()

    result = await call("get_monthly_summary", plan_id=demo_plan.id, month=after[:7])

    assert refusal(result).endswith(
        f"Month {after} is outside this plan: give a month from {first} to {last}."
    )


def month_by_hand() -> SmallPlan:
    """A small household whose month is worked out by hand below, arranged over the sandbox's API."""
    home = small_plan("Summary by hand")
    today = utc_today()
    last_month = today.replace(day=1) - timedelta(days=1)
    savings_payee = Account.objects.get(pk=home.savings).transfer_payee_id
    card_payee = Account.objects.get(pk=home.card).transfer_payee_id
    with sandbox_http() as http:

        def add(day=today, **fields) -> str:
            answer = http.post(
                f"/plans/{home.id}/transactions", json={"transaction": {"date": day.isoformat(), **fields}}
            )
            assert answer.status_code == 201, answer.text
            return answer.json()["data"]["transaction"]["id"]

        checking, card = home.checking, home.card
        # Spending: Groceries -50.00 + 5.00 refund - 20.00 (split line), Dining Out -30.00 on the
        # card, Rent -10.00 (split line): -105.00. The card purchase also moves +30.00 into the
        # card's payment category, which YNAB's activity adds; spending leaves it out.
        add(
            account_id=checking, amount=1_000_000, payee_name="ACME PAYROLL", category_id=home.ready_to_assign
        )
        add(account_id=checking, amount=-50_000, payee_name="MARKET", category_id=home.groceries)
        add(account_id=checking, amount=5_000, payee_name="MARKET", category_id=home.groceries)
        add(account_id=card, amount=-30_000, payee_name="BISTRO", category_id=home.dining)
        add(
            account_id=checking,
            amount=-30_000,
            payee_name="BIG STORE",
            subtransactions=[
                {"amount": -20_000, "category_id": home.groceries},
                {"amount": -10_000, "category_id": home.rent},
            ],
        )
        add(account_id=checking, amount=-20_000, payee_id=card_payee)  # pays the card: a transfer
        # Pending (docs/conventions.md#heuristics): -12.34 and +7.00 on checking, -8.00 on the card: 3,
        # -13.34.
        add(account_id=checking, amount=-12_340, payee_name="CB SHOP 0912")
        add(account_id=checking, amount=7_000, payee_name="REFUND SHOP")
        add(account_id=card, amount=-8_000, payee_name="KIOSK", category_id=home.uncategorized)
        # Not pending: a transfer, a tracking account's, a deleted one, one of last month.
        add(account_id=checking, amount=-100_000, payee_id=savings_payee)
        add(account_id=home.house, amount=-500_000, payee_name="ROOFER")
        gone = add(account_id=checking, amount=-99_000, payee_name="TYPO")
        assert http.delete(f"/plans/{home.id}/transactions/{gone}").status_code == 200
        add(day=last_month, account_id=checking, amount=-40_000, payee_name="OLD SHOP")
        add(
            day=last_month,
            account_id=checking,
            amount=-40_000,
            payee_name="MARKET",
            category_id=home.groceries,
        )
    return home


async def test_spending_counts_a_card_purchase_once_and_uncategorised_names_the_pending_ones(sandbox_url):
    home = await sync_to_async(month_by_hand)()
    truth = await SandboxPlan(sandbox_url, home.id).month(home.this_month)

    summary = ok(await call("get_monthly_summary", plan_id=home.id, month=home.this_month.isoformat()))

    assert summary["spending"] == "-105.00"
    assert summary["uncategorised"] == {"count": 3, "amount": "-13.34"}
    assert milliunits(summary["activity"]) == truth["activity"]
    assert summary["income"] == "1000.00"
