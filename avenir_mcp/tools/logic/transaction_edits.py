"""Correcting transactions (docs/tools.md#update_transactions) and changing them back
(docs/undo.md#update_transactions): pure.

An `Edit` is one transaction's asked fields (`EDITABLE`, in that order: date, amount, payee,
memo, cleared, account), checked alone by the tool before the plan is read (dates, amounts,
text). `transaction_edits(snapshot, edits)` checks each against the plan and returns, in the
order given, each transaction's changed fields (before → after) and how many were left with
none. Refused (`Refusal`, one line, the first problem found):

- a transaction not in the plan (deleted ones are not in a snapshot);
- `amount` on a split (its lines must still add up, and the API cannot edit them); `date` or
  `account_id` on a split too (YNAB ignores a split's new date and keeps it on its account);
- `amount`, `date` or `account_id` on a reconciled transaction (it would move a balance the
  person matched to the bank);
- `account_id` or `payee_name` on a transfer (YNAB keeps both sides together), and `amount` or
  `date` on the side of a transfer a split's line made (it moves with its split);
- an account not in the plan, closed, or the transaction's own; a categorised transaction
  moved to a tracking account (tracking accounts carry no categories).

A field equal to the current value is dropped: a payee name resolving to the transaction's
payee (YNAB finds a payee by its name, exact then ignoring case, `payee_named`), the same
memo (`""` removes it: no memo), the same date, amount or cleared status.

`edit_moves(transaction, changes)`: what changing its amount or date does to its category's
activity (docs/confirmation.md#what-a-change-leaves-available): its activity taken away as it is,
and given again at the new amount on the new date; nothing for the other fields (an account
move keeps the category).

`edit_state(snapshot, logged)` compares one logged transaction with the plan now, for undo and
settling: `restore` while every changed field is still as the operation left it,
`already_as_before` once every one is back, else `conflict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from avenir_mcp.tools.logic.available import ActivityMove
from avenir_mcp.tools.logic.budget import is_uncategorized
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Account, Payee, PlanSnapshot, Transaction

EditField = Literal["date", "amount", "payee_name", "memo", "cleared", "account_id"]
EDITABLE: tuple[EditField, ...] = ("date", "amount", "payee_name", "memo", "cleared", "account_id")
"""The fields an edit may name, in the order the preview and the result list them."""

Cleared = Literal["cleared", "uncleared"]


@dataclass(frozen=True)
class Edit:
    """One transaction's asked fields (None: not asked). `memo` `""` removes the memo."""

    transaction_id: str
    date: date | None = None
    amount: int | None = None
    payee_name: str | None = None
    memo: str | None = None
    cleared: Cleared | None = None
    account_id: str | None = None

    def asked(self) -> tuple[EditField, ...]:
        return tuple(name for name in EDITABLE if getattr(self, name) is not None)


@dataclass(frozen=True)
class PayeeValue:
    """A transaction's payee: its id (None for none, or a payee YNAB has yet to create) and name."""

    id: str | None
    name: str | None


Value = str | int | PayeeValue | None
"""A field's value: a date as `YYYY-MM-DD`, an amount in milliunits, a payee, a memo (None:
none), a cleared status, an account id."""


@dataclass(frozen=True)
class FieldChange:
    field: EditField
    before: Value
    after: Value


@dataclass(frozen=True)
class TransactionEdit:
    """One transaction whose fields would change, in `EDITABLE` order."""

    transaction: Transaction
    fields: tuple[FieldChange, ...]


@dataclass(frozen=True)
class TransactionEdits:
    edits: tuple[TransactionEdit, ...]
    unchanged_count: int


