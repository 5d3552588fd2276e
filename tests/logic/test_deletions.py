"""tools.logic.deletions: what enters a deleted transaction again, and when undo may."""

from __future__ import annotations

from avenir_mcp.tools.logic.deletions import deletions, reentry_body, reentry_state
from tests.logic.plan_rows import account, category, group, payee, snapshot, transaction


def plan(**changes):
    """Checking with a market purchase and a look-alike of another payee; the same plan after the
    purchase was deleted, with `changes` (rows replaced by kind)."""
    rows = {
        "accounts": [account("checking"), account("visa", "Visa", type="creditCard")],
        "category_groups": [group("g", "Everyday")],
        "categories": [category("groceries", "g", "Groceries")],
        "payees": [payee("p-market", "Market"), payee("p-other", "Bakery")],
        "transactions": [
            transaction(
                "t-market", "checking", "2026-03-02", -5_000, payee_id="p-market", category_id="groceries"
            ),
            transaction("t-bakery", "checking", "2026-03-02", -5_000, payee_id="p-other"),
            transaction("t-bank", "visa", "2026-03-03", -7_000, import_payee_name="SHOP 12"),
        ],
    }
    before = snapshot(**rows)
    rows["transactions"] = [t for t in rows["transactions"] if t["id"] not in ("t-market", "t-bank")]
    return before, snapshot(**(rows | changes))


def test_a_transaction_of_another_payee_on_the_same_day_and_amount_is_no_lookalike():
    before, after = plan()
    market, bank = deletions(before, ["t-market", "t-bank"])

    assert (market.lookalike_ids, market.payee_name, bank.payee_name) == ((), "Market", "SHOP 12")
    assert reentry_state(after, market, {"t-market"}) == ("restore", "")


def test_a_closed_account_or_a_deleted_category_leaves_it_deleted():
    before, _after = plan()
    [market] = deletions(before, ["t-market"])
    _before, closed = plan(accounts=[account("checking", closed=True)])
    _before, no_category = plan(categories=[])

    assert reentry_state(closed, market, set()) == ("conflict", "account Checking is closed or deleted since")
    assert reentry_state(no_category, market, set()) == ("conflict", "its category was deleted since")


def test_a_payee_deleted_since_is_entered_by_name_and_none_stays_none():
    before, _after = plan()
    market, bank = deletions(before, ["t-market", "t-bank"])
    _before, no_payees = plan(payees=[])
    nameless = bank.model_copy(update={"payee_name": None})

    assert reentry_body(no_payees, market)["payee_name"] == "Market"
    assert "payee_id" not in reentry_body(no_payees, market)
    assert reentry_body(no_payees, bank)["payee_name"] == "SHOP 12"
    assert {"payee_id", "payee_name"} & reentry_body(no_payees, nameless).keys() == set()
