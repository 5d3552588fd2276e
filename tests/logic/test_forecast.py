"""tools.logic.forecast on a small plan with a fixed today: what lands on which day."""

from __future__ import annotations

from datetime import date

from avenir_mcp.tools.logic.forecast import project
from tests.logic.plan_rows import account, payee, scheduled, snapshot, transaction

TODAY = date(2026, 3, 20)


def household():
    """Checking (1,000.00) paying a streaming service 15.00 on the 5th of each of the last four
    months, and a savings account with a monthly transfer of 100.00 into checking on the 10th."""
    charges = [
        transaction(f"t{n}", "checking", day, -15_000, payee_id="p-stream")
        for n, day in enumerate(["2025-11-05", "2025-12-05", "2026-01-05", "2026-02-05"])
    ]
    return snapshot(
        accounts=[
            account("checking", balance=1_000_000),
            account("savings", "Savings", type="savings", balance=5_000_000),
        ],
        payees=[payee("p-stream", "Streamflix")],
        transactions=charges,
        scheduled_transactions=[
            scheduled("s-top-up", "savings", "2026-04-10", -100_000, transfer_account_id="checking")
        ],
    )


def test_a_recurring_day_already_past_this_month_lands_next_month_only_and_a_transfer_in_counts():
    forecast = project(
        household(),
        today=TODAY,
        until=date(2026, 4, 1),
        account_ids=["checking"],
        decimal_digits=2,
        variable_monthly=0,
    )

    [streaming] = forecast.recurring
    assert (streaming.amount, streaming.day) == (-15_000, 5)
    [top_up] = forecast.scheduled
    assert (top_up.amount, top_up.dates) == (100_000, (date(2026, 4, 10),))
    march, april = forecast.months
    # The 5th of March is before tomorrow: already paid, not projected again.
    assert (march.start, march.inflows, march.outflows, march.end) == (1_000_000, 0, 0, 1_000_000)
    assert (april.inflows, april.outflows, april.end) == (100_000, -15_000, 1_085_000)
