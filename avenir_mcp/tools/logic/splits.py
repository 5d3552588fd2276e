"""Splitting a transaction over several categories (docs/tools.md#split_transaction): pure.

`split_lines_refusal(lines)` is what the lines alone show (at least two, none of zero),
checked before the plan is read. `checked_split(snapshot, transaction_id, lines)` checks the
rest against the plan and returns the transaction and each line's category. Refused
(`Refusal`, one line): a transaction not in the plan; one split already (YNAB's API cannot
edit a split's lines); a transfer; one on a tracking account (no categories there); lines
that do not add up to the transaction's amount to the milliunit; a category not in the plan,
Uncategorized, an internal one other than Inflow: Ready to Assign, a credit card payment one.

Not undoable: YNAB's API cannot turn a split back into one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avenir_mcp.tools.logic.recategorise import assignable_category
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.money import amount_text
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot, Transaction

MIN_LINES = 2


@dataclass(frozen=True)
class SplitLine:
    """One line as the agent gave it: amount in milliunits, category id, memo (checked text)."""

    amount: int
    category_id: str
    memo: str | None


def split_lines_refusal(lines: Sequence[SplitLine]) -> Refusal | None:
    """Why these lines cannot make a split whatever the plan holds, for the caller to raise; or None."""
    if len(lines) < MIN_LINES:
        return Refusal(
            f"A split needs at least {MIN_LINES} lines, and {len(lines)} were given: to give the "
            "transaction one category, use apply_categories."
        )
    for index, line in enumerate(lines, start=1):
        if line.amount == 0:
            return Refusal(
                f"Line {index} has an amount of zero: every line of a split carries money; leave it out."
            )
    return None


def checked_split(
    snapshot: PlanSnapshot, transaction_id: str, lines: Sequence[SplitLine]
) -> tuple[Transaction, list[Category]]:
    """The transaction to split and each line's category (see the module docstring)."""
    transaction = snapshot.transactions.get(transaction_id)
    shown = quoted(transaction_id, 40)
    if transaction is None:
        raise not_in_plan("transaction", transaction_id, "find_transactions")
    if snapshot.is_split(transaction):
        raise Refusal(
            f"Transaction {shown} is split already: YNAB's API cannot change a split's lines; "
            "the person can change them in YNAB."
        )
    if transaction.transfer_account_id is not None:
        raise Refusal(f"Transaction {shown} is a transfer between accounts, which cannot be split here.")
    account = snapshot.accounts.get(transaction.account_id)
    if account is not None and not account.on_budget:
        raise Refusal(
            f"Transaction {shown} is on a tracking account, and tracking accounts carry no "
            "categories, so it cannot be split."
        )
    total = sum(line.amount for line in lines)
    if total != transaction.amount:
        currency = snapshot.settings.currency_format
        raise Refusal(
            f"The lines add up to {amount_text(currency, total)}, not the transaction's "
            f"{amount_text(currency, transaction.amount)}: make them add up to its amount exactly."
        )
    return transaction, [assignable_category(snapshot, line.category_id) for line in lines]
