"""How a transaction reads in a preview: `2026-09-12; Market; 86.40` (docs/confirmation.md#the-preview).

Dates as `YYYY-MM-DD`; the payee's name made safe (one line, at most 80 characters); the
amount as a statement reads it, in the plan's decimal digits and separator, with no symbol
and no grouping: an outflow bare (`86.40`), an inflow with `+` (`+86.40`); the parts apart by
`; ` (`values.text.listed`: a decimal comma cannot end a part). Category names are made safe
the same way, `(uncategorised)` when there is none.
"""

from __future__ import annotations

from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction

NO_PAYEE = "(no payee)"
UNCATEGORISED = "(uncategorised)"
SPLIT = "Split"
"""What a split transaction or schedule shows as its category (its lines have theirs)."""


def payee_shown(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """The payee's name, else the name the bank gave (an import not yet matched), else `(no payee)`."""
    payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
    text = payee.name if payee is not None else transaction.import_payee_name
    return shown_name(text, NO_PAYEE)


def category_shown(snapshot: PlanSnapshot, category_id: str | None) -> str:
    """The category's name, `(uncategorised)` for none, `(a deleted category)` for one gone."""
    if category_id is None:
        return UNCATEGORISED
    category = snapshot.categories.get(category_id)
    if category is None:
        return "(a deleted category)"
    return shown_name(category.name, UNCATEGORISED)


def transaction_line(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """`2026-09-12; Market; 86.40`: how the person recognises a transaction."""
    amount = shown_amount(snapshot.settings.currency_format, transaction.amount, statement=True)
    return listed([transaction.date.isoformat(), payee_shown(snapshot, transaction), amount])


def transaction_line_with_category(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """`2026-09-12; Market; 86.40; Groceries`: the line and the category (`Split` for a split)."""
    split = snapshot.is_split(transaction)
    category = SPLIT if split else category_shown(snapshot, transaction.category_id)
    return listed([transaction_line(snapshot, transaction), category])


def transaction_line_by_id(snapshot: PlanSnapshot, transaction_id: str) -> str:
    """The transaction's line, `transaction <id>` when it is no longer in the plan (how an
    undo names an item it leaves alone)."""
    transaction = snapshot.transactions.get(transaction_id)
    return (
        transaction_line(snapshot, transaction)
        if transaction is not None
        else f"transaction {transaction_id}"
    )
