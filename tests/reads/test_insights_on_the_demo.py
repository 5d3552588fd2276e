"""Each computed read has something to say about the demo household: its pay, bills, loan,
card, targets and closed account are there for this."""

from __future__ import annotations

import pytest

from tests.helpers.reads import call
from tests.helpers.results import ok

pytestmark = pytest.mark.anyio


async def test_the_demo_answers_every_question(demo_plan):
    def ask(tool: str, **arguments):
        return call(tool, plan_id=demo_plan.id, **arguments)

    forecast = ok(await ask("forecast_balance"))
    assert forecast["accounts"] == ["Checking", "Savings"]
    assert {"Foncia (rent)", "ACME SAS"} <= {s["payee"] for s in forecast["assumptions"]["scheduled"]}
    assert forecast["assumptions"]["recurring"]

    recurring = ok(await ask("find_recurring_charges", include_income=True))
    payees = [charge["payee"] for charge in recurring["charges"]]
    assert {"FONCIA (RENT)", "NETFLIX.COM", "SPOTIFY", "FREE MOBILE"} <= set(payees)
    income = [c["payee"] for c in recurring["charges"] if not c["monthly_amount"].startswith("-")]
    assert payees[-len(income) :] == income
    assert income[0] == "ACME SAS"

    worth = ok(await ask("get_net_worth_trend"))
    # The old bank account was emptied on day 3 of the first month: it held nothing at a month's end.
    assert [a["name"] for a in worth["accounts"]] == [
        "Checking",
        "Savings",
        "Visa Card",
        "Car Loan",
        "Retirement Fund",
    ]
    assert len(worth["months"]) == 6

    runway = ok(await ask("get_runway", essential_groups=["Bills", "Everyday"]))
    assert runway["runway_months"] > 0
    assert runway["essential"]["runway_months"] > runway["runway_months"]

    savings = ok(await ask("get_savings_rate"))
    assert savings["rate"] is not None
    assert savings["moved_to_tracking"] != "0.00"

    targets = ok(await ask("get_underfunded_targets", month="next"))
    assert targets["targets"]
    assert "1 snoozed target left out." in targets["notes"]

    debts = ok(
        await ask("get_debt_payoff_plan", overrides=[{"account": "Visa Card", "interest_rate": "21.5"}])
    )
    assert [d["name"] for d in debts["debts"]] == ["Car Loan", "Visa Card"]
    assert all(plan["debt_free_month"] for plan in debts["plans"])

    age = ok(await ask("get_age_of_money"))
    assert age["days"] is not None
    assert age["trend"] is not None