def transaction_edits(snapshot: PlanSnapshot, edits: Sequence[Edit]) -> TransactionEdits:
    """What each edit would change (see the module docstring)."""
    found: list[TransactionEdit] = []
    unchanged = 0
    payees = _PayeesByName(snapshot)
    for edit in edits:
        transaction = editable_transaction(snapshot, edit)
        fields = tuple(
            change
            for name in edit.asked()
            if (change := _field_change(snapshot, payees, transaction, edit, name)) is not None
        )
        if fields:
            found.append(TransactionEdit(transaction, fields))
        else:
            unchanged += 1
    return TransactionEdits(tuple(found), unchanged)


def editable_transaction(snapshot: PlanSnapshot, edit: Edit) -> Transaction:
    """The transaction, refused when it is not in the plan or cannot take the fields asked."""
    transaction = snapshot.transactions.get(edit.transaction_id)
    if transaction is None:
        raise not_in_plan("transaction", edit.transaction_id, "find_transactions")
    asked = set(edit.asked())
    shown = quoted(transaction.id, 40)
    if snapshot.is_split(transaction) and (moved := _first(asked, ("amount", "date", "account_id"))):
        raise Refusal(
            f"Transaction {shown} is split: YNAB's API cannot change a split's {moved} (its lines must "
            "still add up and cannot be edited); the person can change it in YNAB."
        )
    if transaction.cleared == "reconciled" and (moved := _first(asked, ("amount", "date", "account_id"))):
        raise Refusal(
            f"Transaction {shown} is reconciled: changing its {moved} would move a balance the person "
            "matched to the bank; do it in YNAB, which asks first."
        )
    if transaction.transfer_account_id is not None:
        if moved := _first(asked, ("account_id", "payee_name")):
            raise Refusal(
                f"Transaction {shown} is a transfer, whose {moved} YNAB keeps with its other side: "
                "delete it (delete_transactions) and record it again with transfer_money instead."
            )
        if _made_by_a_split_line(snapshot, transaction) and (moved := _first(asked, ("amount", "date"))):
            raise Refusal(
                f"Transaction {shown} is the other side of a split's transfer line: its {moved} moves "
                "with the split; the person can change the split in YNAB."
            )
    if edit.account_id is not None:
        _destination(snapshot, transaction, edit.account_id)
    return transaction


def _first(asked: set[EditField], names: tuple[EditField, ...]) -> EditField | None:
    return next((name for name in names if name in asked), None)


def _made_by_a_split_line(snapshot: PlanSnapshot, transaction: Transaction) -> bool:
    """Whether the other side is a split's line: the leg points at the split (or at its line)."""
    other = transaction.transfer_transaction_id or ""
    parent = snapshot.transactions.get(other)
    return other in snapshot.subtransactions or (parent is not None and snapshot.is_split(parent))


def _destination(snapshot: PlanSnapshot, transaction: Transaction, account_id: str) -> Account:
    account = snapshot.accounts.get(account_id)
    shown = quoted(account_id, 40)
    if account is None:
        raise not_in_plan("account", account_id, "list_accounts")
    if account.closed:
        raise Refusal(
            f"Account {shown} is closed, so YNAB takes nothing new on it; give an open account from "
            "list_accounts."
        )
    if account.id == transaction.account_id:
        raise Refusal(
            f"Transaction {quoted(transaction.id, 40)} is already on account {shown}: give another "
            "account, or leave account_id out."
        )
    if not account.on_budget and _categorised(snapshot, transaction):
        raise Refusal(
            f"Transaction {quoted(transaction.id, 40)} has a category, and account {shown} is a "
            "tracking account, which carries none: remove its category first (apply_categories cannot; "
            "the person can in YNAB), or choose an account on the budget."
        )
    return account


def _categorised(snapshot: PlanSnapshot, transaction: Transaction) -> bool:
    category = snapshot.categories.get(transaction.category_id) if transaction.category_id else None
    return category is not None and not is_uncategorized(snapshot, category)


