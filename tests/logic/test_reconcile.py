"""tools.logic.reconcile: the adjustment it enters and how its undo judges each item."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.new_transactions import transaction_digest
from avenir_mcp.tools.logic.reconcile import adjustment, adjustment_state, reconciled_state
from tests.logic.plan_rows import account, category, group, snapshot, transaction


def plan():
    return snapshot(
        accounts=[
            account("checking"),
            account("house", "House", type="otherAsset", on_budget=False),
        ],
        category_groups=[group("g-internal", "Internal Master Category", internal=True)],
        categories=[category("c-rta", "g-internal", "Inflow: Ready to Assign", internal=True)],
        transactions=[
            transaction("t-reconciled", "checking", "2026-03-01", -5_000, cleared="reconciled"),
            transaction("t-cleared", "checking", "2026-03-02", -6_000, cleared="cleared"),
            transaction("t-adjust", "checking", "2026-03-03", 1_000, payee_name=None),
        ],
    )


def test_the_adjustment_goes_to_ready_to_assign_on_a_budget_account_and_to_no_category_on_a_tracking_one():
    snapshot = plan()
    today = date(2026, 3, 20)

    on_budget = adjustment(snapshot, snapshot.accounts["checking"], 1_500, today)
    tracking = adjustment(snapshot, snapshot.accounts["house"], -2_500, today)

    assert (on_budget["category_id"], on_budget["amount"]) == ("c-rta", 1_500)
    assert (tracking["category_id"], tracking["amount"], tracking["date"]) == (None, -2_500, "2026-03-20")


def test_its_undo_restores_what_is_still_reconciled_and_calls_a_deleted_transaction_a_conflict():
    snapshot = plan()

    assert reconciled_state(snapshot, "t-reconciled") == ("restore", "")
    assert reconciled_state(snapshot, "t-cleared") == ("already_as_before", "")
    assert reconciled_state(snapshot, "t-gone") == ("conflict", "it was deleted")


def test_its_undo_deletes_the_adjustment_while_unchanged_and_counts_a_deleted_one_as_undone():
    snapshot = plan()
    digest = transaction_digest(snapshot.transactions["t-adjust"])

    assert adjustment_state(snapshot, "t-adjust", digest) == ("restore", "")
    assert adjustment_state(snapshot, "t-adjust", "another digest")[0] == "conflict"
    assert adjustment_state(snapshot, "t-deleted-since", digest) == ("already_as_before", "")
