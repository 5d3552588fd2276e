"""tools.logic.net_worth: balances at month ends, worked back from today's balances."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.net_worth import balances_at_month_ends, net_worth_by_month
from tests.logic.plan_rows import account, snapshot, transaction

JAN, FEB, MAR, APR = (date(2026, month, 1) for month in (1, 2, 3, 4))


def test_months_before_the_first_transaction_show_what_the_accounts_held_before_it():
    plan = snapshot(
        accounts=[
            account("checking", balance=700_000),
            account("card", "Visa", type="creditCard", balance=-50_000),
        ],
        transactions=[
            transaction("t1", "checking", "2026-03-10", 200_000),
            transaction("t2", "card", "2026-03-12", -50_000),
            transaction("t3", "checking", "2026-04-02", -100_000),
        ],
    )

    balances = balances_at_month_ends(plan, [JAN, FEB, MAR, APR])
    worth, counted = net_worth_by_month(plan, [JAN, FEB, MAR, APR])

    assert balances == {
        "checking": [600_000, 600_000, 800_000, 700_000],
        "card": [0, 0, -50_000, -50_000],
    }
    assert [(w.assets, w.debts, w.net_worth) for w in worth] == [
        (600_000, 0, 600_000),
        (600_000, 0, 600_000),
        (800_000, -50_000, 750_000),
        (700_000, -50_000, 650_000),
    ]
    assert counted == ["checking", "card"]