def _field_change(
    snapshot: PlanSnapshot, payees: _PayeesByName, transaction: Transaction, edit: Edit, name: EditField
) -> FieldChange | None:
    before = field_value(snapshot, transaction, name)
    after: Value
    if name == "date":
        after = edit.date.isoformat() if edit.date is not None else None
    elif name == "payee_name":
        after = payees.resolved(edit.payee_name or "")
        if isinstance(before, PayeeValue) and after.id is not None and after.id == before.id:
            return None
    elif name == "memo":
        after = edit.memo or None
    else:
        after = getattr(edit, name)
    return None if after == before else FieldChange(name, before, after)


def edit_moves(transaction: Transaction, changes: Sequence[FieldChange]) -> list[ActivityMove]:
    """The activity moved by `changes` (each `before` the transaction's value now) to its amount or
    date: none when neither changes."""
    after = {change.field: change.after for change in changes if change.field in ("date", "amount")}
    if not after:
        return []
    day = date.fromisoformat(str(after["date"])) if "date" in after else transaction.date
    amount = after.get("amount", transaction.amount)
    assert isinstance(amount, int)
    category = transaction.category_id
    return [
        ActivityMove(category, transaction.date, -transaction.amount),
        ActivityMove(category, day, amount),
    ]


def field_value(snapshot: PlanSnapshot, transaction: Transaction, name: EditField) -> Value:
    """The transaction's value of field `name`, as an edit gives it (a payee with its name)."""
    if name == "date":
        return transaction.date.isoformat()
    if name == "payee_name":
        payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
        return PayeeValue(transaction.payee_id, payee.name if payee is not None else None)
    if name == "memo":
        return transaction.memo or None
    value: str | int = getattr(transaction, name)
    return value


class _PayeesByName:
    """The plan's payees YNAB would pick for a `payee_name` (live, not transfer payees): by exact
    name, then ignoring case; built on first use."""

    def __init__(self, snapshot: PlanSnapshot) -> None:
        self._snapshot = snapshot
        self._exact: dict[str, Payee] | None = None
        self._folded: dict[str, Payee] = {}

    def resolved(self, name: str) -> PayeeValue:
        if self._exact is None:
            self._exact = {}
            for payee in self._snapshot.payees.values():
                if payee.transfer_account_id is None:
                    self._exact.setdefault(payee.name, payee)
                    self._folded.setdefault(payee.name.casefold(), payee)
        found = self._exact.get(name) or self._folded.get(name.casefold())
        return PayeeValue(found.id, found.name) if found is not None else PayeeValue(None, name)


# --- undo ----------------------------------------------------------------------------------

EditState = Literal["restore", "already_as_before", "conflict"]


def edit_state(
    snapshot: PlanSnapshot, transaction_id: str, fields: Sequence[FieldChange]
) -> tuple[EditState, str]:
    """`(state, reason)` of one transaction an update_transactions operation changed (`fields`,
    each before → after): `restore` while every field is still as left, `already_as_before` once
    every one is back at before, else `conflict` and why (the first field changed since)."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "conflict", "it was deleted"
    now = {change.field: field_value(snapshot, transaction, change.field) for change in fields}
    if all(_same(now[change.field], change.before) for change in fields):
        return "already_as_before", ""
    moved = [change.field for change in fields if not _same(now[change.field], change.after)]
    if not moved:
        return "restore", ""
    return "conflict", f"its {', '.join(FIELD_WORDS[name] for name in moved)} changed since"


def _same(current: Value, logged: Value) -> bool:
    """Whether a field now is the logged value; a payee by id, or by name (ignoring case) when
    its id was never learnt (a payee YNAB created, whose answer was lost)."""
    if isinstance(current, PayeeValue) and isinstance(logged, PayeeValue):
        if logged.id is not None or logged.name is None:
            return current.id == logged.id
        return current.id is not None and (current.name or "").casefold() == logged.name.casefold()
    return current == logged


FIELD_WORDS: dict[EditField, str] = {
    "date": "date",
    "amount": "amount",
    "payee_name": "payee",
    "memo": "memo",
    "cleared": "cleared status",
    "account_id": "account",
}
"""How the person reads each field's name (previews, conflicts)."""
