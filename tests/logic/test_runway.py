"""tools.logic.runway: which accounts count as money the household can live on."""

from __future__ import annotations

from avenir_mcp.tools.logic.runway import liquid
from tests.logic.plan_rows import account, snapshot


def test_cash_and_owing_cards_count_and_an_on_budget_loan_is_left_out_as_not_cash():
    plan = snapshot(
        accounts=[
            account("a-check", "Checking", balance=900_000),
            account("a-save", "Savings", type="savings", balance=2_000_000),
            account("a-visa", "Visa", type="creditCard", balance=-150_000),
            account("a-amex", "Amex", type="creditCard", balance=20_000),
            account("a-loan", "Car loan", type="autoLoan", balance=-8_000_000),
            account("a-house", "House", type="otherAsset", on_budget=False, balance=300_000_000),
            account("a-old", "Old cash", type="cash", closed=True, balance=0),
        ]
    )

    without_savings = liquid(plan, include_savings=False)
    with_savings = liquid(plan, include_savings=True)

    assert [a.id for a in without_savings.counted] == ["a-check", "a-visa"]
    assert [(a.id, why) for a, why in without_savings.left_out] == [
        ("a-loan", "not cash"),
        ("a-house", "tracking account"),
        ("a-save", "savings left out"),
    ]
    assert (without_savings.cash, without_savings.owed_on_cards, without_savings.total) == (
        900_000,
        150_000,
        750_000,
    )
    assert with_savings.total == 2_750_000
