"""Which transactions wait for a category (docs/conventions.md#heuristics), and the month's count and
total."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.pending import is_pending, pending_in_month
from tests.logic.plan_rows import account, category, group, line, snapshot, transaction


def plan():
    return snapshot(
        accounts=[account("chk"), account("house", "House", type="otherAsset", on_budget=False)],
        category_groups=[group("g-int", "Internal Master Category", internal=True), group("g1", "Everyday")],
        categories=[
            category("c-unc", "g-int", "Uncategorized", internal=True),
            category("c-food", "g1", "Groceries"),
        ],
        transactions=[
            transaction("none", "chk", "2026-09-03", -12_340),
            transaction("uncategorized", "chk", "2026-09-04", 7_000, category_id="c-unc"),
            transaction("food", "chk", "2026-09-05", -50_000, category_id="c-food"),
            transaction("tracking", "house", "2026-09-06", -500_000),
            transaction("transfer", "chk", "2026-09-07", -100_000, transfer_account_id="house"),
            transaction("split", "chk", "2026-09-08", -30_000),
            transaction("gone", "chk", "2026-09-09", -99_000, deleted=True),
            transaction("august", "chk", "2026-08-31", -40_000),
        ],
        subtransactions=[line("s1", "split", -20_000), line("s2", "split", -10_000, category_id="c-food")],
    )


def test_only_uncategorised_plain_transactions_on_budget_accounts_are_pending():
    home = plan()

    pending = {t.id for t in home.transactions.values() if is_pending(home, t)}

    assert pending == {"none", "uncategorized", "august"}


def test_the_months_pending_total_counts_and_adds_up_that_month_only():
    total = pending_in_month(plan(), date(2026, 9, 1))

    assert (total.count, total.amount) == (2, -12_340 + 7_000)
