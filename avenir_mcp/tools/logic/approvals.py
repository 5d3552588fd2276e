"""Approving transactions (docs/tools.md#approve_transactions) and un-approving them
(docs/undo.md#approve_transactions): pure.

`approvals(snapshot, transaction_ids)` returns the transactions that would go from
unapproved to approved, in the order given, and how many are approved already. A transaction
that is not in the plan (deleted ones are not in a snapshot) is refused. Splits, transfers
and tracking accounts may all be approved: approving is the person saying "I have seen it".

`undo_state(snapshot, transaction_id)`: an approved transaction is restored (un-approved),
an unapproved one is already as before, a deleted one is a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction


@dataclass(frozen=True)
class Approvals:
    to_approve: tuple[Transaction, ...]
    unchanged_count: int


def approvals(snapshot: PlanSnapshot, transaction_ids: Sequence[str]) -> Approvals:
    """Which of the given transactions approving would change (see the module docstring)."""
    to_approve: list[Transaction] = []
    for transaction_id in transaction_ids:
        transaction = snapshot.transactions.get(transaction_id)
        if transaction is None:
            raise not_in_plan("transaction", transaction_id, "find_transactions")
        if not transaction.approved:
            to_approve.append(transaction)
    return Approvals(tuple(to_approve), len(transaction_ids) - len(to_approve))


def undo_state(snapshot: PlanSnapshot, transaction_id: str) -> tuple[str, str]:
    """`(state, reason)` of one approved transaction when its approval is undone."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "conflict", "it was deleted"
    if transaction.approved:
        return "restore", ""
    return "already_as_before", ""
