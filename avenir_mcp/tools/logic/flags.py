"""Flagging transactions (docs/tools.md#flag_transactions) and putting flags back
(docs/undo.md#flag_transactions): pure.

YNAB's flag colours are `red`, `orange`, `yellow`, `green`, `blue`, `purple`; no flag is
`None` to send, and YNAB gives back either `null` (never flagged) or `""` (flag removed),
both "no flag" here (`flag_of`). A flag already of the asked colour is skipped.

`flag_changes(snapshot, flags)` checks each `(transaction_id, colour)` against the plan and
returns what would change, in the order given, and how many already have that flag.
Refused (`Refusal`): a transaction that is not in the plan (deleted ones are not in a
snapshot). The tool refuses a transaction listed twice before the plan is read.

`undo_state(snapshot, transaction_id, before=, after=)` compares one logged flag with the
plan now, for undo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction

Colour = Literal["red", "orange", "yellow", "green", "blue", "purple"]
NO_FLAG = "none"
"""How "no flag" reads in a preview (docs/confirmation.md#the-preview)."""


def flag_of(transaction: Transaction) -> str | None:
    """The transaction's flag colour, None when it has none (YNAB's `null` and `""` alike)."""
    return transaction.flag_color or None


def flag_shown(colour: str | None) -> str:
    return colour or NO_FLAG


@dataclass(frozen=True)
class FlagChange:
    """One transaction whose flag would change."""

    transaction: Transaction
    before: str | None
    after: str | None


@dataclass(frozen=True)
class FlagChanges:
    changes: tuple[FlagChange, ...]
    unchanged_count: int


def flag_changes(snapshot: PlanSnapshot, flags: Sequence[tuple[str, str | None]]) -> FlagChanges:
    """What setting each transaction's flag would change (see the module docstring)."""
    changes: list[FlagChange] = []
    unchanged = 0
    for transaction_id, colour in flags:
        transaction = snapshot.transactions.get(transaction_id)
        if transaction is None:
            raise not_in_plan("transaction", transaction_id, "find_transactions")
        before = flag_of(transaction)
        if before == (colour or None):
            unchanged += 1
            continue
        changes.append(FlagChange(transaction, before, colour or None))
    return FlagChanges(tuple(changes), unchanged)


# --- undo ----------------------------------------------------------------------------------


def undo_state(
    snapshot: PlanSnapshot, transaction_id: str, *, before: str | None, after: str | None
) -> tuple[str, str]:
    """`(state, reason)` of one transaction a flag_transactions operation flagged from `before`
    to `after`: `restore` while the flag is still `after`, `already_as_before` when it is back
    at `before`, else `conflict` and why."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "conflict", "it was deleted"
    current = flag_of(transaction)
    if current == before:
        return "already_as_before", ""
    if current == after:
        return "restore", ""
    return "conflict", f"its flag is now {flag_shown(current)}"
